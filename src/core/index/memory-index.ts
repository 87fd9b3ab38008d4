/** The live, incrementally updated index: what the plugin keeps in memory and the snapshot is written from. */

import { titleText, type Card } from "../card/card";
import { tokenize } from "../text/tokenizer";
import type { DocInfo, FlatPostings, PostingSource } from "./postings";
import { DEFAULT_SCORING, idfOf, impactOf, type ScoringRules } from "./scorer";

export interface IndexedDoc extends DocInfo {
  id: number;
  length: number;
  /** Distinct terms of body and title, so removal touches only this doc's postings. */
  terms: string[];
  type: string;
  status: string;
  project: string;
  updated: number;
}

/**
 * A posting packs body term frequency and the title flag into one number (tf * 2 + inTitle), so
 * a term's postings are one Map of numbers: the cheapest shape to build for thousands of notes.
 */
type TermPostings = Map<number, number>;

export class MemoryIndex implements PostingSource {
  private readonly byPath = new Map<string, IndexedDoc>();
  private readonly byId = new Map<number, IndexedDoc>();
  private readonly terms = new Map<string, TermPostings>();
  private nextId = 0;
  private totalLength = 0;

  constructor(readonly rules: ScoringRules = DEFAULT_SCORING) {}

  get docCount(): number {
    return this.byPath.size;
  }

  get idLimit(): number {
    return this.nextId;
  }

  get avgLength(): number {
    return this.byPath.size === 0 ? 0 : this.totalLength / this.byPath.size;
  }

  /** Adds the card, or replaces the card at the same path. */
  upsert(card: Card): void {
    this.remove(card.path);
    const id = this.nextId++;
    const packed = new Map<string, number>();
    let length = 0;
    for (const term of tokenize(card.body)) {
      packed.set(term, (packed.get(term) ?? 0) + 2);
      length++;
    }
    for (const term of tokenize(titleText(card))) {
      const p = packed.get(term) ?? 0;
      if ((p & 1) === 0) packed.set(term, p + 1);
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
      length,
      terms: [...packed.keys()],
      type: card.type,
      status: card.status,
      project: card.project,
      updated: card.updated,
    };
    this.byPath.set(doc.path, doc);
    this.byId.set(id, doc);
    this.totalLength += length;
  }

  remove(path: string): boolean {
    const doc = this.byPath.get(path);
    if (!doc) return false;
    this.byPath.delete(path);
    this.byId.delete(doc.id);
    this.totalLength -= doc.length;
    for (const term of doc.terms) {
      const postings = this.terms.get(term);
      if (!postings) continue;
      postings.delete(doc.id);
      if (postings.size === 0) this.terms.delete(term);
    }
    return true;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  docs(): IterableIterator<IndexedDoc> {
    return this.byPath.values();
  }

  termCount(): number {
    return this.terms.size;
  }

  /** Every term with its postings: doc id → tf * 2 + inTitle. */
  termEntries(): IterableIterator<[string, ReadonlyMap<number, number>]> {
    return this.terms.entries();
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
    const avg = this.avgLength;
    return this.rules.k1 * (1 - this.rules.b + (this.rules.b * doc.length) / (avg > 0 ? avg : 1));
  }

  doc(id: number): IndexedDoc | undefined {
    return this.byId.get(id);
  }
}
