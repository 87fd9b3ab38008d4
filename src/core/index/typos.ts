/**
 * Typos: a prompt word found nowhere in the vault ("recieve", "dependancy") may stand for a
 * vocabulary word one edit away. The vocabulary is bucketed by first letter and length when the
 * index is written (a typo rarely hits the first letter), so a recall reads at most three
 * buckets per word and compares against a bounded list, whatever the vault's size.
 */

import { nearKey, type PostingSource } from "./postings";

/** Words shorter than this have too many neighbours one edit away to guess which was meant. */
export const MIN_TYPO_LENGTH = 5;
/** A bucket keeps at most this many words, the commonest: typos are mostly of common words. */
export const MAX_BUCKET_WORDS = 2000;
/** A word must be in this many cards to be a correction: one-off words are often typos themselves. */
export const MIN_TYPO_DF = 2;
/** At most this many of a prompt's words are looked up, each giving at most this many corrections. */
export const MAX_TYPO_WORDS = 3;
export const MAX_CORRECTIONS = 2;

/** Whether `term` can be corrected, or be a correction: Latin letters only (never CJK, digits or code). */
export function typoEligible(term: string): boolean {
  if (term.length < MIN_TYPO_LENGTH) return false;
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}

/** The buckets a word of `term`'s first letter could be in one edit away: lengths one less, same, one more. */
export function bucketsFor(term: string): string[] {
  return [term.length - 1, term.length, term.length + 1].filter((n) => n >= MIN_TYPO_LENGTH).map((n) => nearKey(term[0], n));
}

/**
 * Whether `a` and `b` are at most one edit apart: one letter inserted, deleted, changed, or two
 * neighbours swapped (Damerau). Linear, without the full distance matrix.
 */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The vocabulary words one edit from `term`, commonest first, at most MAX_CORRECTIONS. */
export function correctionsOf(term: string, source: Pick<PostingSource, "nearWords">): string[] {
  if (!source.nearWords || !typoEligible(term)) return [];
  const found: string[] = [];
  for (const key of bucketsFor(term)) {
    for (const word of source.nearWords(key) ?? []) {
      if (typeof word === "string" && oneEditApart(term, word)) found.push(word);
      if (found.length >= MAX_CORRECTIONS) return found;
    }
  }
  return found;
}

/**
 * The typo table of a vocabulary: bucket key → words, commonest first (ties by the word, so the
 * same vault writes the same table). `terms` yields each word with the number of cards holding it.
 */
export function buildTypoTable(terms: Iterable<readonly [string, number]>): Map<string, string[]> {
  const buckets = new Map<string, [string, number][]>();
  for (const [term, df] of terms) {
    if (df < MIN_TYPO_DF || !typoEligible(term)) continue;
    const key = nearKey(term[0], term.length);
    let list = buckets.get(key);
    if (!list) buckets.set(key, (list = []));
    list.push([term, df]);
  }
  const out = new Map<string, string[]>();
  for (const [key, list] of [...buckets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    list.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out.set(
      key,
      list.slice(0, MAX_BUCKET_WORDS).map(([t]) => t),
    );
  }
  return out;
}
