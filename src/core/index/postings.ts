/** The contract between the scorer and whatever holds postings: the live index or a snapshot on disk. */

import type { IndexOptions } from "./index-options";

/**
 * Postings of one term as a flat list of pairs: doc id, then a value holding the term's impact
 * on that doc's score (see impactOf) in thousandths, and whether the card is about the term (see
 * postingValue). Flat integers because a snapshot hands them over with one JSON.parse, and a cold
 * hook process adds them up fastest that way.
 */
export type FlatPostings = readonly number[];
export const POSTING_WIDTH = 2;
export const IMPACT_SCALE = 1000;

/**
 * A posting's value: the impact times two, plus one when the term is in the card's title field
 * (name, description, tags, aliases, file name, first heading), the words a card says it is
 * about. Recall's confidence gate weighs those apart from words the body merely mentions, and
 * the impact alone cannot tell them: a long body can outscore a title.
 */
export function postingValue(impact: number, about: boolean): number {
  return impact * 2 + (about ? 1 : 0);
}

/** The impact part of a posting value. */
export function impactPart(value: number): number {
  return value >>> 1;
}

/** Whether a posting value marks a term the card is about. */
export function isAbout(value: number): boolean {
  return (value & 1) === 1;
}
/**
 * Hint postings live beside the others under this mark plus the term: pairs of doc id and a
 * bitmask of which of the doc's hints hold the term. No impact is stored, since what a hint is
 * worth depends on how much of it the prompt covers, which only the prompt can say.
 */
export const HINT_MARK = "?";

/**
 * The typo table lives beside the postings under this mark plus a bucket (see nearKey): the
 * vocabulary's words of one first letter and one length, commonest first, for a prompt word found
 * nowhere in the vault to be matched one edit away without reading the vocabulary.
 */
export const NEAR_MARK = "~";

/** The bucket of words that start with `first` and are `length` characters long. */
export function nearKey(first: string, length: number): string {
  return `${NEAR_MARK}${first}${length}`;
}

/** What recall needs to know about a card beyond its postings: what it prints and how it reranks. */
export interface DocInfo {
  /** Vault-relative path. */
  path: string;
  description: string;
  type: string;
  /** Epoch ms of the card's `updated` date or mtime; 0 if unknown. */
  updated: number;
  project: string;
  /** Ids of the cards this card links to, as the same source numbers them. */
  links: readonly number[];
  /** The card's recall hints, where the source keeps their text (the live index; a snapshot does not). */
  hints?: readonly string[];
  /** How many distinct terms each hint has, for how much of it a prompt covers. */
  hintSizes?: readonly number[];
  /** For a sync conflict copy, the id of the note it belongs with (see vault/conflicts.ts): recall shows a family once. */
  copyOf?: number;
}

export interface PostingSource {
  /** How the source's terms were made; queries must be made the same way. */
  readonly indexOptions: IndexOptions;
  readonly docCount: number;
  /** One more than the largest doc id, so scorers can size flat arrays. */
  readonly idLimit: number;
  postings(term: string): FlatPostings | undefined;
  /** Which of each doc's hints hold `term`: pairs of doc id and hint bitmask (see HINT_MARK). */
  hintPostings?(term: string): FlatPostings | undefined;
  /** The typo table's bucket under `key` (see nearKey), commonest word first. */
  nearWords?(key: string): readonly string[] | undefined;
  doc(id: number): DocInfo | undefined;
}
