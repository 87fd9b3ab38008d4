/** Serialises the live index into a snapshot file, and writes it atomically. */

import type { MemoryIndex } from "../index/memory-index";
import { idfOf, impactOf } from "../index/scorer";
import { TOKENIZER_VERSION } from "../text/tokenizer";
import { fnv1aBytes, fnv1aString } from "../io/hash";
import { writeFileAtomic } from "../io/atomic";
import { checksumOf } from "./checksum";
import {
  DAY_MS,
  DOCS_PER_CHUNK,
  RECORD_WIDTH,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  shardCountFor,
  type DocChunkSegment,
  type RecallRules,
  type SnapshotHeader,
} from "./format";

/**
 * The snapshot's bytes. Impacts are computed with the index's own scoring rules, which the
 * header records in place of `rules.scoring`.
 *
 * This runs on Obsidian's main thread after every edit, so it builds JSON text directly rather
 * than going through objects and JSON.stringify.
 */
export function serializeSnapshot(index: MemoryIndex, rules: RecallRules, now = new Date()): Buffer {
  // Dense ids in path order: the snapshot is the same bytes for the same vault, whatever the edit history.
  const docs = [...index.docs()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const dense = new Int32Array(index.idLimit).fill(-1);
  const lengthFactor = new Float64Array(docs.length);
  docs.forEach((d, i) => {
    dense[d.id] = i;
    lengthFactor[i] = index.lengthFactor(d);
  });

  const shardCount = shardCountFor(index.termCount());
  const shards: string[][] = Array.from({ length: shardCount }, () => []);
  const pairs: [number, number][] = [];
  const list: number[] = [];
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
  }

  const segments: Buffer[] = shards.map((entries) => Buffer.from("{" + entries.join(",") + "}\n", "utf8"));
  for (let i = 0; i < docs.length; i += DOCS_PER_CHUNK) {
    const chunk: DocChunkSegment = docs.slice(i, i + DOCS_PER_CHUNK).map((d) => [
      d.path,
      d.description,
      d.type,
      Math.round(d.updated / DAY_MS),
      d.project,
      [...new Set(d.linkTargets.flatMap((t) => index.resolveLink(t)).map((id) => dense[id]))].filter((n) => n >= 0).sort((a, b) => a - b),
    ]);
    segments.push(Buffer.from(JSON.stringify(chunk) + "\n", "utf8"));
  }

  let offset = 0;
  const records = segments.map((seg) => {
    // The trailing newline is not part of the segment's JSON or its hash.
    const rec = hex(offset, 10) + hex(seg.length - 1, 8) + hex(fnv1aBytes(seg, 0, seg.length - 1), 8);
    offset += seg.length;
    return rec;
  });
  if (records.some((r) => r.length !== RECORD_WIDTH)) throw new Error("snapshot too large for its record format");
  const table = Buffer.from(records.join("") + "\n", "utf8");

  const body = Buffer.concat([table, ...segments]);
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    tokenizer: TOKENIZER_VERSION,
    cards: docs.length,
    terms: index.termCount(),
    shards: shardCount,
    docChunks: segments.length - shardCount,
    bodyBytes: body.length,
    checksum: checksumOf(body),
    createdAt: now.toISOString(),
    rules: { ...rules, scoring: index.rules },
    index: index.indexOptions,
  };
  return Buffer.concat([Buffer.from(JSON.stringify(header) + "\n", "utf8"), body]);
}

export function writeSnapshot(path: string, index: MemoryIndex, rules: RecallRules, now = new Date()): SnapshotHeader {
  const bytes = serializeSnapshot(index, rules, now);
  writeFileAtomic(path, bytes);
  const headerEnd = bytes.indexOf(0x0a);
  return JSON.parse(bytes.subarray(0, headerEnd).toString("utf8")) as SnapshotHeader;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}
