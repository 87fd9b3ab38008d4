import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { cardFrontmatter } from "../../../src/core/card/write-card";

// Values an LLM or a person may hand the digest and the sidebar: each must come back as it went in.
const HOSTILE = [
  "0x1F",
  ".5",
  ".inf",
  ".NaN",
  "2024-02-30",
  "0b101",
  "a]b",
  "foo, bar",
  "[x]",
  "{y}",
  "#tag",
  "key: value",
  '"quoted"',
  "- dash",
  "yes",
  "123",
  "多个，中文",
  "c++",
  "back\\slash",
  "it's",
  "trailing ",
];

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

  it.each([
    ["a\rb", "a b"],
    ["tab\there", "tab here"],
    ["nul\u0000x", "nul x"],
    ["del\u007fx", "del x"],
    ["lone \ud800 surrogate", "lone \ufffd surrogate"],
  ])("writes %j, which YAML cannot hold, as %j", (value, expected) => {
    const text = `${cardFrontmatter({ name: value, description: "d", type: "reference", tags: [value], aliases: [value], sessionId: "s", date: "2026-11-30" })}\nbody\n`;
    const card = parseCard("reference/a.md", text);
    expect(card.frontmatterError).toBe("");
    expect([card.name, card.tags[0], card.aliases[0]]).toEqual([expected, expected, expected]);
  });
});
