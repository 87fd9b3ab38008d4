/** Serialises the live index into a snapshot file, and writes it atomically. */

import type { MemoryIndex } from "../index/memory-index";
import { TOKENIZER_VERSION } from "../text/tokenizer";
import { fnv1aBytes, fnv1aString } from "../io/hash";
import { checksumOf } from "./checksum";
import { writeFileAtomic } from "../io/atomic";
import {
  DOCS_PER_CHUNK,
  RECORD_WIDTH,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  shardCountFor,
  type DocChunkSegment,
  type RecallRules,
  type SnapshotHeader,
} from "./format";

/** `rules.scoring` must be the index's own: impacts are computed with the index's rules. */
export function serializeSnapshot(index: MemoryIndex, rules: RecallRules, now = new Date()): Buffer {
  // Dense ids in path order: the snapshot is the same bytes for the same vault, whatever the edit history.
  const docs = [...index.docs()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const dense = new Map<number, number>();
  docs.forEach((d, i) => dense.set(d.id, i));

  const shardCount = shardCountFor(index.termCount());
  const shards = Array.from({ length: shardCount }, () => new Map<string, number[]>());
  for (const [term, ids] of index.termEntries()) {
    const list: number[] = [];
    const sorted = [...ids].map((id) => dense.get(id) ?? -1).filter((id) => id >= 0).sort((a, b) => a - b);
    for (const id of sorted) list.push(id, index.impact(term, docs[id], sorted.length));
    shards[fnv1aString(term) % shardCount].set(term, list);
  }

  const segments: Buffer[] = shards.map((m) => Buffer.from(JSON.stringify(Object.fromEntries(m)) + "\n", "utf8"));
  for (let i = 0; i < docs.length; i += DOCS_PER_CHUNK) {
    const chunk: DocChunkSegment = docs.slice(i, i + DOCS_PER_CHUNK).map((d) => [d.path, d.description]);
    segments.push(Buffer.from(JSON.stringify(chunk) + "\n", "utf8"));
  }

  let offset = 0;
  const records = segments.map((seg) => {
    // The trailing newline is not part of the segment's JSON or its hash.
    const rec = hex(offset, 10) + hex(seg.length - 1, 8) + hex(fnv1aBytes(seg, 0, seg.length - 1), 8);
    offset += seg.length;
    return rec;
  });
  const table = Buffer.from(records.join("") + "\n", "utf8");
  if (records.some((r) => r.length !== RECORD_WIDTH)) throw new Error("snapshot too large for its record format");

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
