/** Full verification of a snapshot against its whole-body checksum: for tools and tests, never the hot path. */

import { readRegularFile } from "../io/read-file";
import type { SnapshotHeader } from "./format";
import { checksumOf } from "./checksum";
import { RECORD_WIDTH, parseRecord } from "./format";
import { fnv1aWords } from "../io/hash";
import { SnapshotError, SnapshotReader } from "./read";

export function verifySnapshot(path: string): SnapshotHeader {
  const reader = SnapshotReader.open(path);
  reader.close();
  // The whole file, as SnapshotReader.open found it: a regular file, bounded all the same.
  const bytes = readRegularFile(path, { maxBytes: 1 << 30 });
  const body = bytes.subarray(bytes.indexOf(0x0a) + 1);
  const sum = checksumOf(body);
  if (sum !== reader.header.checksum) throw new SnapshotError("corrupt", "snapshot does not match its checksum");
  // Each segment against its own hash in the table, so a report can say which part is damaged.
  const h = reader.header;
  const count = h.shards + h.docChunks + (h.catalog === 1 ? 1 : 0);
  const table = body.subarray(0, count * RECORD_WIDTH).toString("latin1");
  const segmentsStart = count * RECORD_WIDTH + 1;
  for (let i = 0; i < count; i++) {
    const record = parseRecord(table.slice(i * RECORD_WIDTH, (i + 1) * RECORD_WIDTH));
    if (!record || segmentsStart + record.offset + record.length > body.length) throw new SnapshotError("corrupt", `segment ${i} has a broken table record`);
    const start = segmentsStart + record.offset;
    if (fnv1aWords(body, start, start + record.length) !== record.hash) {
      throw new SnapshotError("corrupt", `segment ${i} does not match its checksum`);
    }
  }
  return h;
}
