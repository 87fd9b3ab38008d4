import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { cardFrontmatter } from "../../../src/core/card/write-card";

// Values an LLM or a person may hand the digest and the sidebar: each must come back as it went in.
const HOSTILE = ["a]b", "foo, bar", "[x]", "{y}", "#tag", "key: value", '"quoted"', "- dash", "yes", "123", "多个，中文", "c++", "back\\slash", "it's", "trailing "];

describe("cardFrontmatter", () => {
  it.each(HOSTILE)("writes %j so that it reads back the same, as a name, a tag and an alias", (value) => {
    const text = `${cardFrontmatter({ name: value, description: `about ${value}`, type: "reference", tags: [value, "x"], aliases: [value], sessionId: "s", date: "2026-11-30" })}\nbody\n`;
    const card = parseCard("reference/a.md", text);
    expect(card.frontmatterError).toBe("");
    expect(card.name).toBe(value.trim());
    // Obsidian reads a tag without its leading #.
    expect(card.tags).toEqual([value.trim().replace(/^#/, ""), "x"]);
    expect(card.aliases).toEqual([value.trim()]);
    expect(card.type).toBe("reference");
  });
});
