import { describe, expect, it } from "vitest";
import { parseSynonyms } from "../../../src/core/index/index-options";

describe("the synonyms note", () => {
  it("reads only groups from the synonyms note: not prose, links, quotes or frontmatter", () => {
    const note = [
      "---",
      "tags: [meta, recall]",
      "---",
      "# Synonyms",
      "One group per line, separated by commas. Vault Memory reads this note when it builds its index.",
      "- 排程, cron, task scheduler",
      "> quoted, not a group",
      "## Related",
      "- [[about-this-vault]], [[card-writing-rules]]",
      "",
    ];
    expect(parseSynonyms(note.join("\n"))).toEqual([["排程", "cron", "task scheduler"]]);
    expect(parseSynonyms(note.join("\r\n"))).toEqual([["排程", "cron", "task scheduler"]]);
    expect(parseSynonyms("\uFEFF" + note.join("\n").replace("---\n#", "--- \n#"))).toEqual([["排程", "cron", "task scheduler"]]);
  });
});
