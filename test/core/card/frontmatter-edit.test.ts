import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { FrontmatterError, setFrontmatter } from "../../../src/core/card/frontmatter-edit";

const Q = { questions: ["how do I back up?", "yes", "a: b # c"], "questions-for": "0a1b2c3d 4e5f6a7b" };
const WRITTEN = 'questions:\n  - how do I back up?\n  - "yes"\n  - "a: b # c"\nquestions-for: 0a1b2c3d 4e5f6a7b\n';

describe("the frontmatter editor", () => {
  it("adds keys at the end of an existing block and leaves every other byte alone", () => {
    const before = "---\nname: X\ntags: [a, b]   # mine\n---\n# X\n\nBody.\n";
    expect(setFrontmatter(before, Q)).toBe(`---\nname: X\ntags: [a, b]   # mine\n${WRITTEN}---\n# X\n\nBody.\n`);
  });

  it("replaces an existing block list, its items at column 0 or indented, where it stands", () => {
    const before = "---\nname: X\nquestions:\n- old one\n  - odd indent\n\nquestions-for: 00000000 00000000\nafter: 1\n---\nBody\n";
    // The blank line the person left before the next key stays.
    expect(setFrontmatter(before, Q)).toBe(`---\nname: X\n${WRITTEN.replace("questions-for", "\nquestions-for")}after: 1\n---\nBody\n`);
    const indented = "---\nquestions:\n  - a\n  - b\n\ntype: x\n---\nBody\n";
    expect(setFrontmatter(indented, { questions: ["c"] })).toBe("---\nquestions:\n  - c\n\ntype: x\n---\nBody\n");
  });

  it("replaces an existing flow list and a quoted key", () => {
    expect(setFrontmatter('---\n"questions": [a, b]\nname: X\n---\nB\n', { questions: ["c"] })).toBe("---\nquestions:\n  - c\nname: X\n---\nB\n");
  });

  it("keeps Windows line endings and a byte-order mark", () => {
    const before = "\uFEFF---\r\nname: X\r\n---\r\nBody\r\nmore\r\n";
    const after = setFrontmatter(before, { questions: ["q"] });
    expect(after).toBe("\uFEFF---\r\nname: X\r\nquestions:\r\n  - q\r\n---\r\nBody\r\nmore\r\n");
  });

  it("creates a block in a note without frontmatter, in the note's line endings", () => {
    expect(setFrontmatter("# Title\n\nBody\n", { questions: ["q"] })).toBe("---\nquestions:\n  - q\n---\n# Title\n\nBody\n");
    expect(setFrontmatter("Body\r\n", { questions: [] })).toBe("---\r\nquestions: []\r\n---\r\nBody\r\n");
    expect(setFrontmatter("", { questions: ["q"] })).toBe("---\nquestions:\n  - q\n---\n");
    // An opening rule that never closes is a horizontal rule, not frontmatter: the block goes before it.
    expect(setFrontmatter("---\nnot closed\n", { a: "b" })).toBe("---\na: b\n---\n---\nnot closed\n");
  });

  it("writes YAML breakers as plain data that reads back as written", () => {
    const hostile = [
      '"]',
      "--- x: y",
      "- item",
      "#not a comment",
      "key: value",
      "[a, b]",
      "null",
      "2026-01-01",
      'it\'s \\ "fine"',
      "{a: 1}",
      "|",
      "&anchor *ref",
    ];
    const after = setFrontmatter("---\nname: X\n---\nBody\n", { questions: hostile });
    expect(parseCard("x.md", after).frontmatter.questions).toEqual(hostile);
    expect(parseCard("x.md", after).frontmatter.name).toBe("X");
    expect(after.endsWith("---\nBody\n")).toBe(true);
  });

  it("refuses frontmatter it cannot read, and a value that would not read back, changing nothing", () => {
    expect(() => setFrontmatter("---\nname: [unclosed\n---\nBody\n", { questions: ["q"] })).toThrow(FrontmatterError);
    expect(() => setFrontmatter("---\nname: X\nname: Y\n---\nBody\n", { questions: ["q"] })).toThrow(/cannot be read/);
    expect(() => setFrontmatter("---\n- a list\n- not a map\n---\nBody\n", { questions: ["q"] })).toThrow(FrontmatterError);
    expect(() => setFrontmatter("---js\n{}\n---\nBody\n", { questions: ["q"] })).toThrow(FrontmatterError);
    expect(() => setFrontmatter("---\nname: X\n---\nB\n", { questions: ["two\nlines"] })).toThrow(/would read back differently/);
    expect(() => setFrontmatter("---\nname: X\n---\nB\n", { "bad key": "x" })).toThrow(/not a property name/);
  });
});
