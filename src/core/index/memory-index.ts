/** The live, incrementally updated index: what the plugin keeps in memory and the snapshot is written from. */

import { headingText, titleText, type Card } from "../card/card";
import { hintsOf } from "../card/hints";
import { LinkResolver } from "../card/links";
import { isRetired } from "../card/schema";
import { continuesKatakanaWord, tokenize } from "../text/tokenizer";
import { DEFAULT_INDEX_OPTIONS, findSynonyms, prefixTerm, synonymPhrases, synonymTerm, type IndexOptions } from "./index-options";
import { postingValue, type FlatPostings, type PostingSource } from "./postings";
import { DEFAULT_SCORING, idfOf, impactOf, lengthFactorOf, type ScoringRules } from "./scorer";
import { buildTypoTable } from "./typos";
import { alikeCounts, conflictFamilies, copyShape, familyKey } from "../vault/conflicts";

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
  /** Ids of the distinct terms of body and title, and the packed value of each (see BODY), so
   * removal touches only this doc's postings and an overlay is written from the doc alone. */
  termIds: Int32Array;
  packed: Int32Array;
  /** The recall hints as written, for showing which one matched. */
  hints: string[];
  /** Ids of the distinct terms of the hints, and which hints hold each (a bitmask). */
  hintTermIds: Int32Array;
  hintMasks: Int32Array;
  /** Distinct words of each hint (prefixes and synonyms not counted). */
  hintSizes: number[];
}

/** The family keys a card is named under: its own name's, and the name's it says it copies. */
function familyKeys(path: string): string[] {
  const own = familyKey(path);
  const copied = copyShape(path)?.key;
  return copied === undefined || copied === own ? [own] : [own, copied];
}

/**
 * A copy of `text` that holds only its own characters. V8 makes a substring a view of the whole
 * string it came from, so a description kept from a parsed note kept the entire note alive: at
 * 50,000 notes, hundreds of megabytes of Obsidian's heap held notes nobody reads.
 */
function own(text: string): string {
  return text.length === 0 ? "" : Buffer.from(text, "utf8").toString("utf8");
}

const BODY = 4;
const HEADING = 2;
const TITLE = 1;

/**
 * One term's postings: doc ids and values in two growable typed arrays. A value packs body term
 * frequency and two flags (tf * 4 + inHeading * 2 + inTitle); for hints it is the bitmask of the
 * doc's hints holding the term, kept apart since a hint counts by how much of it a prompt covers.
 * Typed arrays rather than a Map per term: a 50,000-note vault has 15 million postings, which as
 * Map entries took gigabytes of Obsidian's heap and seconds of garbage collection.
 */
export class PostingList {
  ids = new Int32Array(4);
  values = new Int32Array(4);
  size = 0;

  add(id: number, value: number): void {
    if (this.size === this.ids.length) {
      const ids = new Int32Array(this.size * 2);
      const values = new Int32Array(this.size * 2);
      ids.set(this.ids);
      values.set(this.values);
      this.ids = ids;
      this.values = values;
    }
    this.ids[this.size] = id;
    this.values[this.size] = value;
    this.size++;
  }

  /** Gives back the room kept for growth: after a full build, most lists never grow again. */
  trim(): void {
    if (this.ids.length === this.size) return;
    this.ids = this.ids.slice(0, Math.max(this.size, 1));
    this.values = this.values.slice(0, Math.max(this.size, 1));
  }

  /** Removes `id` by moving the last posting into its place: order is not kept, and need not be. */
  remove(id: number): void {
    for (let i = 0; i < this.size; i++) {
      if (this.ids[i] !== id) continue;
      this.size--;
      this.ids[i] = this.ids[this.size];
      this.values[i] = this.values[this.size];
      return;
    }
  }
}

/** Terms by id, so docs and lists hold small integers instead of strings and maps. */
class Vocabulary {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  readonly lists: (PostingList | undefined)[] = [];
  /** Terms with at least one posting. */
  live = 0;

  idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.names.length;
      // A term is a piece of the note it was first seen in; kept as is, it would keep that note.
      const name = own(term);
      this.ids.set(name, id);
      this.names.push(name);
      this.lists.push(undefined);
    }
    return id;
  }

  list(term: string): PostingList | undefined {
    const id = this.ids.get(term);
    const list = id === undefined ? undefined : this.lists[id];
    return list && list.size > 0 ? list : undefined;
  }

  add(termId: number, doc: number, value: number): void {
    let list = this.lists[termId];
    if (!list) this.lists[termId] = list = new PostingList();
    if (list.size === 0) this.live++;
    list.add(doc, value);
  }

  remove(termId: number, doc: number): void {
    const list = this.lists[termId];
    if (!list || list.size === 0) return;
    list.remove(doc);
    if (list.size === 0) this.live--;
  }

  trim(): void {
    for (const list of this.lists) list?.trim();
  }

  *entries(): Generator<[string, PostingList]> {
    for (let i = 0; i < this.names.length; i++) {
      const list = this.lists[i];
      if (list && list.size > 0) yield [this.names[i], list];
    }
  }
}

/** Posts the doc's value for each term in the vocabulary, and returns the term ids and values as the doc keeps them. */
function post(vocabulary: Vocabulary, id: number, values: ReadonlyMap<string, number>): { ids: Int32Array; values: Int32Array } {
  const ids = new Int32Array(values.size);
  const kept = new Int32Array(values.size);
  let n = 0;
  for (const [term, value] of values) {
    const t = vocabulary.idOf(term);
    vocabulary.add(t, id, value);
    ids[n] = t;
    kept[n++] = value;
  }
  return { ids, values: kept };
}

export class MemoryIndex implements PostingSource {
  private readonly byPath = new Map<string, IndexedDoc>();
  private readonly byId = new Map<number, IndexedDoc>();
  private readonly terms = new Vocabulary();
  private readonly hintTerms = new Vocabulary();
  // Wikilinks resolve as lint and Obsidian resolve them, so recall's link boost sees the same links.
  private readonly links = new LinkResolver();
  private readonly phrases: string[][][];
  private nextId = 0;
  private totalLength = 0;
  // Built when first asked for after a change: most edits are never followed by a typo.
  private typoTable: Map<string, string[]> | undefined;
  // Family key (vault/conflicts.ts) → the paths named for it: a card's own name, and a copy's
  // under the name it says it copies. Kept as cards come and go, so that finding the families
  // after an edit looks at the few crowded names, not at every card's name again.
  private readonly named = new Map<string, string[]>();
  private readonly crowded = new Set<string>();
  // Conflict copy's id → its family's kept card's id; built, like the typo table, when asked for.
  private copyTable: Map<number, number> | undefined;

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
    this.typoTable = undefined;
    this.copyTable = undefined;
    if (isRetired(card.status)) return;
    const id = this.nextId++;
    const body = tokenize(card.body, this.indexOptions.tokenizer);
    const hintList = this.indexOptions.hintsProperty ? hintsOf(card, this.indexOptions.hintsProperty) : [];
    const { masks, hintSizes } = this.hintTermsOf(hintList);
    const hinted = post(this.hintTerms, id, masks);
    const posted = post(this.terms, id, this.packedTermsOf(card, body));
    const doc: IndexedDoc = {
      id,
      path: card.path,
      description: own(card.description),
      type: own(card.type.toLowerCase()),
      updated: card.updated,
      project: own(card.project),
      linkTargets: [...new Set(card.links.map((l) => own(l.target)))],
      length: body.length,
      termIds: posted.ids,
      packed: posted.values,
      hints: hintList.map(own),
      hintTermIds: hinted.ids,
      hintMasks: hinted.values,
      hintSizes,
    };
    this.byPath.set(doc.path, doc);
    this.byId.set(id, doc);
    this.links.add(doc.path);
    this.addFamilyNames(doc.path);
    this.totalLength += body.length;
  }

  /** Each term of the card (words, prefixes, synonyms) with its body count and title and heading flags packed in. */
  private packedTermsOf(card: Card, body: readonly string[]): Map<string, number> {
    const title = tokenize(titleText(card), this.indexOptions.tokenizer);
    const headings = tokenize(headingText(card), this.indexOptions.tokenizer);
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
    return packed;
  }

  /** A hint's words, prefixes and synonyms, as for the body, each marked with the hints holding it; and each hint's size. */
  private hintTermsOf(hintList: readonly string[]): { masks: Map<string, number>; hintSizes: number[] } {
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
    return { masks, hintSizes };
  }

  /** Files the path under its family keys (see vault/conflicts.ts); a key named twice is crowded. */
  private addFamilyNames(path: string): void {
    for (const key of familyKeys(path)) {
      const paths = this.named.get(key);
      if (!paths) this.named.set(key, [path]);
      else if (paths.push(path) === 2) this.crowded.add(key);
    }
  }

  remove(path: string): boolean {
    const doc = this.byPath.get(path);
    if (!doc) return false;
    this.typoTable = undefined;
    this.copyTable = undefined;
    this.byPath.delete(path);
    this.byId.delete(doc.id);
    this.links.remove(path);
    for (const key of familyKeys(path)) {
      const paths = this.named.get(key)?.filter((p) => p !== path) ?? [];
      if (paths.length === 0) this.named.delete(key);
      else this.named.set(key, paths);
      if (paths.length < 2) this.crowded.delete(key);
    }
    this.totalLength -= doc.length;
    for (const t of doc.termIds) this.terms.remove(t, doc.id);
    for (const t of doc.hintTermIds) this.hintTerms.remove(t, doc.id);
    return true;
  }

  /** Frees the spare room of every posting list, once a full build is done (a third of their memory). */
  trim(): void {
    this.terms.trim();
    this.hintTerms.trim();
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
    return this.terms.live + this.hintTerms.live;
  }

  /** Every term with its postings, values packed as tf * 4 + inHeading * 2 + inTitle. */
  termEntries(): Generator<[string, PostingList]> {
    return this.terms.entries();
  }

  /** Every hint term with its postings, values the bitmask of the doc's hints that hold it. */
  hintEntries(): Generator<[string, PostingList]> {
    return this.hintTerms.entries();
  }

  /** The postings of `term` (values packed as in termEntries), if any card has it. */
  termList(term: string): PostingList | undefined {
    return this.terms.list(term);
  }

  /** The hint postings of `term` (values hint bitmasks), if any card's hints have it. */
  hintList(term: string): PostingList | undefined {
    return this.hintTerms.list(term);
  }

  /** Each of the doc's terms with its posting value (see postingValue), with the index's counts now. */
  *impactsOf(doc: IndexedDoc): Generator<[string, number]> {
    const lengthFactor = this.lengthFactor(doc);
    for (let i = 0; i < doc.termIds.length; i++) {
      const t = doc.termIds[i];
      const idf = idfOf(this.terms.lists[t]?.size ?? 1, this.docCount);
      yield [this.terms.names[t], this.valueOf(doc.packed[i], idf, lengthFactor)];
    }
  }

  /** Each of the doc's terms with its packed counts, for a writer that scores them with counts of its own (refresh.ts). */
  *packedOf(doc: IndexedDoc): Generator<[string, number]> {
    for (let i = 0; i < doc.termIds.length; i++) yield [this.terms.names[doc.termIds[i]], doc.packed[i]];
  }

  /** A posting's value from a doc's packed counts (tf * 4 + inHeading * 2 + inTitle). */
  valueOf(packed: number, idf: number, lengthFactor: number): number {
    return postingValue(impactOf(packed, idf, lengthFactor, this.rules), (packed & (TITLE | HEADING)) !== 0);
  }

  /** Each of the doc's hint terms, with the bitmask of its hints that hold it. */
  *hintMasksOf(doc: IndexedDoc): Generator<[string, number]> {
    for (let i = 0; i < doc.hintTermIds.length; i++) yield [this.hintTerms.names[doc.hintTermIds[i]], doc.hintMasks[i]];
  }

  /** The typo table (see typos.ts): bucket key → the vocabulary's words in it, commonest first. */
  typos(): Map<string, string[]> {
    if (!this.typoTable)
      this.typoTable = buildTypoTable(
        (function* (entries) {
          for (const [term, list] of entries) yield [term, list.size] as const;
        })(this.terms.entries()),
      );
    return this.typoTable;
  }

  nearWords(key: string): readonly string[] | undefined {
    return this.typos().get(key);
  }

  /**
   * The id of the note a sync conflict copy belongs with (see vault/conflicts.ts), so that recall
   * shows a family once; undefined for any other card. A numbered name ("note 2") is a copy only
   * when its body has about the same words as the original's.
   */
  copyOf(id: number): number | undefined {
    if (!this.copyTable) {
      const table = new Map<number, number>();
      const alike = (copy: string, original: string): boolean => alikeCounts(this.bodyCounts(copy), this.bodyCounts(original));
      for (const key of this.crowded) {
        // A path is under two keys when its name says it copies another: the first family that claims it keeps it.
        for (const f of conflictFamilies(this.named.get(key)!, alike)) {
          const keep = this.byPath.get(f.keep)!.id;
          for (const c of f.copies) {
            const copy = this.byPath.get(c.path)!.id;
            if (!table.has(copy) && copy !== keep) table.set(copy, keep);
          }
        }
      }
      this.copyTable = table;
    }
    return this.copyTable.get(id);
  }

  /** Conflict copies by path, each with the path of the note it belongs with. */
  conflictCopies(): Map<string, string> {
    const out = new Map<string, string>();
    for (const doc of this.byPath.values()) {
      const keep = this.copyOf(doc.id);
      if (keep !== undefined) out.set(doc.path, this.byId.get(keep)!.path);
    }
    return out;
  }

  /** How often each term is in the body of the card at `path`. */
  private bodyCounts(path: string): Map<number, number> {
    const doc = this.byPath.get(path);
    const out = new Map<number, number>();
    if (doc) for (let i = 0; i < doc.termIds.length; i++) if (doc.packed[i] >= BODY) out.set(doc.termIds[i], doc.packed[i] >> 2);
    return out;
  }

  hintPostings(term: string): FlatPostings | undefined {
    const list = this.hintTerms.list(term);
    if (!list) return undefined;
    const out: number[] = [];
    for (let i = 0; i < list.size; i++) out.push(list.ids[i], list.values[i]);
    return out;
  }

  postings(term: string): FlatPostings | undefined {
    const list = this.terms.list(term);
    if (!list) return undefined;
    const idf = idfOf(list.size, this.docCount);
    const out: number[] = [];
    for (let i = 0; i < list.size; i++) {
      const doc = this.byId.get(list.ids[i]);
      if (doc) out.push(doc.id, this.valueOf(list.values[i], idf, this.lengthFactor(doc)));
    }
    return out;
  }

  /** BM25's length normalisation for `doc` under the current average length. */
  lengthFactor(doc: IndexedDoc): number {
    return lengthFactorOf(doc.length, this.avgLength, this.rules);
  }

  /** Ids a wikilink target, written in the note at `from`, resolves to. */
  resolveLink(target: string, from = ""): number[] {
    const path = this.links.resolve(target, from);
    const doc = path === undefined ? undefined : this.byPath.get(path);
    return doc ? [doc.id] : [];
  }

  doc(id: number): (IndexedDoc & { links: number[]; copyOf?: number }) | undefined {
    const doc = this.byId.get(id);
    if (!doc) return undefined;
    const copyOf = this.copyOf(id);
    return { ...doc, links: [...new Set(doc.linkTargets.flatMap((t) => this.resolveLink(t, doc.path)))], ...(copyOf === undefined ? {} : { copyOf }) };
  }
}
