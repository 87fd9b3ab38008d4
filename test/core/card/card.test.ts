import { describe, expect, it } from "vitest";
import matter from "gray-matter";
import { parseCard, titleText } from "../../../src/core/card/card";
import { stripAllInline, stripInline } from "../../../src/core/card/markdown";

describe("parseCard", () => {
  it("reads the card schema", () => {
    const card = parseCard(
      "debugging/launchd.md",
      '---\nname: Cron PATH\ndescription: Scheduler PATH is short\ntype: debugging\ntags: [cron, path]\naliases: [排程跑不起来]\nproject: vm\nparent: "[[main]]"\nstatus: Active\nupdated: 2026-10-02\n---\n# Heading\n\nBody.\n\n## 相關\n- [[other-card]]\n',
    );
    expect(card).toMatchObject({
      name: "Cron PATH",
      description: "Scheduler PATH is short",
      type: "debugging",
      tags: ["cron", "path"],
      aliases: ["排程跑不起来"],
      project: "vm",
      parent: "main",
      status: "active",
      firstHeading: "Heading",
      hasFrontmatter: true,
      frontmatterError: "",
    });
    expect(card.updated).toBe(Date.UTC(2026, 9, 2));
    expect(card.links.map((l) => l.target)).toEqual(["main", "other-card"]);
  });

  it.each([
    [
      "no frontmatter: name from file, description from first paragraph",
      "notes/My note.md",
      "# Title\n\nFirst para\nline two.\n\nSecond.",
      { name: "My note", description: "First para line two.", hasFrontmatter: false },
    ],
    ["aliases as a string", "a.md", "---\naliases: one, two\n---\n", { aliases: ["one", "two"] }],
    ["aliases as a list", "a.md", "---\naliases:\n  - one\n  - two\n---\n", { aliases: ["one", "two"] }],
    ["tags with hashes and spaces", "a.md", '---\ntags: "#a b"\n---\n', { tags: ["a", "b"] }],
    ["Windows line endings", "a.md", "---\r\nname: Win\r\n---\r\nText here.\r\n", { name: "Win", description: "Text here." }],
    ["a BOM", "a.md", "\uFEFF---\nname: Bom\n---\n", { name: "Bom", hasFrontmatter: true }],
    ["an opening rule with no close is not frontmatter", "a.md", "---\nJust a rule and text.", { hasFrontmatter: false }],
    ["embeds and callouts are not the description", "a.md", "![[image.png]]\n\n> [!note] Title\n> callout body\n\nReal text.", { description: "callout body" }],
  ])("%s", (_, path, text, expected) => {
    expect(parseCard(path, text)).toMatchObject(expected);
  });

  it("ignores links inside code blocks and inline code", () => {
    const card = parseCard("a.md", "```\n[[in-fence]]\n```\n`[[in-code]]` and [[real|alias]] and ![[embed#h]] and [[#local]]\n");
    expect(card.links.map((l) => [l.target, l.embed])).toEqual([
      ["real", false],
      ["embed", true],
    ]);
  });

  it("finds headings on the lines as written, and links on the lines read once code is taken out", () => {
    const card = parseCard(
      "a.md",
      "# One\n   ## Two ##\n\t# Tab\n    # four spaces: code\n`x` # After code\n~~~\n# fenced\n[[fenced]]\n~~~\n\u00a0# nbsp\n#no space\nText [[a]] `[[b]]` ![[c|x]]\n```js\n[[d]]\n```\n####### seven\n",
    );
    expect(card.headings.map((h) => [h.level, h.text, h.line])).toEqual([
      [1, "One", 0],
      [2, "Two", 1],
      [1, "Tab", 2],
      // "`x` # After code" opens with code, not with "#": no heading, in CommonMark or Obsidian.
      [1, "nbsp", 9],
    ]);
    expect(card.links.map((l) => [l.target, l.embed, l.line])).toEqual([
      ["a", false, 11],
      ["c", true, 11],
    ]);
  });

  it("never runs JavaScript frontmatter", () => {
    const g = globalThis as { pwned?: boolean };
    const card = parseCard("a.md", "---js\n{ name: (globalThis.pwned = true, 'x') }\n---\nBody text.");
    expect(g.pwned).toBeUndefined();
    expect(card.frontmatterError).toMatch(/not run/);
    expect(card.name).toBe("a");
    expect(card.description).toBe("Body text.");
  });

  it("keeps going on broken YAML and says why", () => {
    const card = parseCard("a.md", "---\nname: [unclosed\n---\nBody.");
    expect(card.frontmatterError).not.toBe("");
    expect(card.description).toBe("Body.");
  });

  // parseCard gives gray-matter the frontmatter block alone; these are notes where the block
  // gray-matter would cut from the whole note is not the obvious one.
  it.each([
    ["a closing line with more after it", "---\na: 1\n---x\nb: 2\n---\nbody ---\n"],
    ["a rule of four dashes inside", "---\na: 1\n----\nb: 2\n---\n"],
    ["a language after the opening", "---yaml\na: 1\n---\nbody"],
    ["an empty block", "---\n---\nbody\n---\nmore"],
    ["only comments", "---\n# nothing\n---\n"],
    ["an excerpt separator", "---\nexcerpt_separator: <!-- more -->\na: [1, 2]\n---\nfirst <!-- more --> rest"],
    ["a list at the top", "---\n- a\n- b\n---\n"],
    ["a scalar", "---\njust text\n---\n"],
    ["nothing after the close", "---\na: 1\n---"],
    ["spaces after the close", "---\na: 1\n---  \nbody"],
  ])("reads the frontmatter gray-matter reads from the whole note: %s", (_, text) => {
    const whole = matter(text, { engines: { js: { parse: () => ({}) } } }).data as unknown;
    const expected = whole && typeof whole === "object" && !Array.isArray(whole) ? { ...whole } : {};
    const card = parseCard("a.md", text);
    expect(card.hasFrontmatter).toBe(true);
    expect({ ...card.frontmatter }).toEqual(expected);
  });

  it("reports the YAML error gray-matter gives for the whole note", () => {
    const text = "---\nname: ok\nlist: [1, 2\n---\nBody with: [brackets\n";
    let expected = "";
    try {
      matter(text, {});
    } catch (err) {
      expected = (err as Error).message.split("\n")[0];
    }
    expect(expected).not.toBe("");
    expect(parseCard("a.md", text).frontmatterError).toBe(expected);
  });

  it("treats prototype-named keys as data", () => {
    const card = parseCard("a.md", "---\n__proto__: { polluted: true }\nconstructor: x\nname: ok\n---\n");
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(card.name).toBe("ok");
  });

  it.each([
    ["plain words", "plain words"],
    ["  tabs\tand\u00a0spaces  ", "tabs and spaces"],
    ["a [[link|shown]] and **bold**", "a shown and bold"],
    ["`code` and <b>tags</b>", "code and tags"],
    ["==mark== ~~gone~~ __under__", "mark gone under"],
    ["[text](url) ![img](x.png) ![[embed]]", "text"],
  ])("strips inline markdown: %j", (text, expected) => {
    expect(stripInline(text)).toBe(expected);
  });

  it("strips inline markdown as the whole chain of replacements does, on any text", () => {
    const pieces = ["a", "Word", " ", "  ", "\t", "\u00a0", "\u3000", "\n", "[[", "]]", "|", "#", "<b>", "**", "__", "==", "~~", "`", "![", "](", ")", "x.md"];
    let seed = 3;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: next(10) }, () => pieces[next(pieces.length)]).join("");
      expect(stripInline(text), JSON.stringify(text)).toBe(stripAllInline(text));
    }
  });

  it("builds the title field from name, description, tags, aliases, file name and first heading", () => {
    const t = titleText(parseCard("f/file-name.md", "---\nname: N\ndescription: D\ntags: [t]\naliases: [al]\n---\n# Head\n"));
    expect(t.split("\n")).toEqual(["N", "D", "t", "al", "file-name", "Head"]);
  });
});

// Both found by holding the reader against Obsidian's metadata cache on the help vaults.
describe("headings and code blocks as Obsidian reads them", () => {
  it("keeps a heading made of inline code", () => {
    const c = parseCard("a.md", "### `date`\n\n#### `tag`/`alias` vs `tags`\n");
    expect(c.headings.map((h) => h.text)).toEqual(["date", "tag/alias vs tags"]);
  });

  it("closes a fence only with a bare fence: an info string inside a block is text", () => {
    const c = parseCard("b.md", "```yaml\na: 1\n```yaml\n# not a heading\n```\n# A heading\n[[link]]\n");
    expect(c.headings.map((h) => h.text)).toEqual(["A heading"]);
    expect(c.links.map((l) => l.target)).toEqual(["link"]);
  });

  it("takes Obsidian's own parse when the plugin has it, and agrees with its own", () => {
    const text = "---\nname: N\ntags: [t]\n---\n# Head\nSee [[other|alias]] and ![[pic.png]] and [md](x.md).\n";
    const meta = {
      frontmatter: { name: "N", tags: ["t"] },
      frontmatterEndLine: 3,
      headings: [{ level: 1, heading: "Head", line: 4 }],
      links: [
        { link: "other", original: "[[other|alias]]", line: 5 },
        { link: "pic.png", original: "![[pic.png]]", line: 5 },
        { link: "x.md", original: "[md](x.md)", line: 5 },
      ],
    };
    const own = parseCard("c.md", text);
    const fromObsidian = parseCard("c.md", text, 0, meta);
    expect(fromObsidian.links).toEqual(own.links);
    expect(fromObsidian.headings).toEqual(own.headings);
    expect([fromObsidian.name, fromObsidian.tags, fromObsidian.bodyLine, fromObsidian.body]).toEqual([own.name, own.tags, own.bodyLine, own.body]);
  });
});
