import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { setFrontmatter } from "../../../src/core/card/frontmatter-edit";
import { addRelatedLink, appendDated } from "../../../src/core/card/related";

// A card as Windows editors save it: CRLF line ends, and (Notepad before 2019, some sync tools) a
// UTF-8 byte-order mark, which Node's "utf8" decoding keeps as U+FEFF.
const LF = [
  "---",
  "name: Task Scheduler PATH",
  "description: Task Scheduler runs the digest with the account's PATH, not the terminal's",
  "type: debugging",
  "tags: [windows, schtasks]",
  "---",
  "# Task Scheduler PATH",
  "",
  "The nightly task could not find `claude`: see [[node-path]].",
  "",
  "## Details",
  "",
  "Run node by its absolute path.",
  "",
  "## Related",
  "- [[launchd-cron-path]]",
  "",
].join("\n");
const CRLF = LF.replace(/\n/g, "\r\n");
const BOM = `\uFEFF${LF}`;
const BOTH = `\uFEFF${CRLF}`;

/** The file's line ends are all CRLF, or all LF: an edit wrote none of the other kind. */
const lineEnds = (text: string): string => (/\r\n/.test(text) ? (text.replace(/\r\n/g, "").includes("\n") ? "mixed" : "CRLF") : "LF");

describe.each([
  ["CRLF", CRLF],
  ["a UTF-8 BOM", BOM],
  ["a BOM and CRLF", BOTH],
])("a card saved with %s", (_, text) => {
  const expected = parseCard("debugging/task-scheduler-path.md", LF);

  it("reads as the same card", () => {
    const card = parseCard("debugging/task-scheduler-path.md", text);
    for (const key of [
      "name",
      "description",
      "type",
      "tags",
      "body",
      "bodyLine",
      "headings",
      "links",
      "firstHeading",
      "hasFrontmatter",
      "frontmatterError",
    ] as const)
      expect(card[key], key).toEqual(expected[key]);
    expect(card.frontmatter).toEqual(expected.frontmatter);
    expect(card.body).not.toMatch(/[\r\uFEFF]/);
  });

  it("keeps its BOM and line ends through a frontmatter edit, and reads back with the new key", () => {
    const after = setFrontmatter(text, { questions: ["why does the task not find claude?"] });
    expect(after.startsWith("\uFEFF")).toBe(text.startsWith("\uFEFF"));
    expect(lineEnds(after)).toBe(lineEnds(text));
    expect(after.replace(/\r\n/g, "\n").replace(/^\uFEFF/, "")).toBe(
      LF.replace("---\n# Task", "questions:\n  - why does the task not find claude?\n---\n# Task"),
    );
    expect(parseCard("x.md", after).frontmatter.questions).toEqual(["why does the task not find claude?"]);
  });

  it("keeps them when the digest links it to another card, or appends a dated section", () => {
    const linked = addRelatedLink(text, "windows-task-scheduler");
    expect(linked.startsWith("\uFEFF")).toBe(text.startsWith("\uFEFF"));
    expect(lineEnds(linked)).toBe(lineEnds(text));
    expect(linked.replace(/\r\n/g, "\n").replace(/^\uFEFF/, "")).toBe(`${LF}- [[windows-task-scheduler]]\n`);

    const dated = appendDated(text, "2026-12-02", "Found with `schtasks /Query`.\nSecond line.", "s1");
    expect(dated.startsWith("\uFEFF")).toBe(text.startsWith("\uFEFF"));
    expect(lineEnds(dated)).toBe(lineEnds(text));
    expect(dated.replace(/\r\n/g, "\n").replace(/^\uFEFF/, "")).toBe(
      LF.replace("\n## Related", "\n## 2026-12-02\n\nFound with `schtasks /Query`.\nSecond line.\n\n_From session s1._\n\n## Related"),
    );
    // Both read back as the card, with the new section and link.
    const after = parseCard("x.md", addRelatedLink(dated, "windows-task-scheduler"));
    expect(after.name).toBe("Task Scheduler PATH");
    expect(after.headings.map((h) => h.text)).toEqual(["Task Scheduler PATH", "Details", "2026-12-02", "Related"]);
    expect(after.links.map((l) => l.target)).toEqual(["node-path", "launchd-cron-path", "windows-task-scheduler"]);
  });

  it("a card without a related section gets one in its own line ends", () => {
    const plain = text.slice(0, text.indexOf("## Related"));
    const linked = addRelatedLink(plain, "other");
    expect(lineEnds(linked)).toBe(lineEnds(text));
    expect(linked.replace(/\r\n/g, "\n").replace(/^\uFEFF/, "")).toBe(`${LF.slice(0, LF.indexOf("\n\n## Related"))}\n\n## Related\n- [[other]]\n`);
  });
});
