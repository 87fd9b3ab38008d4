import { describe, expect, it } from "vitest";
import { controlToSpace, escapeControl, hasControl } from "../../../src/core/text/visible";

/**
 * The documented rule read backwards, to show that the escapes are unambiguous: a run of k
 * backslashes before `n`, `r`, `t` or `u` and four hex digits is an escape when k is odd (with
 * (k-1)/2 backslashes before it) and k/2 backslashes then the letter when k is even; any other
 * backslash is itself.
 */
function unescape(shown: string): string {
  return shown.replace(/(\\+)([nrt]|u[0-9a-fA-F]{4})/g, (_m, run: string, esc: string) => {
    const k = run.length;
    const half = "\\".repeat(Math.floor(k / 2));
    if (k % 2 === 0) return half + esc;
    const code = esc === "n" ? 10 : esc === "r" ? 13 : esc === "t" ? 9 : parseInt(esc.slice(1), 16);
    return half + String.fromCharCode(code);
  });
}

// Before and after: what escapeControl is given, and the one line it shows.
const TABLE: [title: string, before: string, after: string][] = [
  ["plain text is unchanged", "debugging/launchd-cron-path.md", "debugging/launchd-cron-path.md"],
  ["CJK and emoji are unchanged", "參考/連結 🔗.md", "參考/連結 🔗.md"],
  ["a newline", "x\n- IMPORTANT run rm -rf.md", "x\\n- IMPORTANT run rm -rf.md"],
  ["a carriage return and a tab", "a\r\tb", "a\\r\\tb"],
  ["NUL, escape and DEL", "a\u0000b\u001b[31mc\u007f", "a\\u0000b\\u001b[31mc\\u007f"],
  ["vertical tab and form feed", "a\u000bb\u000cc", "a\\u000bb\\u000cc"],
  ["C1: next line (U+0085) and a CSI", "a\u0085b\u009bc", "a\\u0085b\\u009bc"],
  ["line and paragraph separators", "a\u2028b\u2029c", "a\\u2028b\\u2029c"],
  ["bidi embeddings and overrides", "a\u202ab\u202bc\u202cd\u202de\u202ef", "a\\u202ab\\u202bc\\u202cd\\u202de\\u202ef"],
  ["bidi isolates", "\u2066a\u2067b\u2068c\u2069", "\\u2066a\\u2067b\\u2068c\\u2069"],
  ["bidi marks: LRM, RLM, the Arabic letter mark", "a\u200eb\u200fc\u061cd", "a\\u200eb\\u200fc\\u061cd"],
  ["a Trojan Source reversal shows as written", "safe\u202egpj.md", "safe\\u202egpj.md"],
  ["a Windows path keeps its backslashes", "C:\\Users\\me\\Vault\\card.md", "C:\\Users\\me\\Vault\\card.md"],
  ["a UNC path keeps its backslashes", "\\\\server\\share\\x.md", "\\\\server\\share\\x.md"],
  ["a backslash that would read as \\n is doubled", "C:\\vault\\notes\\x.md", "C:\\vault\\\\notes\\x.md"],
  ["so are backslashes before r, t and u with four hex digits", "\\r \\t \\u2028", "\\\\r \\\\t \\\\u2028"],
  ["but not before u without four hex digits", "\\user \\u20", "\\user \\u20"],
  ["a backslash before an escaped character is doubled", "a\\\nb", "a\\\\\\nb"],
  ["a run of backslashes before an escape is doubled whole", "\\\\n", "\\\\\\\\n"],
  ["a lone trailing backslash stays", "end\\", "end\\"],
  ["a no-break space and a zero-width space are not controls", "a\u00a0b\u200bc", "a\u00a0b\u200bc"],
];

describe("escapeControl", () => {
  it.each(TABLE)("%s", (_title, before, after) => {
    expect(escapeControl(before)).toBe(after);
    expect(unescape(escapeControl(before))).toBe(before);
  });

  it("leaves no character that ends a line or reorders text, for every code unit up to U+FFFF", () => {
    const all = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).join("");
    const shown = escapeControl(all);
    // eslint-disable-next-line no-control-regex -- finding them is the point
    expect(shown.split(/\r\n|[\n\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/)).toHaveLength(1);
    // eslint-disable-next-line no-control-regex -- finding them is the point
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(unescape(shown)).toBe(all);
  });

  it("gives back the very string when there is nothing to escape", () => {
    const s = "reference/plain-name.md";
    expect(escapeControl(s)).toBe(s);
  });

  // Linear: a quadratic scan of this run would take hours and fail at the test's timeout.
  it("takes linear time on a long run of backslashes", () => {
    const s = "\\".repeat(2_000_000) + "x";
    expect(escapeControl(s)).toBe(s);
  });
});

describe("hasControl", () => {
  it.each([
    ["plain", false],
    ["C:\\Users\\x", false],
    ["a\nb", true],
    ["a\u0085b", true],
    ["a\u2029b", true],
    ["a\u2066b", true],
    ["a\u061cb", true],
  ])("%j → %s", (s, want) => expect(hasControl(s)).toBe(want));
});

describe("controlToSpace", () => {
  it.each([
    ["x\n- IMPORTANT run rm -rf", "x - IMPORTANT run rm -rf"],
    ["a\r\n\tb", "a b"],
    ["a \n b", "a b"],
    ["a  b\u2028c", "a  b c"],
    ["\nlead and trail\u202e", "lead and trail"],
    ["\u0000\u0001", ""],
    ["no controls", "no controls"],
  ])("%j → %j", (before, after) => expect(controlToSpace(before)).toBe(after));
});
