/** The contract between the scorer and whatever holds postings: the live index or a snapshot on disk. */

import type { IndexOptions } from "./index-options";

/**
 * Postings of one term as a flat list of pairs: doc id, then the term's impact on that doc's
 * score (see impactOf) in thousandths. Flat integers because a snapshot hands them over with
 * one JSON.parse, and a cold hook process adds them up fastest that way.
 */
export type FlatPostings = readonly number[];
export const POSTING_WIDTH = 2;
export const IMPACT_SCALE = 1000;

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
}

export interface PostingSource {
  /** How the source's terms were made; queries must be made the same way. */
  readonly indexOptions: IndexOptions;
  readonly docCount: number;
  /** One more than the largest doc id, so scorers can size flat arrays. */
  readonly idLimit: number;
  postings(term: string): FlatPostings | undefined;
  doc(id: number): DocInfo | undefined;
}
