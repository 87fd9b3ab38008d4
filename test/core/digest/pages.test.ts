/** MEMORY.md as the digest writes it: within what Claude Code reads, and never over the person's own text. */

import { describe, expect, it } from "vitest";
import { parseCard, type Card } from "../../../src/core/card/card";
import { INDEX_END, INDEX_START, memoryIndex, overviewPages, updateMemoryIndex } from "../../../src/core/digest/pages";
import { LinkResolver } from "../../../src/core/card/links";

// What Claude Code reads of MEMORY.md, counted as lint's memory-index-too-long counts it.
const MAX_LINES = 200;
const MAX_BYTES = 25_000;
const linesOf = (text: string): number => text.split("\n").length;
const bytesOf = (text: string): number => Buffer.byteLength(text, "utf8");

function expectWithinBounds(text: string): void {
  expect(linesOf(text)).toBeLessThanOrEqual(MAX_LINES);
  expect(bytesOf(text)).toBeLessThanOrEqual(MAX_BYTES);
}

const ascii = (i: number): string =>
  `When the nightly job ${i} cannot find its binary under a scheduler, check PATH, the login shell and the absolute path set.`.padEnd(120, ".").slice(0, 120);
const cjk = (i: number): string =>
  `排程任務第${i}號找不到指令時，先看登入殼層的路徑設定，再看排程器給的環境變數，最後改用絕對路徑；這張卡片記下了每一步驟與原因。`.repeat(3).slice(0, 120);

function cards(n: number, description: (i: number) => string, name: (i: number) => string = (i) => `Card ${i}`): Card[] {
  return Array.from({ length: n }, (_, i) =>
    parseCard(
      `reference/card-${i}.md`,
      `---\nname: ${name(i)}\ndescription: ${description(i)}\ntype: reference\ntags: [t]\nupdated: 2026-01-01\n---\nBody ${i}.\n`,
      0,
    ),
  );
}

// Card 299 recalled most, then 298, …: the list must open with them.
const recalls = (n: number): Map<string, number> => new Map(Array.from({ length: n }, (_, i) => [`reference/card-${i}.md`, i + 1]));

/** The generated section: the lines between the markers. */
function section(text: string): string[] {
  const lines = text.split("\n");
  const start = lines.indexOf(INDEX_START);
  const end = lines.indexOf(INDEX_END);
  expect(start).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  return lines.slice(start + 1, end);
}

describe("MEMORY.md within what Claude Code reads", () => {
  it.each([
    ["300 cards with 120-character descriptions", cards(300, ascii)],
    ["300 cards written in Chinese", cards(300, cjk, (i) => `排程任務找不到指令之${i}`)],
    ["1,000 short cards", cards(1000, (i) => `short ${i}`)],
  ])("stays within 200 lines and 25,000 bytes for %s, the most recalled first", (_, list) => {
    const text = memoryIndex(list, recalls(list.length));
    expectWithinBounds(text);
    const items = section(text).filter((l) => l.startsWith("- ["));
    expect(items[0]).toContain(`(reference/card-${list.length - 1}.md)`);
    expect(items[1]).toContain(`(reference/card-${list.length - 2}.md)`);
    // The last line says how many are left out and where they all are.
    const last =
      section(text)
        .filter((l) => l.trim() !== "")
        .at(-1) ?? "";
    expect(last).toContain(`${list.length - items.length} more cards`);
    expect(last).toMatch(/search_memory/);
    expect(last).toMatch(/moc\/knowledge-overview/);
  });

  it("lists every card, with no line about more, when they all fit", () => {
    const text = memoryIndex(cards(20, ascii), recalls(20));
    expect(section(text).filter((l) => l.startsWith("- ["))).toHaveLength(20);
    expect(text).not.toMatch(/more cards/);
  });

  it("counts the person's own text in the bound, and keeps it as it was", () => {
    const mine = `# My memory\n\n${Array.from({ length: 120 }, (_, i) => `- note ${i}: ${"x".repeat(60)}`).join("\n")}\n`;
    for (const list of [cards(300, ascii), cards(300, cjk)]) {
      const { text } = updateMemoryIndex(mine, list, recalls(300));
      expect(text?.startsWith(mine)).toBe(true);
      expectWithinBounds(text ?? "");
    }
  });

  it("cuts descriptions by characters, never halving one outside the BMP", () => {
    const text = memoryIndex(
      cards(3, () => "𠮷".repeat(130)),
      new Map(),
    );
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(text).toContain(`— ${"𠮷".repeat(120)}\n`);
  });
});

describe("a MEMORY.md the digest did not write", () => {
  const list = cards(3, ascii);
  const autoMemory = "# Memory index\n\n- [Prefers tabs](feedback_tabs.md) — the user's editor settings\n- See also [[launchd]]\n";

  it("keeps the person's text byte for byte and adds the index in a marked section", () => {
    const first = updateMemoryIndex(autoMemory, list, new Map());
    expect(first.outcome).toBe("added");
    expect(first.text?.startsWith(autoMemory)).toBe(true);
    expect(section(first.text ?? "").join("\n")).toMatch(/regenerated every night/i);
    expect(section(first.text ?? "").filter((l) => l.startsWith("- ["))).toHaveLength(3);
  });

  it("on later nights replaces only what is between the markers", () => {
    const first = updateMemoryIndex(autoMemory, list, new Map()).text ?? "";
    // The person edits their part, before and after the section.
    const edited = `Top line of mine\n${first}\nA line of mine after the index.\n`;
    const second = updateMemoryIndex(edited, cards(5, ascii), new Map());
    expect(second.outcome).toBe("updated");
    const text = second.text ?? "";
    const [before, rest] = text.split(`${INDEX_START}\n`);
    const after = rest.slice(rest.indexOf(INDEX_END));
    expect(before).toBe(`Top line of mine\n${autoMemory}\n`);
    expect(after).toBe(`${INDEX_END}\n\nA line of mine after the index.\n`);
    expect(section(text).filter((l) => l.startsWith("- ["))).toHaveLength(5);
  });

  it("keeps a Windows file's line endings, and its text, as they were", () => {
    const crlf = autoMemory.replace(/\n/g, "\r\n");
    const first = updateMemoryIndex(crlf, list, new Map()).text ?? "";
    expect(first.startsWith(crlf)).toBe(true);
    expect(first.replace(/\r\n/g, "")).not.toContain("\n");
    const second = updateMemoryIndex(first, cards(4, ascii), new Map()).text ?? "";
    expect(second.startsWith(crlf)).toBe(true);
    expect(second.replace(/\r\n/g, "")).not.toContain("\n");
  });

  it("writes nothing when its markers cannot be paired, rather than guess what is whose", () => {
    for (const broken of [
      `${autoMemory}${INDEX_START}\nhalf\n`,
      `${autoMemory}${INDEX_END}\n${INDEX_START}\n`,
      `${INDEX_START}\n${INDEX_END}\n${INDEX_START}\n${INDEX_END}\n`,
    ]) {
      const r = updateMemoryIndex(broken, list, new Map());
      expect(r.outcome).toBe("damaged");
      expect(r.text).toBeUndefined();
    }
  });

  it("replaces the whole-file index an earlier release wrote, keeping what the person added below it", () => {
    const legacy =
      "# MEMORY\n\nOne line per card, the most recalled first. Regenerated by the Vault Memory digest.\n\n- [Old](reference/old.md) — gone\n- [Card 0](reference/card-0.md) — x\n";
    const r = updateMemoryIndex(legacy, list, new Map());
    expect(r.outcome).toBe("migrated");
    expect(r.text).not.toContain("reference/old.md");
    expect(r.text).not.toContain("One line per card, the most recalled first. Regenerated by the Vault Memory digest.");
    expect(r.text?.startsWith(`# MEMORY\n\n${INDEX_START}\n`)).toBe(true);
    const added = updateMemoryIndex(`${legacy}\nMy own note.\n`, list, new Map());
    expect(added.outcome).toBe("migrated");
    expect(added.text?.endsWith(`${INDEX_END}\n\nMy own note.\n`)).toBe(true);
  });

  it("makes a new MEMORY.md in the marked form, so the person may write around the index", () => {
    const r = updateMemoryIndex(undefined, list, new Map());
    expect(r.outcome).toBe("created");
    expect(r.text).toBe(memoryIndex(list, new Map()));
    expect(r.text?.startsWith(`# MEMORY\n\n${INDEX_START}\n`)).toBe(true);
    expect(updateMemoryIndex(r.text, list, new Map())).toMatchObject({ outcome: "updated", text: r.text });
  });
});

describe("overview pages", () => {
  it("link the card-writing rules, so the note the digest makes is no orphan", () => {
    expect(overviewPages(cards(2, ascii), "2026-11-30")["moc/knowledge-overview.md"]).toContain("[[card-writing-rules]]");
  });
});

describe("overview pages' links", () => {
  it("link a project's decision log only when the log is written, and every link they hold resolves", () => {
    const card = (path: string, project: string, type: string, body: string) =>
      parseCard(path, `---\nname: ${path}\ndescription: d\ntype: ${type}\nproject: ${project}\ntags: [t]\nupdated: 2026-01-01\n---\n${body}\n`, 0);
    const all = [
      card("reference/a.md", "alpha", "reference", "We decided to use Postgres."),
      card("reference/b.md", "beta", "reference", "A fact, nothing chosen."),
    ];
    const pages = overviewPages(all, "2026-11-30");
    expect(Object.keys(pages)).toContain("moc/decision-log-alpha.md");
    expect(Object.keys(pages)).not.toContain("moc/decision-log-beta.md");
    const overview = pages["moc/projects-overview.md"];
    expect(overview).toContain("[[decision-log-alpha]]");
    expect(overview).not.toContain("decision-log-beta");
    const resolver = new LinkResolver([...all.map((c) => c.path), ...Object.keys(pages), "meta/card-writing-rules.md"]);
    for (const [path, text] of Object.entries(pages))
      for (const link of parseCard(path, text, 0).links) expect(resolver.resolve(link.target, path), `${path} → ${link.target}`).toBeDefined();
  });
});
