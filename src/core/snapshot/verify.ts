/** Full verification of a snapshot against its whole-body checksum: for tools and tests, never the hot path. */

import { readFileSync } from "node:fs";
import type { SnapshotHeader } from "./format";
import { checksumOf } from "./checksum";
import { SnapshotError, SnapshotReader } from "./read";

export function verifySnapshot(path: string): SnapshotHeader {
  const reader = SnapshotReader.open(path);
  reader.close();
  const bytes = readFileSync(path);
  const body = bytes.subarray(bytes.indexOf(0x0a) + 1);
  const sum = checksumOf(body);
  if (sum !== reader.header.checksum) throw new SnapshotError("corrupt", "snapshot does not match its checksum");
  return reader.header;
}
