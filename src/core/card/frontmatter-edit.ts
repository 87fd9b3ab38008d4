/** Sets a few frontmatter keys of a note's text and leaves every other byte of the file as it was. */

import { isDeepStrictEqual } from "node:util";
import { stringify } from "./yaml";
import { parseCard } from "./card";

export class FrontmatterError extends Error {}

export type FrontmatterValue = string | readonly string[];
/** A value to set, or null to take the key out. */
export type FrontmatterChange = FrontmatterValue | null;

// The raw block, any line ending: a rewrite must keep the file's own.
const BLOCK_RE = /^---([^\r\n]*)(\r?\n)([\s\S]*?\r?\n)?---[ \t]*(\r?\n|$)/;
const KEY_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * `text` with each key of `values` set: an existing key's value is replaced where it stands
 * (block-list and indented continuation lines included), a new key goes at the end of the block,
 * and a note without frontmatter gets a block. Throws, changing nothing, when the frontmatter
 * cannot be read, since an edit would then guess at what the person wrote.
 */
export function setFrontmatter(text: string, values: Readonly<Record<string, FrontmatterChange>>): string {
  for (const key of Object.keys(values)) if (!KEY_NAME.test(key)) throw new FrontmatterError(`"${key}" is not a property name this editor writes`);
  const before = parseCard("note.md", text);
  if (before.frontmatterError) throw new FrontmatterError(`the frontmatter cannot be read (${before.frontmatterError}); fix it first`);
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const rest = text.slice(bom.length);
  const m = BLOCK_RE.exec(rest);
  let next: string;
  if (!m) {
    const eol = /\r\n/.test(rest) ? "\r\n" : "\n";
    next = `${bom}---${eol}${Object.entries(values)
      .flatMap(([k, v]) => (v === null ? [] : render(k, v)))
      .join(eol)}${eol}---${eol}${rest}`;
  } else {
    if (m[1].trim() !== "") throw new FrontmatterError(`frontmatter in "${m[1].trim()}" is not YAML`);
    const eol = m[2];
    const lines = (m[3] ?? "").split(/\r?\n/);
    lines.pop(); // the empty piece after the block's last line ending
    for (const [key, value] of Object.entries(values)) replaceKey(lines, key, value === null ? [] : render(key, value), value !== null);
    const block = `---${m[1]}${eol}${lines.map((l) => l + eol).join("")}---${m[4] || eol}`;
    next = bom + block + rest.slice(m[0].length);
  }
  verify(before, next, values);
  return next;
}

/** Block style, as Obsidian's properties view writes lists, each item quoted only when it must be. */
function render(key: string, value: FrontmatterValue): string[] {
  if (typeof value === "string") return [`${key}: ${stringify(value)}`];
  if (value.length === 0) return [`${key}: []`];
  return [`${key}:`, ...value.map((v) => `  - ${stringify(v)}`)];
}

function replaceKey(lines: string[], key: string, rendered: string[], add = true): void {
  const start = lines.findIndex((l) => keyOf(l) === key);
  if (start < 0) {
    if (add) lines.push(...rendered);
    return;
  }
  let end = start + 1;
  // Its value goes on while lines are indented or are items of a block list at column 0; blank
  // lines belong to it only when more of it follows, so the spacing before the next key stays.
  for (let i = start + 1; i < lines.length; i++) {
    if (isContinuation(lines[i])) end = i + 1;
    else if (lines[i].trim() !== "") break;
  }
  lines.splice(start, end - start, ...rendered);
}

function keyOf(line: string): string | undefined {
  const m = /^(?:"([^"\\]*)"|'([^']*)'|([^\s#'"\-?:,[\]{}][^:]*?))[ \t]*:(?:[ \t]|$)/.exec(line);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

const isContinuation = (line: string): boolean => /^[ \t]/.test(line) || /^-(?:[ \t]|$)/.test(line);

/** The edit must read back as exactly what was meant, with every other property and the body unchanged. */
function verify(before: ReturnType<typeof parseCard>, text: string, values: Readonly<Record<string, FrontmatterChange>>): void {
  const after = parseCard("note.md", text);
  const fail = (why: string): never => {
    throw new FrontmatterError(`the frontmatter could not be edited safely (${why}); nothing was written`);
  };
  if (after.frontmatterError) fail(after.frontmatterError);
  if (after.body !== before.body) fail("the body would change");
  const keys = new Set([...Object.keys(before.frontmatter), ...Object.keys(after.frontmatter)]);
  for (const k of keys) {
    const expected = Object.hasOwn(values, k) ? (values[k] ?? undefined) : before.frontmatter[k];
    if (!isDeepStrictEqual(after.frontmatter[k], expected)) fail(`${k} would read back differently`);
  }
}
