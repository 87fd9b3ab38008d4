/** Serialises the live index into a snapshot file, and writes it atomically. */

import type { IndexedDoc, MemoryIndex, PostingList } from "../index/memory-index";
import { HINT_MARK } from "../index/postings";
import { idfOf } from "../index/scorer";
import { TOKENIZER_VERSION } from "../text/tokenizer";
import { fnv1aBytes, fnv1aString, fnv1aWords } from "../io/hash";
import { firstLine } from "../io/first-line";
import { sweepTemps, writeFileAtomic } from "../io/atomic";
import { writeFileAtomicAsync } from "../io/atomic-async";
import { unlinkSync } from "node:fs";
import { checksumLabel } from "./checksum";
import {
  DAY_MS,
  DOCS_PER_CHUNK,
  HEADER_SUM_KEY,
  MAX_HEADER_BYTES,
  overlayPathOf,
  RECORD_WIDTH,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  shardCountFor,
  type DocChunkSegment,
  type DocRow,
  type CatalogSegment,
  type OverlayInfo,
  type SnapshotHeader,
} from "./format";
import type { RecallRules } from "../recall/rules";
import type { ScanInfo } from "../vault/scan";

/** What one file holds: which cards, under which ids, and for an overlay, what it changes in its base. */
interface Plan {
  /** The cards written, in id order from `firstId`. */
  docs: IndexedDoc[];
  firstId: number;
  /** The id this file or its base gives the card with live id `id`; -1 when it has none. */
  idOf: (liveId: number) => number;
  /** Every term and hint term the file holds. */
  keys: () => Generator<[term: string, hint: boolean]>;
  /** A term's postings as the flat numbers of the file, ids ascending: [id, impact, …], or for hints [id, hint mask, …]. */
  numbers: (term: string, hint: boolean) => number[];
  /** How many postings `numbers` gives for the key. */
  size: (term: string, hint: boolean) => number;
  termCount: number;
  overlay?: OverlayInfo;
  /** The ids of the cards `d` links to, as this file and its base number them. */
  linksOf: (d: IndexedDoc) => number[];
  /** The id of the card a conflict copy belongs with, or -1 (see conflicts.ts). */
  keepOf: (d: IndexedDoc) => number;
  /** The vault's mean body length the impacts were computed with. */
  avgLength: number;
  scan?: ScanInfo;
}

/** Links and conflict marks as `index` resolves them, numbered by `idOf`. */
function rowsFrom(index: MemoryIndex, idOf: (liveId: number) => number): Pick<Plan, "linksOf" | "keepOf" | "avgLength"> {
  return {
    linksOf: (d) => [...new Set(d.linkTargets.flatMap((t) => index.resolveLink(t, d.path)).map(idOf))].filter((id) => id >= 0).sort((a, b) => a - b),
    keepOf: (d) => {
      const copyOf = index.copyOf(d.id);
      return copyOf === undefined ? -1 : idOf(copyOf);
    },
    avgLength: index.avgLength,
  };
}

/**
 * The snapshot's bytes, in parts to be written in order. Impacts are computed with the index's
 * own scoring rules, which the header records in place of `rules.scoring`.
 */
export function serializeSnapshot(index: MemoryIndex, rules: RecallRules, now = new Date(), scan?: ScanInfo): Buffer[] {
  return drain(snapshotSteps(index, rules, now, { ...basePlan(index), scan }));
}

/**
 * The same bytes, built in slices of about `sliceMs` with `pause()` awaited between them. In
 * Obsidian this runs on the main thread after edits; a large vault takes a second or more to
 * serialise, and the window must not freeze meanwhile. The index must not change until it is done.
 */
export async function serializeSnapshotSliced(
  index: MemoryIndex,
  rules: RecallRules,
  pause: () => Promise<void>,
  sliceMs: number,
  now = new Date(),
): Promise<Buffer[]> {
  return drainSliced(snapshotSteps(index, rules, now, basePlan(index)), pause, sliceMs);
}

function drain(steps: Generator<void, Buffer[]>): Buffer[] {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

async function drainSliced(steps: Generator<void, Buffer[]>, pause: () => Promise<void>, sliceMs: number): Promise<Buffer[]> {
  let sliceStart = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await pause();
      sliceStart = performance.now();
    }
  }
}

// About this many postings to a shard, so that the shard of a rare word stays small in a big vault.
const POSTINGS_PER_SHARD = 256;

function powerOfTwoAtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

// Steps between chances to pause: small enough that one step is far below a frame.
const TERMS_PER_STEP = 500;
const NUMBERS_PER_STEP = 40_000;
const BYTES_PER_STEP = 1 << 20;

/** Every card, ids dense in path order: the snapshot is the same bytes for the same vault, whatever the edit history. */
function basePlan(index: MemoryIndex): Plan {
  const docs = [...index.docs()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const dense = new Int32Array(index.idLimit).fill(-1);
  const lengthFactor = new Float64Array(index.idLimit);
  docs.forEach((d, i) => {
    dense[d.id] = i;
    lengthFactor[d.id] = index.lengthFactor(d);
  });
  const lists = (hint: boolean): Generator<[string, PostingList]> => (hint ? index.hintEntries() : index.termEntries());
  const idOf = (id: number): number => (id >= 0 && id < dense.length ? dense[id] : -1);
  return {
    docs,
    firstId: 0,
    idOf,
    ...rowsFrom(index, idOf),
    keys: function* () {
      for (const hint of [false, true]) for (const [term] of lists(hint)) yield [term, hint];
    },
    numbers: (term, hint) => {
      const list = hint ? index.hintList(term) : index.termList(term);
      if (!list) return [];
      const idf = idfOf(list.size, docs.length);
      // Postings are added in path order on a full build; only terms of edited cards need sorting.
      let order: number[] | undefined;
      for (let i = 1; i < list.size && !order; i++) if (dense[list.ids[i]] < dense[list.ids[i - 1]]) order = [];
      if (order) {
        for (let i = 0; i < list.size; i++) order.push(i);
        order.sort((a, b) => dense[list.ids[a]] - dense[list.ids[b]]);
      }
      const out: number[] = [];
      for (let k = 0; k < list.size; k++) {
        const i = order ? order[k] : k;
        const id = list.ids[i];
        if (dense[id] < 0) continue;
        out.push(dense[id], hint ? list.values[i] : index.valueOf(list.values[i], idf, lengthFactor[id]));
      }
      return out;
    },
    size: (term, hint) => (hint ? index.hintList(term) : index.termList(term))?.size ?? 0,
    termCount: index.termCount(),
  };
}

/** What a full write leaves for the overlays after it: the ids it gave, and its identity. */
export interface SnapshotBase {
  headerSum: string;
  cards: number;
  idOfPath: ReadonlyMap<string, number>;
  /** Conflict copies as the base marks them: copy's path → the path it belongs with. */
  copies: ReadonlyMap<string, string>;
}

/**
 * An overlay over `base` holding the cards at `dirty` paths as they are in the index now (a path
 * no longer in it was deleted). Cumulative: every card changed since the base, so that one
 * overlay file is all a reader needs beside the base.
 */
function overlayPlan(index: MemoryIndex, base: SnapshotBase, dirty: ReadonlySet<string>): Plan {
  const docs = [...dirty].flatMap((p) => index.docByPath(p) ?? []).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const overlayId = new Map<number, number>(docs.map((d, i) => [d.id, base.cards + i]));
  const removed: number[] = [];
  const moved: [number, number][] = [];
  for (const path of dirty) {
    const old = base.idOfPath.get(path);
    if (old === undefined) continue;
    removed.push(old);
    const now = index.docByPath(path);
    if (now) moved.push([old, overlayId.get(now.id)!]);
  }
  removed.sort((a, b) => a - b);
  moved.sort((a, b) => a[0] - b[0]);
  const collect = (valuesOf: (d: IndexedDoc) => Iterable<[string, number]>): Map<string, number[]> => {
    const out = new Map<string, number[]>();
    // Docs are in id order, so each term's postings come out ascending.
    for (const d of docs) {
      for (const [term, v] of valuesOf(d)) {
        let numbers = out.get(term);
        if (!numbers) out.set(term, (numbers = []));
        numbers.push(overlayId.get(d.id)!, v);
      }
    }
    return out;
  };
  const terms = collect((d) => index.impactsOf(d));
  const hints = collect((d) => index.hintMasksOf(d));
  const idOf = (id: number): number => overlayId.get(id) ?? base.idOfPath.get(index.doc(id)?.path ?? "") ?? -1;
  return {
    docs,
    firstId: base.cards,
    idOf,
    ...rowsFrom(index, idOf),
    keys: function* () {
      for (const term of terms.keys()) yield [term, false];
      for (const term of hints.keys()) yield [term, true];
    },
    numbers: (term, hint) => (hint ? hints : terms).get(term) ?? [],
    size: (term, hint) => ((hint ? hints : terms).get(term)?.length ?? 0) / 2,
    termCount: terms.size + hints.size,
    overlay: { base: base.headerSum, removed, moved, cards: index.docCount },
  };
}

/**
 * Builds JSON text directly rather than through objects and JSON.stringify, and yields between
 * steps so that a caller can spread the work out.
 */
function* snapshotSteps(index: MemoryIndex, rules: RecallRules, now: Date, plan: Plan): Generator<void, Buffer[]> {
  const { shards, near } = yield* groupByShard(index, plan);
  const shardCount = shards.length;
  const segments = yield* shardSegments(shards, near, plan);
  segments.push(...(yield* docSegments(plan)));
  const docChunks = segments.length - shardCount;
  segments.push(Buffer.from(JSON.stringify(catalogOf(plan.docs)) + "\n", "utf8"));
  yield;
  const { table, offset } = yield* recordTable(segments);
  const body = [table, ...segments];
  const checksum = yield* bodyChecksum(body);
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    tokenizer: TOKENIZER_VERSION,
    cards: plan.docs.length,
    terms: plan.termCount,
    shards: shardCount,
    docChunks,
    bodyBytes: offset + table.length,
    checksum: checksumLabel(checksum ?? fnv1aBytes(table)),
    createdAt: now.toISOString(),
    rules: { ...rules, scoring: index.rules },
    index: index.indexOptions,
    ...(plan.overlay ? { overlay: plan.overlay } : {}),
    avgLength: Math.round(plan.avgLength * 100) / 100,
    ...(plan.scan ? { scan: plan.scan } : {}),
    catalog: 1,
  };
  return [Buffer.from(sealHeader(JSON.stringify(header)) + "\n", "utf8"), ...body];
}

/** The plan's terms, and the base's typo table, grouped by the shard each goes in. */
function* groupByShard(index: MemoryIndex, plan: Plan): Generator<void, { shards: [string, boolean][][]; near: [string, string[]][][] }> {
  yield;
  let postings = 0;
  for (const [term, hint] of plan.keys()) postings += plan.size(term, hint);
  yield;
  // Shards by what they hold, not only by how many terms: a bigger vault has longer lists in
  // every shard, and a recall reads the whole shard of each of its terms.
  const shardCount = Math.max(shardCountFor(plan.termCount), powerOfTwoAtLeast(postings / POSTINGS_PER_SHARD));
  // Terms are grouped by shard first and each shard's text made and turned into bytes in turn,
  // so that only one shard's text is ever held: all of them at once took gigabytes at 50,000 notes.
  const shards: [string, boolean][][] = Array.from({ length: shardCount }, () => []);
  let n = 0;
  for (const key of plan.keys()) {
    // A hint term in the term's own shard, which a recall of the term reads anyway.
    shards[fnv1aString(key[0]) % shardCount].push(key);
    if (++n % (TERMS_PER_STEP * 20) === 0) yield;
  }
  // The typo table in the base only: an overlay's few edited cards add few words, and the next
  // full write has them. Each bucket in the shard of its own key, as a recall looks it up.
  const near: [string, string[]][][] = Array.from({ length: shardCount }, () => []);
  if (!plan.overlay) for (const entry of index.typos()) near[fnv1aString(entry[0]) % shardCount].push(entry);
  yield;
  return { shards, near };
}

/** One segment per shard: its typo buckets, then its terms' postings. */
function* shardSegments(shards: readonly [string, boolean][][], near: readonly [string, string[]][][], plan: Plan): Generator<void, Buffer[]> {
  const segments: Buffer[] = [];
  // Steps by postings, not terms: 500 of the commonest words at 50,000 notes were half a second.
  let work = 0;
  for (let k = 0; k < shards.length; k++) {
    const entries: string[] = near[k].map(([key, words]) => JSON.stringify(key) + ":" + JSON.stringify(words));
    for (const [term, hint] of shards[k]) {
      const numbers = plan.numbers(term, hint);
      entries.push(JSON.stringify(hint ? HINT_MARK + term : term) + ":[" + numbers.join(",") + "]");
      work += 16 + numbers.length;
      if (work >= NUMBERS_PER_STEP) {
        work = 0;
        yield;
      }
    }
    segments.push(Buffer.from("{" + entries.join(",") + "}\n", "utf8"));
  }
  return segments;
}

/** The doc rows, DOCS_PER_CHUNK to a segment. */
function* docSegments(plan: Plan): Generator<void, Buffer[]> {
  const segments: Buffer[] = [];
  for (let i = 0; i < plan.docs.length; i += DOCS_PER_CHUNK) {
    const chunk: DocChunkSegment = plan.docs.slice(i, i + DOCS_PER_CHUNK).map((d): DocRow => {
      const row: DocRow = [d.path, d.description, d.type, Math.round(d.updated / DAY_MS), d.project, plan.linksOf(d)];
      const keep = plan.keepOf(d);
      if (keep >= 0) return [...row, d.hintSizes, keep];
      // Only cards with hints carry their sizes, so a vault without hints writes what it always did.
      return d.hintSizes.length > 0 ? [...row, d.hintSizes] : row;
    });
    segments.push(Buffer.from(JSON.stringify(chunk) + "\n", "utf8"));
    yield;
  }
  return segments;
}

/** The table of fixed-width records (offset, length, hash), one per segment, and where the segments end. */
function* recordTable(segments: readonly Buffer[]): Generator<void, { table: Buffer; offset: number }> {
  let offset = 0;
  let hashed = 0;
  const records: string[] = [];
  for (const seg of segments) {
    // The trailing newline is not part of the segment's JSON or its hash.
    records.push(hex(offset, 10) + hex(seg.length - 1, 8) + hex(fnv1aWords(seg, 0, seg.length - 1), 8));
    offset += seg.length;
    hashed += seg.length;
    if (hashed >= BYTES_PER_STEP) {
      hashed = 0;
      yield;
    }
  }
  if (records.some((r) => r.length !== RECORD_WIDTH)) throw new Error("snapshot too large for its record format");
  return { table: Buffer.from(records.join("") + "\n", "utf8"), offset };
}

/** The body's checksum, in steps; undefined for an empty body. */
function* bodyChecksum(body: readonly Buffer[]): Generator<void, number | undefined> {
  let checksum: number | undefined;
  let hashed = 0;
  for (const part of body) {
    checksum = fnv1aBytes(part, 0, part.length, checksum);
    hashed += part.length;
    if (hashed >= BYTES_PER_STEP) {
      hashed = 0;
      yield;
    }
  }
  return checksum;
}

/** `scan`: when the files were read and how many (see ScanInfo), for a writer that read them. */
function catalogOf(docs: readonly IndexedDoc[]): CatalogSegment {
  const projects: string[] = [];
  const types: string[] = [];
  const at = (list: string[], seen: Map<string, number>, name: string): number => {
    let i = seen.get(name);
    if (i === undefined) seen.set(name, (i = list.push(name) - 1));
    return i;
  };
  const projectAt = new Map<string, number>();
  const typeAt = new Map<string, number>();
  const rows: number[] = [];
  for (const d of docs) rows.push(at(projects, projectAt, d.project), at(types, typeAt, d.type), Math.round(d.updated / DAY_MS));
  return { paths: docs.map((d) => d.path), projects, types, rows };
}

export function writeSnapshot(path: string, index: MemoryIndex, rules: RecallRules, now = new Date(), scan?: ScanInfo): SnapshotHeader {
  // What an earlier writer killed mid-write left beside them, megabytes each.
  sweepTemps(path);
  sweepTemps(overlayPathOf(path));
  const parts = serializeSnapshot(index, rules, now, scan);
  writeFileAtomic(path, parts);
  dropOverlay(path);
  return headerOf(parts);
}

/**
 * An overlay written by a process that holds only the changed cards, not the vault's index (a
 * session start that found files changed since the snapshot: see refresh.ts). It says what the
 * plan needs that a whole index would have given: the cards' values scored with the vault's
 * counts, their links as the base and this overlay number them, and what they change in the base.
 */
export interface OverlaySpec {
  /** The changed cards as they are now; its scoring rules and index options are the base's. */
  index: MemoryIndex;
  /** Its cards in the order written, numbered from base.cards up. */
  docs: IndexedDoc[];
  base: { headerSum: string; cards: number };
  info: Omit<OverlayInfo, "base">;
  /** A card's terms with their posting values, scored with the vault's counts. */
  values: (d: IndexedDoc) => Iterable<[string, number]>;
  linksOf: (d: IndexedDoc) => number[];
  avgLength: number;
  scan: ScanInfo;
}

export function writeOverlay(snapshotPath: string, spec: OverlaySpec, rules: RecallRules, now = new Date()): SnapshotHeader {
  const id = new Map(spec.docs.map((d, i) => [d.id, spec.base.cards + i]));
  const collect = (valuesOf: (d: IndexedDoc) => Iterable<[string, number]>): Map<string, number[]> => {
    const out = new Map<string, number[]>();
    for (const d of spec.docs) {
      for (const [term, v] of valuesOf(d)) {
        let numbers = out.get(term);
        if (!numbers) out.set(term, (numbers = []));
        numbers.push(id.get(d.id)!, v);
      }
    }
    return out;
  };
  const terms = collect(spec.values);
  const hints = collect((d) => spec.index.hintMasksOf(d));
  const plan: Plan = {
    docs: spec.docs,
    firstId: spec.base.cards,
    idOf: (liveId) => id.get(liveId) ?? -1,
    keys: function* () {
      for (const term of terms.keys()) yield [term, false];
      for (const term of hints.keys()) yield [term, true];
    },
    numbers: (term, hint) => (hint ? hints : terms).get(term) ?? [],
    size: (term, hint) => ((hint ? hints : terms).get(term)?.length ?? 0) / 2,
    termCount: terms.size + hints.size,
    overlay: { base: spec.base.headerSum, ...spec.info },
    linksOf: spec.linksOf,
    // Refresh hands a change that touches a conflict family to a whole index.
    keepOf: () => -1,
    avgLength: spec.avgLength,
    scan: spec.scan,
  };
  const parts = drain(snapshotSteps(spec.index, rules, now, plan));
  writeFileAtomic(overlayPathOf(snapshotPath), parts);
  return headerOf(parts);
}

/** `writeSnapshot` in slices, for Obsidian's main thread: see serializeSnapshotSliced. */
export async function writeSnapshotSliced(
  path: string,
  index: MemoryIndex,
  rules: RecallRules,
  pause: () => Promise<void>,
  sliceMs: number,
): Promise<SnapshotHeader> {
  return (await new SnapshotWriter(path).writeFull(index, rules, pause, sliceMs)).header;
}

// An overlay is the cards changed since the base, so it grows with every edit until a full write
// starts afresh: past either bound, the next write is a full one (in slices, like any other).
const MAX_OVERLAY_BYTES = 1 << 20;
const MAX_OVERLAY_SHARE = 0.05;

export interface WriteResult {
  kind: "full" | "overlay";
  /** Bytes written to disk by this write. */
  bytes: number;
  header: SnapshotHeader;
}

/**
 * Writes a vault's snapshot as edits come: a full snapshot first, then, for each batch of edits,
 * an overlay of every card changed since (see format.ts). The plugin keeps one for its live index.
 * A reader sees the old state or the new one: both files are replaced by rename, and an overlay
 * names the base it belongs to.
 */
export class SnapshotWriter {
  private base: SnapshotBase | undefined;
  private readonly dirty = new Set<string>();

  constructor(
    readonly path: string,
    private readonly limits = { maxOverlayBytes: MAX_OVERLAY_BYTES, maxOverlayShare: MAX_OVERLAY_SHARE },
  ) {}

  /** The card at `path` was added, changed or deleted in the index since the last write. */
  changed(path: string): void {
    this.dirty.add(path);
  }

  /** The cheapest write that brings the files on disk up to the index. The index must not change until it is done. */
  async write(index: MemoryIndex, rules: RecallRules, pause: () => Promise<void>, sliceMs: number, now = new Date()): Promise<WriteResult> {
    const base = this.base;
    // Someone else (`index`, the digest, a session start's rebuild) may have replaced the base:
    // an overlay for the old one would be ignored by every reader.
    if (!base || this.dirty.size > Math.max(1, index.docCount * this.limits.maxOverlayShare) || diskBaseSum(this.path) !== base.headerSum) {
      return this.writeFull(index, rules, pause, sliceMs, now);
    }
    // A copy's mark can change with no edit of its own (its original made or deleted beside it):
    // the cards whose mark the base no longer gives right are written again.
    const marks = remarked(base.copies, index.conflictCopies());
    const dirty = marks.length > 0 ? new Set([...this.dirty, ...marks]) : this.dirty;
    if (dirty.size === 0) return { kind: "overlay", bytes: 0, header: headerOfFile(this.path) };
    const parts = await drainSliced(snapshotSteps(index, rules, now, overlayPlan(index, base, dirty)), pause, sliceMs);
    const bytes = parts.reduce((n, p) => n + p.length, 0);
    if (bytes > this.limits.maxOverlayBytes) return this.writeFull(index, rules, pause, sliceMs, now);
    await writeFileAtomicAsync(overlayPathOf(this.path), parts);
    return { kind: "overlay", bytes, header: headerOf(parts) };
  }

  /** A whole new snapshot, and no overlay. */
  async writeFull(index: MemoryIndex, rules: RecallRules, pause: () => Promise<void>, sliceMs: number, now = new Date()): Promise<WriteResult> {
    const plan = basePlan(index);
    // As the cards are when the write starts, as the rows written mark them.
    const copies = index.conflictCopies();
    const parts = await drainSliced(snapshotSteps(index, rules, now, plan), pause, sliceMs);
    await writeFileAtomicAsync(this.path, parts);
    dropOverlay(this.path);
    const header = headerOf(parts);
    this.base = { headerSum: header.headerSum ?? "", cards: plan.docs.length, idOfPath: new Map(plan.docs.map((d, i) => [d.path, i])), copies };
    this.dirty.clear();
    return { kind: "full", bytes: parts.reduce((n, p) => n + p.length, 0), header };
  }
}

/**
 * How long the plugin waits for edits to go quiet before it writes: an autosave comes every few
 * seconds of typing, and a second gathers a burst of them into one overlay. The hook sees an edit
 * about this long after it, whatever the vault's size, since an overlay holds only changed cards.
 */
export const EDIT_QUIET_MS = 1000;

/** Paths of cards marked as conflict copies differently in `before` and `now` (copy → kept path). */
function remarked(before: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, keep] of now) if (before.get(path) !== keep) out.push(path);
  for (const path of before.keys()) if (!now.has(path)) out.push(path);
  return out;
}

/** Removes the overlay of an older base, which no reader would use: the new base holds its cards. */
function dropOverlay(path: string): void {
  try {
    unlinkSync(overlayPathOf(path));
  } catch {
    /* none there */
  }
}

function headerOfFile(path: string): SnapshotHeader {
  return JSON.parse(firstLine(path, MAX_HEADER_BYTES)) as SnapshotHeader;
}

function diskBaseSum(path: string): string | undefined {
  try {
    return (JSON.parse(firstLine(path, MAX_HEADER_BYTES)) as Partial<SnapshotHeader>).headerSum;
  } catch {
    return undefined;
  }
}

/** The header's JSON with its own checksum as the last field (see HEADER_SUM_KEY). */
export function sealHeader(json: string): string {
  return json.slice(0, -1) + HEADER_SUM_KEY + hex(fnv1aString(json), 8) + '"}';
}

function headerOf(parts: readonly Buffer[]): SnapshotHeader {
  return JSON.parse(parts[0].toString("utf8")) as SnapshotHeader;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}
