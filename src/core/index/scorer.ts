/** The one scorer: BM25 on the body plus a flat bonus per query term in the title field, times IDF. */

import { IMPACT_SCALE, POSTING_WIDTH, type PostingSource } from "./postings";

export interface ScoringRules {
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25 length normalisation. */
  b: number;
  /** Added once per query term found in the title field, however often it is there. */
  titleBonus: number;
  /** Added once per query term found in a heading other than the first, if not in the title field. */
  headingBonus: number;
}

export interface ThresholdRules {
  /** Inject nothing scoring under this (in a vault of 258 cards; see scaleWithVault). */
  minScore: number;
  /** 1 to scale minScore with the vault's size, 0 to use it as it is. */
  scaleWithVault: number;
  /** Keep only cards scoring at least this share of the top card. */
  relativeToTop: number;
  /** A card must match at least this many distinct query terms. */
  minMatchedTerms: number;
  maxCards: number;
}

export interface Scored {
  doc: number;
  score: number;
  /** Distinct query terms this doc matched. */
  matched: number;
}

export const DEFAULT_SCORING: ScoringRules = { k1: 1.2, b: 0.75, titleBonus: 3, headingBonus: 1 };
export const DEFAULT_THRESHOLDS: ThresholdRules = { minScore: 15, scaleWithVault: 1, relativeToTop: 0.5, minMatchedTerms: 2, maxCards: 5 };

/** BM25's inverse document frequency: rarer terms weigh more. */
export function idfOf(df: number, docCount: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/**
 * A term's contribution to a doc's score, as an integer in 1/IMPACT_SCALE units: IDF times
 * (BM25 body part + flat title bonus). Everything here is known when the index is written, so a
 * snapshot stores impacts and a recall only adds them up.
 *
 * @param packed body tf * 4, plus 1 if the term is in the title field, plus 2 if in another heading
 * @param lengthFactor k1 * (1 - b + b * length / avgLength) for the doc
 */
export function impactOf(packed: number, idf: number, lengthFactor: number, rules: ScoringRules): number {
  const tf = packed >>> 2;
  const bm25 = tf === 0 ? 0 : (tf * (rules.k1 + 1)) / (tf + lengthFactor);
  const title = (packed & 1) === 1 ? rules.titleBonus : (packed & 2) === 2 ? rules.headingBonus : 0;
  return Math.round(idf * (bm25 + title) * IMPACT_SCALE);
}

/** One word of the prompt, and the index terms that can stand for it, each with a weight. */
export interface QueryGroup {
  term: string;
  /** The word itself first (weight 1), then weaker stand-ins. */
  alternatives: readonly (readonly [term: string, weight: number])[];
  /**
   * Skip the alternative at `index` when the word itself is in at least `skipAboveDf` docs: a
   * prefix adds little to a word the vault already uses widely, and costs a segment read.
   */
  optional?: { index: number; skipAboveDf: number };
}

/** Every doc that matches any of `terms` and passes `keep`, best first. `terms` should be distinct. */
export function scoreDocs(terms: readonly string[], source: PostingSource, keep: (s: Scored) => boolean = () => true): Scored[] {
  return scoreGroups(
    terms.map((term) => ({ term, alternatives: [[term, 1]] })),
    source,
    keep,
  );
}

/**
 * Scores each group by its best alternative for the doc (a doc matching "configuration" exactly
 * does not also collect the prefix "config*"), adds the groups up, and counts matched groups.
 *
 * Why typed arrays: a hook process runs this once, cold, in V8's interpreter, over postings of
 * thousands of docs. Flat arrays indexed by doc id cost a fraction of a Map of objects there.
 */
export function scoreGroups(groups: readonly QueryGroup[], source: PostingSource, keep: (s: Scored) => boolean = () => true, deadline = Infinity): Scored[] {
  const scores = new Float64Array(source.idLimit);
  const matched = new Uint16Array(source.idLimit);
  const best = new Float64Array(source.idLimit);
  // Which group last touched a doc (1-based), so a doc joins a group's list once.
  const stamp = new Uint32Array(source.idLimit);
  const touched: number[] = [];
  const inGroup: number[] = [];
  for (let g = 0; g < groups.length; g++) {
    // Checked inside the loop, not after it: a hook that answers late has already failed.
    if (deadline !== Infinity && performance.now() > deadline) throw new DeadlineExceeded(deadline);
    const group = groups[g];
    inGroup.length = 0;
    for (let a = 0; a < group.alternatives.length; a++) {
      const [term, weight] = group.alternatives[a];
      const opt = group.optional;
      if (opt && a === opt.index && (source.postings(group.alternatives[0][0])?.length ?? 0) / POSTING_WIDTH >= opt.skipAboveDf) continue;
      const list = source.postings(term);
      if (!list) continue;
      for (let i = 0; i < list.length; i += POSTING_WIDTH) {
        const doc = list[i];
        const gain = list[i + 1] * weight;
        if (stamp[doc] !== g + 1) {
          stamp[doc] = g + 1;
          inGroup.push(doc);
        }
        if (gain > best[doc]) best[doc] = gain;
      }
    }
    for (const doc of inGroup) {
      if (matched[doc] === 0) touched.push(doc);
      scores[doc] += best[doc];
      matched[doc]++;
      best[doc] = 0;
    }
  }
  const out: Scored[] = [];
  for (const doc of touched) {
    const s = { doc, score: scores[doc] / IMPACT_SCALE, matched: matched[doc] };
    if (keep(s)) out.push(s);
  }
  return out.sort(byScore);
}

/** Thrown when scoring runs past the caller's deadline (a `performance.now()` time). */
export class DeadlineExceeded extends Error {
  constructor(readonly deadline: number) {
    super(`past the ${Math.round(deadline)} ms deadline`);
    this.name = "DeadlineExceeded";
  }
}

/** Ties break on doc id so that the same snapshot always gives the same answer. */
export function byScore(a: Pick<Scored, "doc" | "score">, b: Pick<Scored, "doc" | "score">): number {
  return b.score - a.score || a.doc - b.doc;
}

/** The user's thresholds, in the order that keeps them independent of one another. */
export function applyThresholds(ranked: readonly Scored[], rules: ThresholdRules = DEFAULT_THRESHOLDS): Scored[] {
  const eligible = ranked.filter(passesFloor(rules));
  if (eligible.length === 0) return [];
  const floor = eligible[0].score * rules.relativeToTop;
  return eligible.filter((s) => s.score >= floor).slice(0, rules.maxCards);
}

/** The per-card part of the thresholds, usable as scoreDocs' `keep` so that few docs get sorted. */
export function passesFloor(rules: ThresholdRules): (s: Scored) => boolean {
  return (s) => s.matched >= rules.minMatchedTerms && s.score >= rules.minScore;
}
