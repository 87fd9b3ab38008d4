/** Serialises the live index into a snapshot file, and writes it atomically. */

import type { MemoryIndex } from "../index/memory-index";
import { idfOf, impactOf } from "../index/scorer";
import { HINT_MARK } from "../index/postings";
import { TOKENIZER_VERSION } from "../text/tokenizer";
import { fnv1aBytes, fnv1aString, fnv1aWords } from "../io/hash";
import { writeFileAtomic } from "../io/atomic";
import { writeFileAtomicAsync } from "../io/atomic-async";
import { checksumLabel } from "./checksum";
import {
  DAY_MS,
  DOCS_PER_CHUNK,
  HEADER_SUM_KEY,
  RECORD_WIDTH,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  shardCountFor,
  type DocChunkSegment,
  type DocRow,
  type SnapshotHeader,
} from "./format";
import type { RecallRules } from "../recall/rules";

/**
 * The snapshot's bytes, in parts to be written in order. Impacts are computed with the index's
 * own scoring rules, which the header records in place of `rules.scoring`.
 */
export function serializeSnapshot(index: MemoryIndex, rules: RecallRules, now = new Date()): Buffer[] {
  const steps = snapshotSteps(index, rules, now);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The same bytes, built in slices of about `sliceMs` with `pause()` awaited between them. In
 * Obsidian this runs on the main thread after edits; a large vault takes a second or more to
 * serialise, and the window must not freeze meanwhile. The index must not change until it is done.
 */
export async function serializeSnapshotSliced(index: MemoryIndex, rules: RecallRules, pause: () => Promise<void>, sliceMs: number, now = new Date()): Promise<Buffer[]> {
  const steps = snapshotSteps(index, rules, now);
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

// Steps between chances to pause: small enough that one step is far below a frame.
const TERMS_PER_STEP = 500;
const BYTES_PER_STEP = 1 << 20;

/**
 * Builds JSON text directly rather than through objects and JSON.stringify, and yields between
 * steps so that a caller can spread the work out.
 */
function* snapshotSteps(index: MemoryIndex, rules: RecallRules, now: Date): Generator<void, Buffer[]> {
  // Dense ids in path order: the snapshot is the same bytes for the same vault, whatever the edit history.
  const docs = [...index.docs()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const dense = new Int32Array(index.idLimit).fill(-1);
  const lengthFactor = new Float64Array(docs.length);
  docs.forEach((d, i) => {
    dense[d.id] = i;
    lengthFactor[i] = index.lengthFactor(d);
  });
  yield;

  const shardCount = shardCountFor(index.termCount());
  const shards: string[][] = Array.from({ length: shardCount }, () => []);
  const pairs: [number, number][] = [];
  const list: number[] = [];
  let n = 0;
  for (const [term, postings] of index.termEntries()) {
    const idf = idfOf(postings.size, docs.length);
    pairs.length = 0;
    let sorted = true;
    for (const [id, packed] of postings) {
      const d = dense[id];
      if (pairs.length > 0 && d < pairs[pairs.length - 1][0]) sorted = false;
      pairs.push([d, packed]);
    }
    // Postings are added in path order on a full build; only terms of edited cards need sorting.
    if (!sorted) pairs.sort((a, b) => a[0] - b[0]);
    list.length = 0;
    for (const [d, packed] of pairs) list.push(d, impactOf(packed, idf, lengthFactor[d], index.rules));
    shards[fnv1aString(term) % shardCount].push(JSON.stringify(term) + ":[" + list.join(",") + "]");
    if (++n % TERMS_PER_STEP === 0) yield;
  }
  for (const [term, postings] of index.hintEntries()) {
    pairs.length = 0;
    for (const [id, mask] of postings) if (dense[id] >= 0) pairs.push([dense[id], mask]);
    pairs.sort((a, b) => a[0] - b[0]);
    list.length = 0;
    for (const [d, mask] of pairs) list.push(d, mask);
    // In the term's own shard, which a recall of the term reads anyway.
    shards[fnv1aString(term) % shardCount].push(JSON.stringify(HINT_MARK + term) + ":[" + list.join(",") + "]");
    if (++n % TERMS_PER_STEP === 0) yield;
  }

  const segments: Buffer[] = [];
  for (const entries of shards) {
    segments.push(Buffer.from("{" + entries.join(",") + "}\n", "utf8"));
    if (segments.length % 64 === 0) yield;
  }
  for (let i = 0; i < docs.length; i += DOCS_PER_CHUNK) {
    const chunk: DocChunkSegment = docs.slice(i, i + DOCS_PER_CHUNK).map((d): DocRow => {
      const row: DocRow = [
        d.path,
        d.description,
        d.type,
        Math.round(d.updated / DAY_MS),
        d.project,
        [...new Set(d.linkTargets.flatMap((t) => index.resolveLink(t, d.path)).map((id) => dense[id]))].filter((n) => n >= 0).sort((a, b) => a - b),
      ];
      // Only cards with hints carry their sizes, so a vault without hints writes what it always did.
      return d.hintSizes.length > 0 ? [...row, d.hintSizes] : row;
    });
    segments.push(Buffer.from(JSON.stringify(chunk) + "\n", "utf8"));
    yield;
  }

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
  const table = Buffer.from(records.join("") + "\n", "utf8");

  const body = [table, ...segments];
  let checksum: number | undefined;
  hashed = 0;
  for (const part of body) {
    checksum = fnv1aBytes(part, 0, part.length, checksum);
    hashed += part.length;
    if (hashed >= BYTES_PER_STEP) {
      hashed = 0;
      yield;
    }
  }
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    tokenizer: TOKENIZER_VERSION,
    cards: docs.length,
    terms: index.termCount(),
    shards: shardCount,
    docChunks: segments.length - shardCount,
    bodyBytes: offset + table.length,
    checksum: checksumLabel(checksum ?? fnv1aBytes(table)),
    createdAt: now.toISOString(),
    rules: { ...rules, scoring: index.rules },
    index: index.indexOptions,
  };
  return [Buffer.from(sealHeader(JSON.stringify(header)) + "\n", "utf8"), ...body];
}

export function writeSnapshot(path: string, index: MemoryIndex, rules: RecallRules, now = new Date()): SnapshotHeader {
  const parts = serializeSnapshot(index, rules, now);
  writeFileAtomic(path, parts);
  return headerOf(parts);
}

/** `writeSnapshot` in slices, for Obsidian's main thread: see serializeSnapshotSliced. */
export async function writeSnapshotSliced(path: string, index: MemoryIndex, rules: RecallRules, pause: () => Promise<void>, sliceMs: number): Promise<SnapshotHeader> {
  const parts = await serializeSnapshotSliced(index, rules, pause, sliceMs);
  await writeFileAtomicAsync(path, parts);
  return headerOf(parts);
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
