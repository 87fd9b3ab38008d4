/** Recall hints: the questions a card answers, kept in its frontmatter, and which version of the card they were written for. */

import { fnv1aString } from "../io/hash";
import type { Card } from "./card";

export const DEFAULT_HINTS_PROPERTY = "questions";
/** More than this many, or longer than this, and a hint list is not what enrich writes or recall reads. */
export const MAX_HINTS = 12;
export const MAX_HINT_CHARS = 300;

/** The card's hints under `property`: a YAML list (or one string), trimmed, bounded. */
export function hintsOf(card: Pick<Card, "frontmatter">, property: string): string[] {
  const value = card.frontmatter[property];
  const items = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return items
    .filter((v): v is string => typeof v === "string")
    .map((v) => v.replace(/\s+/g, " ").trim())
    .filter((v) => v !== "" && v.length <= MAX_HINT_CHARS)
    .slice(0, MAX_HINTS);
}

/** The frontmatter key that records what the hints were written for: `questions` → `questions-for`. */
export function hintVersionProperty(property: string): string {
  return `${property}-for`;
}

/**
 * What hints were written for: the card's content (name, description, body) and the hints as
 * written. A changed content means the card is enriched again, unless the person has changed the
 * hints since, in which case they are theirs and left alone.
 */
export interface HintVersion {
  content: string;
  hints: string;
}

export function parseHintVersion(card: Pick<Card, "frontmatter">, property: string): HintVersion | undefined {
  const raw = card.frontmatter[hintVersionProperty(property)];
  const m = typeof raw === "string" ? /^([0-9a-f]{8}) ([0-9a-f]{8})$/.exec(raw.trim()) : null;
  return m ? { content: m[1], hints: m[2] } : undefined;
}

export function formatHintVersion(v: HintVersion): string {
  return `${v.content} ${v.hints}`;
}

const hex8 = (n: number): string => n.toString(16).padStart(8, "0");

/**
 * Which kinds of hint enrich writes: 1, questions only; 2, also the tasks during which the card
 * matters and the error messages, identifiers and paths it is about. Part of what hints are
 * recorded as written for, so that hints of an older kind are written once more (within the
 * nightly budget), unless the person changed them.
 */
export const HINT_KINDS_VERSION = 2;

/** A short hash of what a card says, ignoring whitespace and its frontmatter's other fields; and of the hint kinds. */
export function contentHash(card: Pick<Card, "name" | "description" | "body">, kinds: number = HINT_KINDS_VERSION): string {
  // Kind 1 is what releases before the kinds were recorded hashed: the content alone.
  return hex8(fnv1aString((kinds === 1 ? "" : `hints v${kinds}\n`) + [card.name, card.description, card.body].join("\n").replace(/\s+/g, " ").trim()));
}

/** A short hash of a hint list, to tell whether the person changed it since it was written. */
export function hintsHash(hints: readonly string[]): string {
  return hex8(fnv1aString(hints.map((h) => h.replace(/\s+/g, " ").trim()).join("\n")));
}

export type HintState = "missing" | "current" | "stale" | "person's";

/**
 * Whether enrich should write hints for the card: "missing" (never written), "stale" (written for
 * an older version of the card, and untouched since), "current", or "person's" (hints the person
 * wrote or changed, which are never overwritten, and an empty list they emptied on purpose).
 */
export function hintState(card: Pick<Card, "frontmatter" | "name" | "description" | "body">, property: string): HintState {
  const version = parseHintVersion(card, property);
  const hints = hintsOf(card, property);
  if (!version) return hints.length === 0 && card.frontmatter[property] === undefined ? "missing" : "person's";
  if (hintsHash(hints) !== version.hints) return "person's";
  return version.content === contentHash(card) ? "current" : "stale";
}
