/** What an LLM answer may add to a card: before and after, as the card reads once the digest applied it, or refused. */

import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { validateAnswer } from "../../../src/core/digest/answer";
import { AnswerError } from "../../../src/core/llm/answer";
import { applyAction } from "../../../src/core/digest/apply";
import { runDigest } from "../../../src/core/digest/run";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { listPending } from "../../../src/core/queue/queue-store";
import { jsonl, line } from "../../fixtures/transcript";
import { tempDir, vaultWith } from "../../helpers";

const TARGET = "reference/vite-base.md";
const CARD =
  "---\nname: Vite base\ndescription: base after a custom domain\ntype: reference\ntags: [vite]\n---\n# Vite base\n\nSet `base` to `/`.\n\n## Related\n- [[blog-site]]\n";
// What appendDated writes for a section, before the related section.
const dated = (section: string): string => `## 2026-11-30\n\n${section}\n\n_From session s._\n`;
const extended = (section: string): string => CARD.replace("\n## Related", `\n${dated(section)}\n## Related`);

/** The card after the digest appended `section` to it; throws what the digest refused it with. */
function append(section: string, relatedHeading?: string, before = CARD): string {
  const v = vaultWith({ [TARGET]: before, "projects/blog-site.md": "---\nname: Blog\n---\nBlog.\n" });
  const offered = new Map([[TARGET, statSync(join(v, TARGET)).mtimeMs]]);
  try {
    const action = validateAnswer({ action: "append", target: TARGET, section, related: [] });
    applyAction(action, {
      vault: v,
      cards: [TARGET, "projects/blog-site.md"],
      offered,
      sessionId: "s",
      date: "2026-11-30",
      dryRun: false,
      synonymsNote: "",
      relatedHeading,
    });
  } finally {
    // Refused or not, nothing else of the card moved.
    const after = readFileSync(join(v, TARGET), "utf8");
    if (after !== before) expect(after.startsWith(before.slice(0, before.indexOf("\n## Related")))).toBe(true);
  }
  return readFileSync(join(v, TARGET), "utf8");
}

interface Case {
  testName: string;
  section: string;
  /** The card as it reads after the night, when the section is accepted. */
  after?: string;
  /** Why the answer is refused, when it is; the card is then as it was. */
  refused?: RegExp;
  relatedHeading?: string;
}

const FENCE = "```";

const appendCases: Case[] = [
  // Accepted: what a dated section may hold.
  {
    testName: "a paragraph with a level-3 heading",
    section: "Also set `base` in the preview server.\n\n### Why\n\nThe preview server reads it too.",
    after: extended("Also set `base` in the preview server.\n\n### Why\n\nThe preview server reads it too."),
  },
  {
    testName: "shell comments in a code block",
    section: `${FENCE}sh\n# build first\n## then preview\nvite preview\n${FENCE}`,
    after: extended(`${FENCE}sh\n# build first\n## then preview\nvite preview\n${FENCE}`),
  },
  {
    testName: "a frontmatter example in a code block",
    section: `Properties look like this:\n\n${FENCE}yaml\n---\nname: x\n---\n${FENCE}`,
    after: extended(`Properties look like this:\n\n${FENCE}yaml\n---\nname: x\n---\n${FENCE}`),
  },
  { testName: "a thematic break between blank lines", section: "Before.\n\n---\n\nAfter.", after: extended("Before.\n\n---\n\nAfter.") },
  {
    testName: "links to notes in the vault and to the web",
    section: "See [[blog-site]], [the fix](../debugging/launchd.md), ![[diagram.png]] and [Vite](https://vitejs.dev/config/#base).",
    after: extended("See [[blog-site]], [the fix](../debugging/launchd.md), ![[diagram.png]] and [Vite](https://vitejs.dev/config/#base)."),
  },
  {
    testName: "a path in inline code",
    section: "Claude Code reads `[x](/etc/hosts)` as text.",
    after: extended("Claude Code reads `[x](/etc/hosts)` as text."),
  },
  { testName: "a tag at the start of a line", section: "#vite #deploy", after: extended("#vite #deploy") },
  { testName: "an attribute-like word in prose", section: "Run it with data=/var/lib/app set.", after: extended("Run it with data=/var/lib/app set.") },
  { testName: "a line of prose that names a file: scheme", section: "File: vite.config.ts holds it.", after: extended("File: vite.config.ts holds it.") },

  // Refused: headings the card's structure uses.
  { testName: "a related heading and a link out (issue #24)", section: "More.\n\n## Related\n- [[../../etc/passwd]]", refused: /heading/ },
  { testName: "a level-1 heading", section: "# New title\n\ntext", refused: /heading/ },
  { testName: "a level-2 heading", section: "text\n\n## Notes\n\nmore", refused: /heading/ },
  { testName: "an empty level-2 heading", section: "text\n\n##\n\nmore", refused: /heading/ },
  { testName: "an indented level-2 heading", section: "text\n\n   ## 相關\n- [[x]]", refused: /heading/ },
  { testName: "the simplified Chinese related heading", section: "text\n\n## 相关\n- [[x]]", refused: /heading/ },
  { testName: "a line underlined with dashes (a level-2 heading)", section: "text\n\nRelated\n---\n- [[x]]", refused: /heading/ },
  { testName: "a line underlined with equals signs (a level-1 heading)", section: "Title\n=====\n\ntext", refused: /heading/ },
  { testName: "an HTML heading", section: "text\n\n<h2>Related</h2>", refused: /heading/ },
  { testName: "the related heading inside a code block", section: `${FENCE}\n## Related\n${FENCE}`, refused: /heading/ },
  {
    testName: "the vault's own related heading inside a code block",
    section: `${FENCE}\n## See also\n${FENCE}`,
    refused: /heading/,
    relatedHeading: "## See also",
  },
  { testName: "a code block left open, which would swallow the related section", section: `${FENCE}sh\nvite build`, refused: /code block/ },

  // Refused: frontmatter.
  { testName: "a frontmatter block at its start", section: "---\nname: evil\n---\nreal text", refused: /frontmatter/ },
  { testName: "a properties block further down", section: "text\n\n---\ntags: [owned]\n---\n", refused: /frontmatter/ },
  { testName: "a properties block closed by dots", section: "text\n\n---\nname: x\n...\n", refused: /frontmatter/ },

  // Refused: links out of the vault.
  { testName: "a wikilink climbing out", section: "see [[../../etc/passwd]]", refused: /out of the vault/ },
  { testName: "an embed of an absolute path", section: "![[/etc/passwd]]", refused: /out of the vault/ },
  { testName: "a markdown link to an absolute path", section: "[hosts](/etc/hosts)", refused: /out of the vault/ },
  { testName: "a markdown link climbing above the vault", section: "[x](../../secret.md)", refused: /out of the vault/ },
  { testName: "a climb hidden in percent-encoding", section: "[x](..%2F..%2Fetc%2Fpasswd)", refused: /out of the vault/ },
  { testName: "a climb in angle brackets", section: "[x](<../../etc/passwd>)", refused: /out of the vault/ },
  { testName: "a climb through a folder", section: "[x](reference/../../x.md)", refused: /out of the vault/ },
  { testName: "a file: URL", section: "[x](file:///etc/passwd)", refused: /out of the vault/ },
  { testName: "a file: autolink", section: "<file:///etc/passwd>", refused: /out of the vault/ },
  { testName: "a bare file: URL", section: "open file:///etc/passwd to see", refused: /out of the vault/ },
  { testName: "a Windows drive path", section: "[ini](C:\\Windows\\win.ini)", refused: /out of the vault/ },
  { testName: "a Windows drive path in a wikilink", section: "[[C:/Users/me/notes]]", refused: /out of the vault/ },
  { testName: "a UNC path in an image", section: "![x](\\\\server\\share\\x.png)", refused: /out of the vault/ },
  { testName: "a home path", section: "[key](~/.ssh/id_rsa)", refused: /out of the vault/ },
  { testName: "a reference definition", section: "[hosts][h]\n\n[h]: /etc/hosts", refused: /out of the vault/ },
  { testName: "an HTML link", section: '<a href="file:///etc/passwd">x</a>', refused: /out of the vault/ },
  { testName: "an HTML image", section: "<img src='../../../x.png'>", refused: /out of the vault/ },
];

describe("what an extend answer may add to a card", () => {
  it.each(appendCases)("$testName", ({ section, after, refused, relatedHeading }) => {
    if (refused) {
      expect(() => append(section, relatedHeading)).toThrow(AnswerError);
      expect(() => append(section, relatedHeading)).toThrow(refused);
    } else {
      expect(append(section, relatedHeading)).toBe(after);
    }
  });
});

const create = {
  action: "create",
  folder: "debugging",
  fileName: "x",
  frontmatter: { name: "X", description: "d", type: "debugging", tags: ["t"] },
  related: [],
};

describe("what a create answer's body may hold", () => {
  it.each<[string, string, RegExp | undefined]>([
    ["headings of its own", "# X\n\n## Cause\n\nA short PATH.\n\n## Fix\n\nAn absolute path.", undefined],
    ["a link out of the vault", "See [x](../../../etc/passwd).", /out of the vault/],
    ["an embed of a Windows path", "![[D:\\secrets\\key.png]]", /out of the vault/],
    ["the related heading, where the links back would land", "Text.\n\n## Related\n- [[elsewhere]]", /heading/],
    ["a code block left open", `${FENCE}\nunclosed`, /code block/],
  ])("%s", (_, body, refused) => {
    if (refused) expect(() => validateAnswer({ ...create, body })).toThrow(refused);
    else expect(validateAnswer({ ...create, body })).toMatchObject({ body });
  });

  it("refuses a name that would break out of the card's title line", () => {
    expect(() => validateAnswer({ ...create, body: "b", frontmatter: { ...create.frontmatter, name: "X\n\n## Related\n- [[../../etc/passwd]]" } })).toThrow(
      /several lines/,
    );
    expect(() => validateAnswer({ ...create, body: "b", frontmatter: { ...create.frontmatter, description: "d\nmore" } })).toThrow(/several lines/);
  });
});

describe("a create answer's file name", () => {
  it.each([
    "CON",
    "con",
    "Con.txt",
    "aux.tar.gz",
    "NUL",
    "PRN.md",
    "COM0",
    "com1",
    "COM9",
    "LPT0",
    "lpt9",
    "COM¹",
    "com²",
    "LPT³",
    "CON .txt",
    "x.",
    "x..md",
    "x .md",
    "a\u0007b",
    "a\tb",
    "a\u007fb",
    "a\u0085b",
    "evil\u202etxt.exe",
  ])("refuses %j", (fileName) => {
    expect(() => validateAnswer({ ...create, body: "b", fileName })).toThrow(AnswerError);
    expect(() => validateAnswer({ ...create, body: "b", fileName })).toThrow(/file name/);
  });

  it.each(["console", "com10", "lpt", "auxiliary", "con-notes", "nul1", "排程-路徑", "v1.2 notes"])("accepts %j", (fileName) => {
    expect(validateAnswer({ ...create, body: "b", fileName })).toMatchObject({ fileName });
  });
});

describe("a refused answer in a night", () => {
  it("keeps the conversation queued, with the reason in the report", async () => {
    const vault = vaultWith({ "reference/a.md": "---\nname: A\ndescription: a\ntype: reference\ntags: [t]\n---\nA.\n" });
    const t = join(tempDir(), "t.jsonl");
    const reply = "A reply long enough to count as real work in this conversation.";
    writeFileSync(t, jsonl([line.prompt("first question"), line.reply(reply), line.prompt("second question"), line.reply(reply)]));
    captureSession(vault, { sessionId: "hostile", transcriptPath: t, cwd: "/work/x", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    const answer = { ...create, body: "Read [this](../../../etc/passwd)." };
    const config = defaultConfig();
    config.enrich.perNight = 0;
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; echo '${JSON.stringify(answer)}'`];
    const r = await runDigest({ vault, config });
    expect(r.results).toEqual([]);
    expect(r.failures).toEqual([{ sessionId: "hostile", reason: expect.stringMatching(/out of the vault/) as unknown }]);
    expect(listPending(vault).map((e) => e.sessionId)).toEqual(["hostile"]);
  });
});
