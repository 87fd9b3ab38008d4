import { describe, expect, it } from "vitest";
import { REGIONAL_PHRASES, T2S_PAIRS } from "../../../src/core/text/t2s-table";
import { StringTable } from "../../../src/core/text/tokenizer";

// The tables are searched as strings for a prompt's few lookups and read into a Map past that:
// both ways must give the same answer for every entry and for what is not in the table.
function entries(text: string, sep: string): [string, string][] {
  return text
    .split("|")
    .filter((e) => e !== "")
    .map((e) => {
      const at = sep ? e.indexOf(sep) : String.fromCodePoint(e.codePointAt(0)!).length;
      return [e.slice(0, at), e.slice(at + sep.length)];
    });
}

describe("StringTable", () => {
  for (const [name, text, sep] of [
    ["traditional → simplified characters", T2S_PAIRS, ""],
    ["regional words", REGIONAL_PHRASES, " "],
  ] as const) {
    it(`finds every entry of the ${name} by search and by Map alike`, () => {
      const all = entries(text, sep);
      expect(all.length).toBeGreaterThan(500);
      for (const [key, value] of all) {
        // A new table each time: its first lookup searches the string.
        expect(new StringTable(text, sep).get(key), key).toBe(value);
      }
      const mapped = new StringTable(text, sep);
      for (let i = 0; i <= StringTable.MAP_AFTER; i++) mapped.get("x");
      for (const [key, value] of all) expect(mapped.get(key), key).toBe(value);
    });
  }

  it("finds nothing for a key only inside an entry, a separator or a simplified form", () => {
    const table = new StringTable("|乾干|髮发|乙太网 以太网", " ");
    const chars = new StringTable("|乾干|髮发|𠵾㗲", "");
    expect(chars.get("乾")).toBe("干");
    expect(chars.get("干")).toBeUndefined();
    expect(chars.get("|")).toBeUndefined();
    expect(chars.get("𠵾")).toBe("㗲");
    expect(table.get("太网")).toBeUndefined();
    expect(table.get("乙太网")).toBe("以太网");
  });
});
