/** The one scorer: BM25 on the body plus a flat bonus per query term in the title field, times IDF. */

import { msSinceStart } from "../io/clock";
import { IMPACT_SCALE, POSTING_WIDTH, impactPart, isAbout, type FlatPostings, type PostingSource } from "./postings";
// GroupTotals' loops in WebAssembly, assembled from totals.wat at build time (scripts/wat.mjs).
import totalsModule from "./totals.wat";

export interface ScoringRules {
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25 length normalisation. */
  b: number;
  /** Added once per query term found in the title field, however often it is there. */
  titleBonus: number;
  /** Added once per query term found in a heading other than the first, if not in the title field. */
  headingBonus: number;
  /**
   * What a recall hint that is the whole prompt adds, per unit of IDF of the words it shares
   * (see hintScores): like the title bonus, but scaled by how much of the prompt one hint covers.
   */
  hintBonus: number;
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
  /**
   * And at least this share of them, never all: a long prompt (a pasted error, an instruction with
   * its context) shares two words with many cards by chance. 0 by default: it silences more
   * unanswered prompts, but a Chinese question's many character pairs make it cost recall (see
   * docs/recall-quality.md).
   */
  minMatchedShare: number;
  /**
   * The confidence gate: a card is shown only when the prompt's words it is about (its title
   * field, or the hints that matched; see Scored.about) weigh at least this many words found in
   * one card alone (IDF units, so the gate means the same in a vault of any size). Sharing common
   * words with a card's body is not evidence a person would accept. 0, the default, turns it off:
   * on cards with enrich's hints, 1.2 leaves twice as many unanswered work prompts quiet for about
   * 0.03 of hit@5, but it costs questions about long notes much more (see docs/recall-quality.md).
   */
  minAboutWords: number;
  /**
   * The rare-word gate: a card is shown only when it shares with the text a word few cards hold,
   * one whose IDF is at least this share of a word only one card holds (0.75: at most 4 cards in
   * 130, 11 in 6,300). 0, the default, turns it off; the failed-command rules turn it on, since an error
   * a card explains shares its code, exception or module with that card, and a lookalike error
   * of the same project only the project's common words (docs/prompt-hook.md).
   */
  rareWord: number;
  /**
   * With the rare-word gate: the rare words a card shares, times the share of the text's words it
   * matches, must reach this. 0.5 asks two rare words of a card that matches less than half of
   * the text's words, one of a card that matches half or more.
   */
  rareEvidence: number;
  maxCards: number;
}

export interface Scored {
  doc: number;
  score: number;
  /** Distinct query terms this doc matched. */
  matched: number;
  /**
   * The IDF, summed over the prompt's words, of those the card is about: found in its title field
   * (see postingValue) or in the hints that matched. A prefix or synonym counts by its weight.
   */
  about?: number;
  /** Which of the doc's hints the prompt matched best, when one added to its score. */
  hint?: number;
  /** What that hint added to `score`, and how many of its words the prompt has (see hintCoverage). */
  hintScore?: number;
  hintMatched?: number;
}

export interface ScoreOptions {
  /** A `msSinceStart()` time past which scoring gives up (DeadlineExceeded). */
  deadline?: number;
  /** ScoringRules.hintBonus; 0 or absent scores no hints. */
  hintBonus?: number;
  /** What `keep` asks at least, checked before a doc is made a Scored (see ScoreFloor). */
  floor?: ScoreFloor;
}

/**
 * The least a doc needs to be kept: matched groups, and score (hints included). A doc below it is
 * never handed to `keep`; one at or above it still is.
 */
export interface ScoreFloor {
  matched: number;
  score: number;
}

export const DEFAULT_SCORING: ScoringRules = { k1: 1.2, b: 0.75, titleBonus: 3, headingBonus: 1, hintBonus: 5 };
export const DEFAULT_THRESHOLDS: ThresholdRules = {
  minScore: 15,
  scaleWithVault: 1,
  relativeToTop: 0.55,
  minMatchedTerms: 2,
  minMatchedShare: 0,
  minAboutWords: 0,
  rareWord: 0,
  rareEvidence: 0,
  maxCards: 5,
};

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
  const heading = (packed & 2) === 2 ? rules.headingBonus : 0;
  const title = (packed & 1) === 1 ? rules.titleBonus : heading;
  return Math.round(idf * (bm25 + title) * IMPACT_SCALE);
}

/** k1 * (1 - b + b * length / avgLength): BM25's length normalisation, for impactOf. */
export function lengthFactorOf(length: number, avgLength: number, rules: Pick<ScoringRules, "k1" | "b">): number {
  return rules.k1 * (1 - rules.b + (rules.b * length) / (avgLength > 0 ? avgLength : 1));
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
  /**
   * The pair continues the katakana word of the group before it (ファイル → ファ, ァイ, イル): it
   * scores like any pair, but a hint does not hold one more of the prompt's words for it.
   */
  continuesWord?: boolean;
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
 * Why flat arrays indexed by doc id, summed in WebAssembly where it runs: a hook process runs this
 * once, cold, over postings of thousands of docs, where a Map of objects costs many times more
 * and even typed arrays cost V8's interpreter and then its optimising compiler (see Kernel).
 */
export function scoreGroups(
  groups: readonly QueryGroup[],
  source: PostingSource,
  keep: (s: Scored) => boolean = () => true,
  opts: ScoreOptions = {},
): Scored[] {
  const deadline = opts.deadline ?? Infinity;
  const hints = opts.hintBonus && source.hintPostings ? new HintScores(source, opts.hintBonus) : undefined;
  const kernel = kernelFor(source.idLimit);
  // Set only by the scoring that took the kernel: one refused it inside must not free it.
  if (kernel) kernelBusy = true;
  try {
    const totals = new GroupTotals(source, hints, kernel);
    for (let g = 0; g < groups.length; g++) {
      // Checked inside the loop, not after it: a hook that answers late has already failed.
      if (deadline !== Infinity && msSinceStart() > deadline) throw new DeadlineExceeded(deadline);
      const group = groups[g];
      const { lists, df, skipped } = groupLists(group, source);
      if (lists.length === 1) totals.addOnlyList(lists[0][0], lists[0][1]);
      else totals.addBestOf(lists, g);
      totals.finishGroup(group, df, skipped);
    }
    return totals.results(keep, opts.floor).sort(byScore);
  } finally {
    if (kernel) kernelBusy = false;
  }
}

/**
 * The posting lists of a group's alternatives, with their weights; the word's own document
 * frequency; and which alternative was skipped as optional (-1 for none).
 */
function groupLists(group: QueryGroup, source: PostingSource): { lists: [FlatPostings, number][]; df: number; skipped: number } {
  let df = 0;
  let skipped = -1;
  const lists: [FlatPostings, number][] = [];
  for (let a = 0; a < group.alternatives.length; a++) {
    const [term, weight] = group.alternatives[a];
    const opt = group.optional;
    if (opt && a === opt.index && (source.postings(group.alternatives[0][0])?.length ?? 0) / POSTING_WIDTH >= opt.skipAboveDf) {
      skipped = a;
      continue;
    }
    const list = source.postings(term);
    if (!list) continue;
    if (a === 0) df = list.length / POSTING_WIDTH;
    lists.push([list, weight]);
  }
  return { lists, df, skipped };
}

/** Each doc's score, matched groups and what it is about, added up group by group (see scoreGroups). */
class GroupTotals {
  private readonly scores: Float64Array;
  private readonly matched: Int32Array;
  private readonly best: Float64Array;
  // Which group last touched a doc (1-based), so a doc joins a group's list once.
  private readonly stamp: Int32Array;
  // The docs matched so far, those whose about weight the group raised, and those in the group,
  // as lists whose lengths are counts[0], counts[1] and counts[2].
  private readonly counts: Int32Array;
  private readonly touched: Int32Array;
  private readonly aboutDocs: Int32Array;
  private readonly inGroup: Int32Array;
  // What the card is about, per group: the best weight with which its title field holds the
  // group's word, then added up in IDF. The hints' part is kept apart (hintAbout), since hints
  // count only for a card one of whose hints holds two of the prompt's words.
  private readonly about: Float64Array;
  private readonly hintAbout: Float64Array;
  private readonly aboutWeight: Float64Array;
  private readonly n: number;

  constructor(
    private readonly source: PostingSource,
    private readonly hints: HintScores | undefined,
    private readonly kernel: Kernel | undefined,
  ) {
    const n = (this.n = source.idLimit);
    // With the kernel, the arrays it works on are views of its memory (see totals.wat).
    const buffer = kernel?.buffer;
    const at = kernelLayout(n);
    const f64 = (from: number): Float64Array => (buffer ? new Float64Array(buffer, from, n) : new Float64Array(n));
    const i32 = (from: number, length = n): Int32Array => (buffer ? new Int32Array(buffer, from, length) : new Int32Array(length));
    this.counts = i32(at.counts, 4);
    this.scores = f64(at.scores);
    this.best = f64(at.best);
    this.aboutWeight = f64(at.aboutWeight);
    this.matched = i32(at.matched);
    this.stamp = i32(at.stamp);
    this.touched = i32(at.touched);
    this.aboutDocs = i32(at.aboutDocs);
    this.inGroup = i32(at.inGroup);
    this.about = new Float64Array(n);
    this.hintAbout = new Float64Array(n);
  }

  /**
   * One list holds each doc once, so its gain is the doc's best: added straight in. Most
   * groups are one word's list, and in a cold process this loop is most of a recall's work.
   */
  addOnlyList(list: FlatPostings, weight: number): void {
    const k = this.kernel;
    if (k) {
      k.each(list, (len) => k.o(len, weight));
      return;
    }
    const { scores, matched, touched, counts, n } = this;
    for (let i = 0; i + 1 < list.length; i += POSTING_WIDTH) {
      // As the kernel's copy reads it (a whole 32-bit number), so a damaged list reads alike both ways.
      const doc = list[i] | 0;
      if (doc < 0 || doc >= n) continue;
      const v = list[i + 1];
      if (matched[doc] === 0) touched[counts[0]++] = doc;
      scores[doc] += impactPart(v) * weight;
      matched[doc]++;
      if (isAbout(v)) this.markAbout(doc, weight);
    }
  }

  /** Several alternatives: each doc gains by its best one. `g` is the group's number. */
  addBestOf(lists: readonly [FlatPostings, number][], g: number): void {
    const k = this.kernel;
    if (k) {
      for (const [list, weight] of lists) k.each(list, (len) => k.b(len, weight, g + 1));
      k.f();
      return;
    }
    const { scores, matched, best, stamp, touched, inGroup, counts, n } = this;
    for (const [list, weight] of lists) {
      for (let i = 0; i + 1 < list.length; i += POSTING_WIDTH) {
        const doc = list[i] | 0;
        if (doc < 0 || doc >= n) continue;
        const v = list[i + 1];
        const gain = impactPart(v) * weight;
        if (stamp[doc] !== g + 1) {
          stamp[doc] = g + 1;
          inGroup[counts[2]++] = doc;
        }
        if (gain > best[doc]) best[doc] = gain;
        if (isAbout(v)) this.markAbout(doc, weight);
      }
    }
    for (let i = 0; i < counts[2]; i++) {
      const doc = inGroup[i];
      if (matched[doc] === 0) touched[counts[0]++] = doc;
      scores[doc] += best[doc];
      matched[doc]++;
      best[doc] = 0;
    }
    counts[2] = 0;
  }

  // A doc joins aboutDocs when its weight first rises above 0 in the group, so at most once: a
  // weight of 0 (or not a number) adds nothing, and would have added the doc again each time.
  private markAbout(doc: number, weight: number): void {
    const was = this.aboutWeight[doc];
    if (!(weight > was)) return;
    if (was === 0) this.aboutDocs[this.counts[1]++] = doc;
    this.aboutWeight[doc] = weight;
  }

  /** Adds the group's hints, and what each doc is about in the group's IDF. */
  finishGroup(group: QueryGroup, df: number, skipped: number): void {
    const { about, hintAbout, aboutWeight, aboutDocs, counts } = this;
    const inHints = this.hints?.addGroup(group, df, skipped);
    if (inHints) for (const [doc, weight] of inHints.docs) if (weight > aboutWeight[doc]) hintAbout[doc] += (weight - aboutWeight[doc]) * inHints.idf;
    const idf = idfOf(Math.max(df, 1), Math.max(this.source.docCount, 1));
    for (let i = 0; i < counts[1]; i++) {
      const doc = aboutDocs[i];
      about[doc] += aboutWeight[doc] * idf;
      aboutWeight[doc] = 0;
    }
    counts[1] = 0;
  }

  /**
   * Every doc touched, with its hints' score added, that has `floor`'s matches and score and
   * passes `keep`; unsorted. The floor is checked on the sums, before a doc is made an object: a
   * long text touches thousands of docs, and few of them reach it.
   */
  results(keep: (s: Scored) => boolean, floor: ScoreFloor | undefined): Scored[] {
    const { scores, matched, touched, counts, about, hintAbout, inGroup, n } = this;
    const out: Scored[] = [];
    const extra = this.hints?.finish();
    if (extra) {
      for (const [doc, h] of extra) {
        if (!(doc >= 0 && doc < n)) continue;
        if (matched[doc] === 0) touched[counts[0]++] = doc;
        scores[doc] += h.score * IMPACT_SCALE;
        if (h.matched > matched[doc]) matched[doc] = h.matched;
      }
    }
    // A hair under the floor, so that a doc keep would take is never left out by rounding.
    const minMatched = floor?.matched ?? 0;
    const minScore = floor ? floor.score * IMPACT_SCALE * (1 - 1e-9) : -Infinity;
    let kept = 0;
    // The kernel counts in whole numbers: the least whole count at or above the floor, kept in
    // its 32-bit range (a floor no count reaches, or not a number, keeps none, as here).
    const least = Math.ceil(minMatched);
    if (this.kernel) kept = this.kernel.c(least > 0x7fffffff || Number.isNaN(least) ? 0x7fffffff : Math.max(least, 0), minScore);
    else for (let i = 0; i < counts[0]; i++) if (matched[touched[i]] >= minMatched && scores[touched[i]] >= minScore) inGroup[kept++] = touched[i];
    for (let i = 0; i < kept; i++) {
      const doc = inGroup[i];
      const h = extra?.get(doc);
      const s: Scored = { doc, score: scores[doc] / IMPACT_SCALE, matched: matched[doc], about: about[doc] + (h ? hintAbout[doc] : 0) };
      if (h) Object.assign(s, { hint: h.hint, hintScore: h.score, hintMatched: h.matched });
      if (keep(s)) out.push(s);
    }
    return out;
  }
}

/**
 * GroupTotals' loops in WebAssembly (totals.wat): a hook process runs them once, cold, over
 * thousands of postings, and V8 ran them in its interpreter, then spent more compiling them well
 * than they took. The memory is the process's one, laid out for the source at hand and zeroed.
 */
interface Kernel {
  buffer: ArrayBuffer;
  /** Copies `list` into the memory's list place, in pieces of at most its room, calling `run` with each piece's length. */
  each(list: FlatPostings, run: (len: number) => void): void;
  o(len: number, weight: number): void;
  b(len: number, weight: number, g: number): void;
  f(): void;
  c(minMatched: number, minScore: number): number;
}

/**
 * Where each array lies in the kernel's memory for `n` docs, in bytes: as `i` in totals.wat lays
 * them out, in the same order. `list` is the room for a posting list's pairs, `end` the bytes the
 * memory must hold.
 */
function kernelLayout(
  n: number,
): Record<"counts" | "scores" | "best" | "aboutWeight" | "matched" | "stamp" | "touched" | "aboutDocs" | "inGroup" | "list" | "end", number> {
  const scores = 16;
  const best = scores + 8 * n;
  const aboutWeight = best + 8 * n;
  const matched = aboutWeight + 8 * n;
  const stamp = matched + 4 * n;
  const touched = stamp + 4 * n;
  const aboutDocs = touched + 4 * n;
  const inGroup = aboutDocs + 4 * n;
  const list = inGroup + 4 * n;
  return { counts: 0, scores, best, aboutWeight, matched, stamp, touched, aboutDocs, inGroup, list, end: list + 8 * n };
}

const PAGE = 65536;
// Module compiled once a process, instance kept: undefined until asked, null without WebAssembly.
let totalsInstance: WebAssembly.Instance | null | undefined;
// Set while a scoring uses the instance; a scoring inside it (none today) takes the JavaScript loops.
let kernelBusy = false;

/** The kernel laid out for `docs` docs, or undefined where WebAssembly is unavailable or busy. */
function kernelFor(docs: number): Kernel | undefined {
  // A vault of no docs, or a count that is not whole (a damaged snapshot), leaves the kernel no
  // room to lay out, nor a list room to copy postings through: the JavaScript loops score it.
  if (kernelBusy || scriptLoopsOnly || !Number.isInteger(docs) || docs < 1) return undefined;
  if (totalsInstance === undefined) {
    try {
      totalsInstance = new WebAssembly.Instance(new WebAssembly.Module(totalsModule));
    } catch {
      totalsInstance = null;
    }
  }
  if (!totalsInstance) return undefined;
  const x = totalsInstance.exports as Record<"i" | "o" | "b" | "f" | "c", (...args: number[]) => number> & { m: WebAssembly.Memory };
  const room = 2 * docs;
  const { list: listAt, end: bytes } = kernelLayout(docs);
  const memory = x.m;
  const grow = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
  if (grow > 0) {
    try {
      memory.grow(grow);
    } catch {
      // No room for a vault this large (past millions of cards): the JavaScript loops score it.
      return undefined;
    }
  }
  const buffer = memory.buffer;
  // What a scoring before this one left: sums, counts, marks.
  new Uint8Array(buffer, 0, listAt).fill(0);
  x.i(docs);
  const list = new Int32Array(buffer, listAt, room);
  return {
    buffer,
    each(postings, run) {
      const whole = postings as number[];
      if (whole.length <= room) {
        list.set(whole);
        run(whole.length);
        return;
      }
      for (let at = 0; at < whole.length; at += room) {
        const piece = whole.slice(at, at + room);
        list.set(piece);
        run(piece.length);
      }
    },
    o: x.o,
    b: x.b,
    f: x.f,
    c: x.c,
  };
}

// For the test that holds the two ways to the same answers.
let scriptLoopsOnly = false;

/** scoreGroups with the JavaScript loops only, as where WebAssembly is unavailable. */
export function scoreGroupsScript(...args: Parameters<typeof scoreGroups>): Scored[] {
  scriptLoopsOnly = true;
  try {
    return scoreGroups(...args);
  } finally {
    scriptLoopsOnly = false;
  }
}

// A card may have up to MAX_HINTS hints; a doc's hints are numbered in 4 bits.
const HINT_BITS = 4;

/**
 * The hint part of a score. Hints are title-like text: each prompt word found in any of a card's
 * hints adds hintBonus × its IDF, once per card however many hints hold it, so six hints do not
 * outrank one good title by having more words. But a hint is a whole question, and one shared word
 * is not that question: a card's hints count only when one hint holds at least two of the prompt's
 * words (all of them, for a one-word prompt).
 */
class HintScores {
  private readonly counts = new Map<number, number>();
  private readonly sums = new Map<number, number>();
  private readonly keyBest = new Map<number, number>();
  private readonly docBest = new Map<number, number>();
  private groups = 0;

  constructor(
    private readonly source: PostingSource,
    private readonly bonus: number,
  ) {}

  /**
   * `df`: the docs whose body or title holds the group's word, for its IDF. `skipped`: the
   * alternative the words left out (a prefix of a common word), left out here too, since looking
   * it up would read one more segment of the snapshot.
   */
  addGroup(group: QueryGroup, df: number, skipped = -1): { docs: ReadonlyMap<number, number>; idf: number } | undefined {
    // Words, not pairs: a one-word katakana prompt (バックアップ) needs only its word.
    if (!group.continuesWord) this.groups++;
    this.keyBest.clear();
    this.docBest.clear();
    let hintDf = 0;
    for (let a = 0; a < group.alternatives.length; a++) {
      if (a === skipped) continue;
      const [term, weight] = group.alternatives[a];
      const list = this.source.hintPostings!(term);
      if (!list) continue;
      if (a === 0) hintDf = list.length / POSTING_WIDTH;
      for (let i = 0; i < list.length; i += POSTING_WIDTH) {
        const doc = list[i];
        if ((this.docBest.get(doc) ?? 0) < weight) this.docBest.set(doc, weight);
        const base = doc << HINT_BITS;
        for (let mask = list[i + 1], h = 0; mask !== 0; mask >>>= 1, h++) {
          if ((mask & 1) === 1 && (this.keyBest.get(base + h) ?? 0) < weight) this.keyBest.set(base + h, weight);
        }
      }
    }
    if (this.docBest.size === 0) return undefined;
    // The word's IDF as the rest of the score has it; a word only hints hold, by the hints.
    const idf = idfOf(Math.max(df > 0 ? df : hintDf, 1), Math.max(this.source.docCount, 1));
    for (const [doc, weight] of this.docBest) this.sums.set(doc, (this.sums.get(doc) ?? 0) + idf * weight);
    if (!group.continuesWord) for (const key of this.keyBest.keys()) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    // The docs whose hints hold the word, with the weight of the best alternative: valid until the next call.
    return { docs: this.docBest, idf };
  }

  /** Per doc: its best hint (most prompt words), what hints add, and how many words that hint matched. */
  finish(): Map<number, { hint: number; score: number; matched: number }> {
    const need = Math.min(2, this.groups);
    const out = new Map<number, { hint: number; score: number; matched: number }>();
    for (const [key, count] of this.counts) {
      if (count < need) continue;
      const doc = key >>> HINT_BITS;
      const prev = out.get(doc);
      if (!prev || count > prev.matched) out.set(doc, { hint: key & ((1 << HINT_BITS) - 1), score: this.bonus * (this.sums.get(doc) ?? 0), matched: count });
    }
    return out;
  }
}

/** Thrown when scoring runs past the caller's deadline (a `msSinceStart()` time). */
export class DeadlineExceeded extends Error {
  constructor(readonly deadline: number) {
    super(`past the ${Math.round(deadline)} ms deadline`);
    this.name = "DeadlineExceeded";
  }
}

/**
 * The score once the matched hint counts by how much of the hint the prompt covers, too: a chat
 * line that shares one rare word with a long question ("大丈夫") is not that question. Scoring
 * knows only the prompt's side; the hint's length comes with the doc, read for the few best.
 */
export function withHintCoverage(s: Scored, hintSizes: readonly number[] | undefined): number {
  if (s.hint === undefined || !s.hintScore) return s.score;
  const size = hintSizes?.[s.hint] ?? 0;
  const coverage = size > 0 ? Math.min(1, (s.hintMatched ?? 0) / size) : 1;
  return s.score - s.hintScore * (1 - coverage);
}

/** Ties break on doc id so that the same snapshot always gives the same answer. */
export function byScore(a: Pick<Scored, "doc" | "score">, b: Pick<Scored, "doc" | "score">): number {
  return b.score - a.score || a.doc - b.doc;
}

export interface ThresholdOptions<T> {
  /** Cards left out after the relative floor (already shown, say): the next-best take their slots. */
  skip?: (s: T) => boolean;
  /** Reorders what passed before the cut to maxCards; a stable sort, so ties keep the score order. */
  order?: (a: T, b: T) => number;
}

/**
 * The user's thresholds, in the order that keeps them independent of one another: the floors,
 * then the share of the best card (the best of all, so a skipped card still sets the bar), then
 * the cap. `ranked` is best first.
 */
export function applyThresholds<T extends Pick<Scored, "score" | "matched">>(
  ranked: readonly T[],
  rules: ThresholdRules = DEFAULT_THRESHOLDS,
  opts: ThresholdOptions<T> = {},
): T[] {
  const eligible = ranked.filter(passesFloor(rules));
  if (eligible.length === 0) return [];
  const floor = eligible[0].score * rules.relativeToTop;
  const kept = eligible.filter((s) => s.score >= floor && !opts.skip?.(s));
  if (opts.order) kept.sort(opts.order);
  return kept.slice(0, rules.maxCards);
}

/** The per-card part of the thresholds, usable as scoreDocs' `keep` so that few docs get sorted. */
export function passesFloor(rules: ThresholdRules): (s: Pick<Scored, "score" | "matched">) => boolean {
  return (s) => s.matched >= rules.minMatchedTerms && s.score >= rules.minScore;
}
