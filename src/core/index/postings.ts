/** The contract between the scorer and whatever holds postings: the live index or a snapshot on disk. */

/**
 * Postings of one term as a flat list of pairs: doc id, then the term's impact on that doc's
 * score (see termImpact) in thousandths. Flat integers because a snapshot hands them over with
 * one JSON.parse, and a cold hook process adds them up fastest that way.
 */
export type FlatPostings = readonly number[];
export const POSTING_WIDTH = 2;
export const IMPACT_SCALE = 1000;

export interface DocInfo {
  /** Vault-relative path. */
  path: string;
  description: string;
}

export interface PostingSource {
  readonly docCount: number;
  /** One more than the largest doc id, so scorers can size flat arrays. */
  readonly idLimit: number;
  postings(term: string): FlatPostings | undefined;
  doc(id: number): DocInfo | undefined;
}
