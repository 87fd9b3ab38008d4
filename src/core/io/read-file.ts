/**
 * Reads a file that anyone may have put at its path: only a regular file, opened without blocking
 * (a FIFO would hang the reader) and checked again once open (it may have been swapped in
 * between), at most `maxBytes`. A link is followed unless `noFollow`.
 */

import { closeSync, constants, fstatSync, openSync, read, readSync, statSync, type Stats } from "node:fs";

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
    throw new FileRefused(
      code === "ENOENT" ? `${path} does not exist` : `${path} cannot be read: ${(err as Error).message}`,
      code === "ENOENT" ? "missing" : "unreadable",
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FileRefused(`${path} is not a regular file (${kindOf(st)})`, "not-regular");
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** What a path that is not a regular file is, for the line that says why it was not read. */
export function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSymbolicLink()) return "a link";
  return "not a file";
}

/** A size for a person: "8 MB", "64 KB", "100 bytes". */
export function sizeText(bytes: number): string {
  return bytes >= 1 << 20 ? `${+(bytes / (1 << 20)).toFixed(1)} MB` : bytes >= 1 << 10 ? `${+(bytes / (1 << 10)).toFixed(1)} KB` : `${bytes} bytes`;
}

export interface ReadOptions {
  maxBytes: number;
  noFollow?: boolean;
  /** Refuses the open file by its stat, with a reason (an owner or mode that is not the person's). */
  check?: (st: Stats) => string;
  /** Past maxBytes, the last maxBytes rather than a refusal: for a log read for its latest lines. */
  tail?: boolean;
}

/**
 * The file's bytes. `check` sees the open file's stat before anything is read and may refuse it
 * by returning a reason (an owner or mode that is not the person's).
 */
export function readRegularFile(path: string, opts: ReadOptions): Buffer {
  const { fd, st } = openRegularFile(path, opts);
  try {
    if (st.size > opts.maxBytes && !opts.tail) throw new FileRefused(`${path} is over ${sizeText(opts.maxBytes)}`, "too-large");
    const why = opts.check?.(st);
    if (why) throw new FileRefused(why, "refused");
    const size = Math.min(st.size, opts.maxBytes);
    return readAt(fd, st.size - size, size);
  } finally {
    closeSync(fd);
  }
}

/** Up to `size` bytes of the open file from `from`: fewer if it ends first. */
export function readAt(fd: number, from: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, from + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** readAt off the main thread: for a window that must not wait on a large read. */
export async function readAtAsync(fd: number, from: number, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = await new Promise<number>((resolve, reject) => read(fd, buf, got, size - got, from + got, (err, bytes) => (err ? reject(err) : resolve(bytes))));
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** readRegularFile as UTF-8 text. */
export function readTextFile(path: string, opts: ReadOptions): string {
  return readRegularFile(path, opts).toString("utf8");
}

/** readTextFile, or undefined when nothing is at the path; any other refusal throws, saying why. */
export function readTextIfAny(path: string, opts: ReadOptions): string | undefined {
  try {
    return readTextFile(path, opts);
  } catch (err) {
    if (err instanceof FileRefused && err.why === "missing") return undefined;
    throw err;
  }
}

/** A file as stat sees it (inode, size, modification time), to tell whether it changed; "" for no file. */
export function fileIdentity(path: string): string {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return "";
  }
}
