/** A file's first line, read with one bounded read: the snapshot's header. */

import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "./read-file";

/** The text before the first newline within `maxBytes`, or all of those bytes when there is none. */
export function firstLine(path: string, maxBytes: number): string {
  // Not blocking, and a regular file only: a FIFO would hang the reader (throws FileRefused).
  const { fd } = openRegularFile(path);
  try {
    const buf = Buffer.allocUnsafe(maxBytes);
    const n = readSync(fd, buf, 0, maxBytes, 0);
    const nl = buf.subarray(0, n).indexOf(0x0a);
    return buf.toString("utf8", 0, nl < 0 ? n : nl);
  } finally {
    closeSync(fd);
  }
}
