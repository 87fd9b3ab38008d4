/** The live, incrementally updated index: what the plugin keeps in memory and the snapshot is written from. */

import { titleText, type Card } from "../card/card";
import { tokenize } from "../text/tokenizer";
import type { DocInfo, FlatPostings, PostingSource } from "./postings";
import { DEFAULT_SCORING, termImpact, type ScoringRules } from "./scorer";

export interface IndexedDoc extends DocInfo {
  id: number;
  length: number;
  /** Body term → count. */
  tf: Map<string, number>;
  title: Set<string>;
  type: string;
  status: string;
  project: string;
  updated: number;
}

export class MemoryIndex implements PostingSource {
  private readonly byPath = new Map<string, IndexedDoc>();
  private readonly byId = new Map<number, IndexedDoc>();
  // term → doc ids holding it (body or title); the counts live on the doc.
  private readonly terms = new Map<string, Set<number>>();
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
    const tf = new Map<string, number>();
    let length = 0;
    for (const term of tokenize(card.body)) {
      tf.set(term, (tf.get(term) ?? 0) + 1);
      length++;
    }
    const title = new Set(tokenize(titleText(card)));
    const doc: IndexedDoc = {
      id: this.nextId++,
      path: card.path,
      description: card.description,
      length,
      tf,
      title,
      type: card.type,
      status: card.status,
      project: card.project,
      updated: card.updated,
    };
    this.byPath.set(doc.path, doc);
    this.byId.set(doc.id, doc);
    this.totalLength += length;
    for (const term of tf.keys()) this.link(term, doc.id);
    for (const term of title) this.link(term, doc.id);
  }

  remove(path: string): boolean {
    const doc = this.byPath.get(path);
    if (!doc) return false;
    this.byPath.delete(path);
    this.byId.delete(doc.id);
    this.totalLength -= doc.length;
    for (const term of doc.tf.keys()) this.unlink(term, doc.id);
    for (const term of doc.title) this.unlink(term, doc.id);
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

  /** Every term with the ids of the docs holding it. */
  termEntries(): IterableIterator<[string, Set<number>]> {
    return this.terms.entries();
  }

  postings(term: string): FlatPostings | undefined {
    const ids = this.terms.get(term);
    if (!ids) return undefined;
    const out: number[] = [];
    for (const id of ids) {
      const doc = this.byId.get(id);
      if (doc) out.push(id, this.impact(term, doc, ids.size));
    }
    return out;
  }

  /** The term's score contribution to `doc`, under the index's current collection statistics. */
  impact(term: string, doc: IndexedDoc, df: number): number {
    return termImpact(
      { tf: doc.tf.get(term) ?? 0, inTitle: doc.title.has(term), length: doc.length, df, docCount: this.docCount, avgLength: this.avgLength },
      this.rules,
    );
  }

  doc(id: number): IndexedDoc | undefined {
    return this.byId.get(id);
  }

  private link(term: string, id: number): void {
    let set = this.terms.get(term);
    if (!set) this.terms.set(term, (set = new Set()));
    set.add(id);
  }

  private unlink(term: string, id: number): void {
    const set = this.terms.get(term);
    if (!set) return;
    set.delete(id);
    if (set.size === 0) this.terms.delete(term);
  }
}
