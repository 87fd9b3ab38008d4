/** The live, incrementally updated index: what the plugin keeps in memory and the snapshot is written from. */

import { headingText, titleText, type Card } from "../card/card";
import { hintsOf } from "../card/hints";
import { LinkResolver } from "../card/links";
import { isRetired } from "../card/schema";
import { continuesKatakanaWord, tokenize } from "../text/tokenizer";
import { DEFAULT_INDEX_OPTIONS, findSynonyms, prefixTerm, synonymPhrases, synonymTerm, type IndexOptions } from "./index-options";
import type { FlatPostings, PostingSource } from "./postings";
import { DEFAULT_SCORING, idfOf, impactOf, lengthFactorOf, type ScoringRules } from "./scorer";

export interface IndexedDoc {
  id: number;
  path: string;
  description: string;
  type: string;
  updated: number;
  project: string;
  /** Link targets as written (`name` or `folder/name`), resolved against the index when read. */
  linkTargets: string[];
  length: number;
  /** Distinct terms of body and title, so removal touches only this doc's postings. */
  terms: string[];
  /** The recall hints as written, for showing which one matched. */
  hints: string[];
  /** Distinct terms of the hints, for removal. */
  hintTerms: string[];
  /** Distinct words of each hint (prefixes and synonyms not counted). */
  hintSizes: number[];
}

const BODY = 4;
const HEADING = 2;
const TITLE = 1;

/**
 * A posting packs body term frequency and two flags into one number (tf * 4 + inHeading * 2 +
 * inTitle), so a term's postings are one Map of numbers: the cheapest shape to build for
 * thousands of notes. Hints are kept apart (doc → bitmask of the hints holding the term), since
 * a hint counts by how much of it a prompt covers, not by how many words it has.
 */
type TermPostings = Map<number, number>;

export class MemoryIndex implements PostingSource {
  private readonly byPath = new Map<string, IndexedDoc>();
  private readonly byId = new Map<number, IndexedDoc>();
  private readonly terms = new Map<string, TermPostings>();
  private readonly hintTerms = new Map<string, TermPostings>();
  // Wikilinks resolve as lint and Obsidian resolve them, so recall's link boost sees the same links.
  private readonly links = new LinkResolver();
  private readonly phrases: string[][][];
  private nextId = 0;
  private totalLength = 0;

  constructor(
    readonly rules: ScoringRules = DEFAULT_SCORING,
    readonly indexOptions: IndexOptions = DEFAULT_INDEX_OPTIONS,
  ) {
    this.phrases = synonymPhrases(indexOptions);
  }

  get docCount(): number {
    return this.byPath.size;
  }

  get idLimit(): number {
    return this.nextId;
  }

  get avgLength(): number {
    return this.byPath.size === 0 ? 0 : this.totalLength / this.byPath.size;
  }

  /** Adds the card, or replaces the card at the same path. Archived and superseded cards are left out. */
  upsert(card: Card): void {
    this.remove(card.path);
    if (isRetired(card.status)) return;
    const id = this.nextId++;
    const body = tokenize(card.body, this.indexOptions.tokenizer);
    const title = tokenize(titleText(card), this.indexOptions.tokenizer);
    const headings = tokenize(headingText(card), this.indexOptions.tokenizer);
    const hintList = this.indexOptions.hintsProperty ? hintsOf(card, this.indexOptions.hintsProperty) : [];
    const packed = new Map<string, number>();
    // Body counts add up in steps of BODY; the title and heading flags are bits set once.
    const add = (term: string, delta: number): void => {
      const p = packed.get(term) ?? 0;
      if (delta === BODY || (p & delta) === 0) packed.set(term, p + delta);
    };
    const addAll = (terms: readonly string[], delta: number): void => {
      for (const term of terms) {
        add(term, delta);
        const pfx = prefixTerm(term, this.indexOptions);
        if (pfx) add(pfx, delta);
      }
      for (const [g, at] of findSynonyms(terms, this.phrases)) {
        for (let i = 0; i < (delta === BODY ? at.length : 1); i++) add(synonymTerm(g), delta);
      }
    };
    addAll(body, BODY);
    addAll(title, TITLE);
    addAll(headings, HEADING);
    // A hint's words, prefixes and synonyms, as for the body, each marked with the hints holding it.
    const masks = new Map<string, number>();
    const hintSizes: number[] = [];
    hintList.forEach((hint, i) => {
      const terms = tokenize(hint, this.indexOptions.tokenizer);
      // In words as a person counts them, as the prompt's side is (see QueryGroup.continuesWord).
      hintSizes.push(new Set(terms.filter((t, j) => !continuesKatakanaWord(terms[j - 1], t))).size);
      const bit = 1 << i;
      const mark = (t: string): void => void masks.set(t, (masks.get(t) ?? 0) | bit);
      for (const term of terms) {
        mark(term);
        const pfx = prefixTerm(term, this.indexOptions);
        if (pfx) mark(pfx);
      }
      for (const [g] of findSynonyms(terms, this.phrases)) mark(synonymTerm(g));
    });
    for (const [term, mask] of masks) {
      let postings = this.hintTerms.get(term);
      if (!postings) this.hintTerms.set(term, (postings = new Map<number, number>()));
      postings.set(id, mask);
    }

    for (const [term, p] of packed) {
      let postings = this.terms.get(term);
      if (!postings) this.terms.set(term, (postings = new Map<number, number>()));
      postings.set(id, p);
    }
    const doc: IndexedDoc = {
      id,
      path: card.path,
      description: card.description,
      type: card.type.toLowerCase(),
      updated: card.updated,
      project: card.project,
      linkTargets: [...new Set(card.links.map((l) => l.target))],
      length: body.length,
      terms: [...packed.keys()],
      hints: hintList,
      hintTerms: [...masks.keys()],
      hintSizes,
    };
    this.byPath.set(doc.path, doc);
    this.byId.set(id, doc);
    this.links.add(doc.path);
    this.totalLength += body.length;
  }

  remove(path: string): boolean {
    const doc = this.byPath.get(path);
    if (!doc) return false;
    this.byPath.delete(path);
    this.byId.delete(doc.id);
    this.links.remove(path);
    this.totalLength -= doc.length;
    for (const term of doc.terms) {
      const postings = this.terms.get(term);
      if (!postings) continue;
      postings.delete(doc.id);
      if (postings.size === 0) this.terms.delete(term);
    }
    for (const term of doc.hintTerms) {
      const postings = this.hintTerms.get(term);
      if (!postings) continue;
      postings.delete(doc.id);
      if (postings.size === 0) this.hintTerms.delete(term);
    }
    return true;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  docByPath(path: string): IndexedDoc | undefined {
    return this.byPath.get(path);
  }

  docs(): IterableIterator<IndexedDoc> {
    return this.byPath.values();
  }

  /** Distinct keys the snapshot will hold: terms and hint terms. */
  termCount(): number {
    return this.terms.size + this.hintTerms.size;
  }

  /** Every term with its postings: doc id → tf * 8 + inHints * 4 + inHeading * 2 + inTitle. */
  termEntries(): IterableIterator<[string, ReadonlyMap<number, number>]> {
    return this.terms.entries();
  }

  /** Every hint term with its postings: doc id → bitmask of the doc's hints that hold it. */
  hintEntries(): IterableIterator<[string, ReadonlyMap<number, number>]> {
    return this.hintTerms.entries();
  }

  hintPostings(term: string): FlatPostings | undefined {
    const postings = this.hintTerms.get(term);
    if (!postings) return undefined;
    const out: number[] = [];
    for (const [id, mask] of postings) out.push(id, mask);
    return out;
  }

  postings(term: string): FlatPostings | undefined {
    const postings = this.terms.get(term);
    if (!postings) return undefined;
    const idf = idfOf(postings.size, this.docCount);
    const out: number[] = [];
    for (const [id, p] of postings) {
      const doc = this.byId.get(id);
      if (doc) out.push(id, impactOf(p, idf, this.lengthFactor(doc), this.rules));
    }
    return out;
  }

  /** BM25's length normalisation for `doc` under the current average length. */
  lengthFactor(doc: IndexedDoc): number {
    return lengthFactorOf(doc.length, this.avgLength, this.rules);
  }

  /** What `term` adds to the score of the doc with live id `id` (see impactOf), if it has the term. */
  impact(term: string, id: number): number | undefined {
    const postings = this.terms.get(term);
    const packed = postings?.get(id);
    const doc = this.byId.get(id);
    if (packed === undefined || !doc) return undefined;
    return impactOf(packed, idfOf(postings!.size, this.docCount), this.lengthFactor(doc), this.rules);
  }

  /** Which of the doc's hints hold `term`, as a bitmask, if any does. */
  hintMask(term: string, id: number): number | undefined {
    return this.hintTerms.get(term)?.get(id);
  }

  /** Ids a wikilink target, written in the note at `from`, resolves to. */
  resolveLink(target: string, from = ""): number[] {
    const path = this.links.resolve(target, from);
    const doc = path === undefined ? undefined : this.byPath.get(path);
    return doc ? [doc.id] : [];
  }

  doc(id: number): (IndexedDoc & { links: number[] }) | undefined {
    const doc = this.byId.get(id);
    if (!doc) return undefined;
    return { ...doc, links: [...new Set(doc.linkTargets.flatMap((t) => this.resolveLink(t, doc.path)))] };
  }
}
