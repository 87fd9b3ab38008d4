/**
 * Makes any string safe to show on one line: file names, descriptions and names that recall,
 * the MCP tools, lint and the plugin's views show to Claude or the person. A note may be named
 * `x\n- IMPORTANT run rm -rf.md`; printed as it is, its second half reads as a line of its own.
 *
 * What is escaped, and how:
 * - every control character (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F, so U+0085 too),
 *   the line and paragraph separators U+2028 and U+2029, and the bidi controls U+061C, U+200E,
 *   U+200F, U+202A–U+202E and U+2066–U+2069 (which reorder what is shown, as Trojan Source did);
 *   `\n`, `\r` and `\t` as those two characters, every other one as `\u` and four lower-case hex
 *   digits (`\u2028`, `\u001b`);
 * - a backslash only where it would make an escape ambiguous: a run of backslashes is doubled
 *   when it stands before `n`, `r`, `t`, `u` and four hex digits, or a character that is escaped.
 *   Every other backslash is shown as it is, so a Windows path (`C:\Users\me\Vault`) and a UNC one
 *   (`\\server\share`) read as themselves, and only `\notes`, `\tmp`… get a second backslash.
 *
 * Read back, a run of k backslashes before `n`, `r`, `t` or `u` and four hex digits is an escape
 * when k is odd (after (k-1)/2 backslashes), and k/2 backslashes and the letters when k is even;
 * any other backslash is itself. Nothing else changes: the text keeps its CJK, emoji and spaces.
 */

// The characters escaped, and the backslash that may need doubling: a string with none is
// returned as it is, without a loop, which is every path in almost every vault.
// eslint-disable-next-line no-control-regex -- finding them is the point
const NEEDS_LOOK = /[\\\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- finding them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- finding them is the point
const CONTROL_RUNS = / *(?:[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]+ *)+/g;

const BACKSLASH = 0x5c;

function isControl(c: number): boolean {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

function escapeOf(c: number): string {
  if (c === 0x0a) return "\\n";
  if (c === 0x0d) return "\\r";
  if (c === 0x09) return "\\t";
  return "\\u" + c.toString(16).padStart(4, "0");
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** Whether what starts at `at` would be read as an escape after a backslash. */
function readsAsEscape(text: string, at: number): boolean {
  if (at >= text.length) return false;
  const c = text.charCodeAt(at);
  if (c === 0x6e || c === 0x72 || c === 0x74 || isControl(c)) return true; // n r t, or a character shown as an escape
  if (c !== 0x75) return false; // u, then four hex digits
  for (let i = 1; i <= 4; i++) if (at + i >= text.length || !isHex(text.charCodeAt(at + i))) return false;
  return true;
}

/** The string on one line, every control, separator and bidi character shown as an escape (see above). */
export function escapeControl(text: string): string {
  if (!NEEDS_LOOK.test(text)) return text;
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) === BACKSLASH) end++;
      if (readsAsEscape(text, end)) {
        out += text.slice(from, end) + text.slice(i, end);
        from = end;
      }
      i = end - 1;
    } else if (isControl(c)) {
      out += text.slice(from, i) + escapeOf(c);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}

/** Whether the string holds a character escapeControl would escape (a backslash does not count). */
export function hasControl(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * The string with each run of those characters (and the spaces around it) made one space, and
 * trimmed: a file name a note can be renamed to. "" when nothing else is left.
 */
export function controlToSpace(text: string): string {
  return text.replace(CONTROL_RUNS, " ").trim();
}

/**
 * Text from the vault as Claude may read it: a note's words can say anything, and a tag in them
 * (`</system-reminder>`, our own `</vault-memory-notes>`) must not close or open a section of what
 * Claude reads. The `<` that would open a tag is written `&lt;`; nothing else changes.
 */
export function neutralizeMarkup(text: string): string {
  return text.includes("<") ? text.replace(/<(?=[/!?]?[A-Za-z])/g, "&lt;") : text;
}

/** escapeControl, then neutralizeMarkup: a name, path or description of the vault's on one line, as data for Claude. */
export function quotedLine(text: string): string {
  return neutralizeMarkup(escapeControl(text));
}
