/** Writes that a crash or a concurrent reader never sees half-done: temp file, fsync, rename. */

import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";

let counter = 0;

/** pid + counter + time: two processes, or two writes in one process, never share a temp name. */
export function tempPathFor(path: string): string {
  return `${path}.${process.pid}.${counter++}.${Date.now().toString(36)}.tmp`;
}

/**
 * `data` may be given in parts, written in order, so that a large file need not be joined in memory
 * first. `mode` is for replacing a file whose permissions matter: the rename would otherwise swap
 * them for the umask's default.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[], opts: { mode?: number } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  try {
    const fd = openSync(tmp, "w", opts.mode);
    try {
      // Set before any byte is written, and exactly: the umask may have taken bits off at open.
      if (opts.mode !== undefined) fchmodSync(fd, opts.mode);
      for (const part of typeof data === "string" ? [Buffer.from(data, "utf8")] : data instanceof Uint8Array ? [data] : data) writeAll(fd, part);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    // The temp file is ours and holds nothing the user wrote: a full disk must not keep it.
    try {
      unlinkSync(tmp);
    } catch {
      /* never made, or already gone */
    }
    throw err;
  }
}

// writeSync may write less than asked for a large buffer; the rest must follow.
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}
