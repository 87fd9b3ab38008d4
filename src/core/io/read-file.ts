/**
 * Reads a file that anyone may have put at its path: only a regular file, opened without blocking
 * (a FIFO would hang the reader) and checked again once open (it may have been swapped in
 * between), at most `maxBytes`. A link is followed unless `noFollow`.
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

export class FileRefused extends Error {
  constructor(
    message: string,
    /** "missing" when there is no file at the path. */
    readonly why: "missing" | "not-regular" | "too-large" | "refused" | "unreadable",
  ) {
    super(message);
  }
}

/**
 * Opens a file for reading the way readRegularFile does: without blocking (a FIFO would hang the
 * reader), then refused unless the open file is a regular file. For readers that take only parts
 * of a file (a snapshot's segments, the vectors); the caller closes the descriptor.
 */
export function openRegularFile(path: string, opts: { noFollow?: boolean } = {}): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (opts.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new FileRefused(code === "ENOENT" ? `${path} does not exist` : `${path} cannot be read: ${(err as Error).message}`, code === "ENOENT" ? "missing" : "unreadable");
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FileRefused(`${path} is not a regular file`, "not-regular");
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * The file's bytes. `check` sees the open file's stat before anything is read and may refuse it
 * by returning a reason (an owner or mode that is not the person's).
 */
export function readRegularFile(path: string, opts: { maxBytes: number; noFollow?: boolean; check?: (st: Stats) => string }): Buffer {
  const { fd, st } = openRegularFile(path, opts);
  try {
    if (st.size > opts.maxBytes) throw new FileRefused(`${path} is over ${opts.maxBytes >= 1 << 20 ? `${opts.maxBytes >> 20} MB` : `${opts.maxBytes} bytes`}`, "too-large");
    const why = opts.check?.(st);
    if (why) throw new FileRefused(why, "refused");
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}


/**
 * The last `maxBytes` of a regular file (all of it when smaller), opened as readRegularFile opens
 * one: for logs that only grow, whose latest lines are what a reader wants. The first line may
 * start mid-line.
 */
export function readRegularFileTail(path: string, maxBytes: number): Buffer {
  const { fd, st } = openRegularFile(path);
  try {
    const size = Math.min(st.size, maxBytes);
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, st.size - size + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
