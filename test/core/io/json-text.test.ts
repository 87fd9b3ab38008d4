import { describe, expect, it } from "vitest";
import { editJsonText, JsonTextError } from "../../../src/core/io/json-text";

type Obj = Record<string, unknown>;

// The same document written four ways; each keeps its one-line array ("keep") through every edit.
const DOCS: Record<string, string> = {
  "two spaces": '{\n  "a": 1,\n  "keep": ["x", "y"],\n  "list": [1, 2, 3],\n  "rows": [\n    {"n": 1},\n    {"n": 2}\n  ],\n  "o": { "p": true }\n}\n',
  tabs: '{\n\t"a": 1,\n\t"keep": ["x", "y"],\n\t"list": [1, 2, 3],\n\t"rows": [\n\t\t{"n": 1},\n\t\t{"n": 2}\n\t],\n\t"o": { "p": true }\n}',
  crlf: '{\r\n    "a": 1,\r\n    "keep": ["x", "y"],\r\n    "list": [1, 2, 3],\r\n    "rows": [\r\n        {"n": 1},\r\n        {"n": 2}\r\n    ],\r\n    "o": { "p": true }\r\n}\r\n',
  "one line": '{"a":1,"keep":["x","y"],"list":[1,2,3],"rows":[{"n":1},{"n":2}],"o":{"p":true}}',
};

// Edits that add to the document: undoing each must give back the bytes.
const ADDS: Record<string, (d: Obj) => Obj> = {
  "a key at the end": (d) => ({ ...d, z: { deep: [1, { e: 'é\n"' }] } }),
  "an item at the end": (d) => ({ ...d, list: [1, 2, 3, 4] }),
  "an item in the middle": (d) => ({ ...d, list: [1, 2, 9, 3] }),
  "an item at the start": (d) => ({ ...d, rows: [{ n: 0 }, { n: 1 }, { n: 2 }] }),
  "a key inside an object in an array": (d) => ({ ...d, rows: [{ n: 1 }, { n: 2, m: [] }] }),
  "a key to a one-line object": (d) => ({ ...d, o: { p: true, q: null } }),
};

// Edits that change or take out: the result is the value asked for, the rest keeps its bytes.
const CHANGES: Record<string, (d: Obj) => Obj> = {
  "a number to a string": (d) => ({ ...d, a: "one" }),
  "a scalar to an object": (d) => ({ ...d, a: { b: [1] } }),
  "the first key out": ({ a: _a, ...d }) => d,
  "the first item out": (d) => ({ ...d, rows: [{ n: 2 }] }),
  "every item out": (d) => ({ ...d, list: [] }),
  "an item changed where it stands": (d) => ({ ...d, rows: [{ n: 1 }, { n: 3 }] }),
};

describe.each(Object.entries(DOCS))("a document written with %s", (_, text) => {
  const doc = JSON.parse(text) as Obj;
  const keep = /"keep":\s*\["x",\s*"y"\]/.exec(text)![0];

  it.each(Object.entries(ADDS))("adding %s, then undoing it, gives back the bytes", (_, edit) => {
    const next = edit(doc);
    const edited = editJsonText(text, next);
    expect(JSON.parse(edited)).toEqual(next);
    expect(edited).toContain(keep);
    expect(edited.includes("\r\n")).toBe(text.includes("\r\n"));
    expect(editJsonText(edited, doc)).toBe(text);
  });

  it.each(Object.entries(CHANGES))("changing %s keeps the rest as written", (_, edit) => {
    const next = edit(doc);
    const edited = editJsonText(text, next);
    expect(JSON.parse(edited)).toEqual(next);
    expect(edited).toContain(keep);
    expect(edited.endsWith("\n")).toBe(text.endsWith("\n"));
  });

  it("leaves the text as it is when the value is the same, whatever the key order", () => {
    const reordered = Object.fromEntries(Object.entries(doc).reverse());
    expect(editJsonText(text, reordered)).toBe(text);
  });
});

describe("editing JSON text", () => {
  it("writes a file with nothing in it anew", () => {
    expect(editJsonText("", { a: 1 })).toBe('{\n  "a": 1\n}\n');
    expect(editJsonText(" \n", { a: 1 })).toBe('{\n  "a": 1\n}\n');
  });

  it("fills an empty object on lines of its own, and empties it back to {}", () => {
    const filled = editJsonText("{}", { a: [1] });
    expect(filled).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(editJsonText(filled, {})).toBe("{}");
  });

  it("edits the last of duplicate keys, the one JSON.parse reads, and removes them all", () => {
    const text = '{"a": 1, "a": 2, "b": 3}';
    expect(editJsonText(text, { a: 5, b: 3 })).toBe('{"a": 1, "a": 5, "b": 3}');
    expect(editJsonText(text, { b: 3 })).toBe('{"b": 3}');
  });

  it("keeps numbers and escapes it does not change exactly as written", () => {
    const text = '{"big": 12345678901234567890, "f": 1.50, "s": "\\u00e9", "x": 1}';
    expect(editJsonText(text, { ...(JSON.parse(text) as Obj), x: 2 })).toBe('{"big": 12345678901234567890, "f": 1.50, "s": "\\u00e9", "x": 2}');
  });

  it("refuses a file nested too deep to edit, with a reason", () => {
    const deep = "[".repeat(1000) + "]".repeat(1000);
    expect(() => editJsonText(deep, [])).toThrow(JsonTextError);
    expect(() => editJsonText(deep, [])).toThrow(/nested more than/);
  });
});
