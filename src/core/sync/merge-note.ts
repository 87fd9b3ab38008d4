/**
 * A note changed on two machines, merged as the person would: the body by git's own three-way
 * merge, the frontmatter key by key, a list (tags, aliases, hints) as the union of what each side
 * added less what either removed, a date changed on both sides as the later. When the two sides
 * changed the same words, or the same value two ways, there is no merge: the caller keeps both
 * versions whole.
 */

import { isDeepStrictEqual } from "node:util";
import { parseCard } from "../card/card";
import { FrontmatterError, setFrontmatter, type FrontmatterValue } from "../card/frontmatter-edit";
import { mergeTexts } from "./git";

// The frontmatter block, any line ending, after an optional byte-order mark.
const BLOCK = /^\uFEFF?---[^\r\n]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;
// Changed on both machines, the later one is the note's: ISO dates order as text.
const DATE_KEYS = new Set(["updated", "date", "modified"]);

type Side = { head: string; body: string; data: Record<string, unknown> } | undefined;

/** `base` is the version both sides started from (undefined when both added the note). */
export function mergeNote(base: string | undefined, ours: string, theirs: string): string | undefined {
  const whole = mergeTexts(base ?? "", ours, theirs);
  if (whole !== undefined) return whole;
  const [b, o, t] = [base ?? "", ours, theirs].map(split);
  if (!o || !t || (base !== undefined && !b)) return undefined;
  const body = mergeTexts(b?.body ?? "", o.body, t.body);
  if (body === undefined) return undefined;
  const values = mergeData(b?.data ?? {}, o.data, t.data);
  if (values === undefined) return undefined;
  try {
    return Object.keys(values).length > 0 ? setFrontmatter(o.head + body, values) : o.head + body;
  } catch (err) {
    if (err instanceof FrontmatterError) return undefined;
    throw err;
  }
}

/** A note's frontmatter block, its body and its parsed frontmatter; undefined when the block cannot be read. */
function split(text: string): Side {
  const m = BLOCK.exec(text);
  if (!m) return { head: "", body: text, data: {} };
  const card = parseCard("note.md", text);
  if (card.frontmatterError) return undefined;
  return { head: m[0], body: text.slice(m[0].length), data: card.frontmatter };
}

/** The keys whose merged value differs from ours, with that value; undefined when a key cannot be merged. */
function mergeData(
  base: Record<string, unknown>,
  ours: Record<string, unknown>,
  theirs: Record<string, unknown>,
): Record<string, FrontmatterValue> | undefined {
  const out: Record<string, FrontmatterValue> = {};
  for (const key of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
    const [b, o, t] = [base[key], ours[key], theirs[key]];
    let merged: unknown;
    if (isDeepStrictEqual(o, t) || isDeepStrictEqual(t, b)) continue;
    else if (isDeepStrictEqual(o, b)) merged = t;
    else if (isList(o) && isList(t) && (b === undefined || isList(b))) merged = mergeLists(b ?? [], o, t);
    else if (DATE_KEYS.has(key) && typeof o === "string" && typeof t === "string") merged = o > t ? o : t;
    else return undefined;
    if (isDeepStrictEqual(merged, o)) continue;
    // Taking a key away is not something the editor does: such a note is kept twice instead.
    if (merged === undefined || !(typeof merged === "string" || isList(merged))) return undefined;
    out[key] = merged;
  }
  return out;
}

function isList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/** What either side added, in ours' order then theirs', less what either side took out of base. */
function mergeLists(base: readonly string[], ours: readonly string[], theirs: readonly string[]): string[] {
  const removed = new Set(base.filter((x) => !ours.includes(x) || !theirs.includes(x)));
  return [...new Set([...ours, ...theirs])].filter((x) => !removed.has(x));
}
