import { describe, expect, it } from "vitest";
import { replaceSection } from "../../../src/core/digest/edit-now";

const card = (example: string[]): string =>
  [
    "---",
    "name: Rail heater",
    "---",
    "# Rail heater",
    "",
    "## Example",
    "",
    ...example,
    "",
    "## Fix",
    "",
    "old fix",
    "",
    "## Related",
    "",
    "- [[other]]",
    "",
  ].join("\n");

describe("replacing one section of a card", () => {
  it("replaces the heading's section and leaves the rest byte for byte", () => {
    const before = card(["an example"]);
    expect(replaceSection(before, "Fix", "new fix")).toBe(before.replace("old fix", "new fix"));
  });

  it("never takes a heading inside code for the section, nor a fence with an info string for its end", () => {
    // Inside the block, "```yaml" is text and "## Fix" is code: the section is the one after it.
    const before = card(["```", "```yaml", "## Fix", "code kept", "```"]);
    expect(replaceSection(before, "Fix", "new fix")).toBe(before.replace("old fix", "new fix"));
  });

  it("finds a heading written with inline code, given as written or as shown", () => {
    const before = "# Dates\n\n## The `date` format\n\nold\n\n## Other\n\nkept\n";
    const after = "# Dates\n\n## The `date` format\n\nnew\n\n## Other\n\nkept\n";
    expect(replaceSection(before, "The `date` format", "new")).toBe(after);
    expect(replaceSection(before, "the date format", "new")).toBe(after);
  });

  it("takes headings that read alike as written, and refuses to guess between them", () => {
    const before = "# Parsing\n\n## Parse <input>\n\nin\n\n## Parse <output>\n\nout\n";
    expect(replaceSection(before, "Parse <output>", "new")).toBe(before.replace("\nout\n", "\nnew\n"));
    // Shown without markup, both read "Parse": which one is meant cannot be told.
    expect(() => replaceSection(before, "Parse", "new")).toThrow(/2 headings of the card read "Parse"/);
  });

  it("keeps a list's tab-indented code block whole inside its section", () => {
    const before = card(["- Install:", "\t```bash", "\t# install deps", "\tnpm ci", "\t```"]);
    expect(replaceSection(before, "Example", "new example")).toBe(before.replace(/## Example\n\n[\s\S]*?\n\n## Fix/, "## Example\n\nnew example\n\n## Fix"));
  });

  it("keeps a card's CRLF line endings", () => {
    const before = card(["an example"]).replace(/\n/g, "\r\n");
    expect(replaceSection(before, "Fix", "new fix")).toBe(before.replace("old fix", "new fix"));
  });

  it("refuses a heading the card does not have", () => {
    expect(() => replaceSection(card(["x"]), "Cause", "y")).toThrow(/no heading "Cause"/);
  });
});
