/** Writes that a crash or a concurrent reader never sees half-done: temp file, fsync, rename. */

import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { openRegularFile, readRegularFile } from "./read-file";

let counter = 0;

/** pid + counter + time: two processes, or two writes in one process, never share a temp name. */
export function tempPathFor(path: string): string {
  return `${path}.${process.pid}.${counter++}.${Date.now().toString(36)}.tmp`;
}

/**
 * Removes the temporary files beside `path` that a writer killed mid-write left (kill -9, a
 * power cut): ours by their name (tempPathFor), each of a process of this computer that has
 * ended. A snapshot's are megabytes, and nothing else would ever remove them. They hold nothing
 * anyone wrote: a whole copy of the file is at `path`, or was never made.
 */
export function sweepTemps(path: string): void {
  const name = basename(path);
  let entries: string[];
  try {
    entries = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const e of entries) {
    if (!e.startsWith(`${name}.`) || !e.endsWith(".tmp")) continue;
    const m = /^\.(\d+)\.\d+\.[0-9a-z]+\.tmp$/.exec(e.slice(name.length));
    if (!m || !ended(Number(m[1]))) continue;
    try {
      unlinkSync(join(dirname(path), e));
    } catch {
      /* another sweeper took it */
    }
  }
}

/** Whether no process of this computer has this id any more (another account's still counts as running). */
export function ended(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * `data` may be given in parts, written in order, so that a large file need not be joined in memory
 * first. `mode` is for replacing a file whose permissions matter: the rename would otherwise swap
 * them for the umask's default.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[], opts: { mode?: number } = {}): void {
  writeThen(path, data, opts, (tmp) => renameSync(tmp, path));
}

/**
 * Writes `data` at `path` only when nothing is there, whole or not at all: false when something
 * is (a file, a folder, a link, even one that leads nowhere). Two processes creating the same
 * path each get a file of their own by trying the next name on false; a rename would let the
 * second replace the first.
 */
export function writeFileExclusive(path: string, data: string | Uint8Array): boolean {
  let placed = true;
  let linkless = false;
  writeThen(path, data, {}, (tmp) => {
    try {
      linkSync(tmp, path);
    } catch (err) {
      if (noHardLinks(err)) linkless = true;
      else if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      else placed = false;
    }
    unlinkSync(tmp);
  });
  return linkless ? createExclusive(path, data) : placed;
}

/**
 * Whether a hard link failed because the file system has none (FAT and exFAT drives, some network
 * and cloud-drive mounts): the writers then create in place, exclusively, which every file system has.
 */
export function noHardLinks(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS" || code === "EXDEV" || code === "EMLINK";
}

/**
 * Creates `path` holding `data` only when nothing is there (false when something is), without a
 * hard link: the file appears empty for a moment, and is removed again if it cannot be written whole.
 */
export function createExclusive(path: string, data: string | Uint8Array): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    try {
      writeAll(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    unlinkSync(path);
    throw err;
  }
  return true;
}

/** The file at the path no longer holds what it held when it was read: someone wrote it since. */
export class ChangedSince extends Error {}

/**
 * Replaces the file at `path` with `next` only while it still holds `expected`, byte for byte:
 * the new text is written whole beside it first, then the file is read again and compared just
 * before the rename, so a person's save in between is never overwritten by text made from an
 * earlier read (their editor's time alone cannot say so: a save within the same tick keeps it).
 * Throws ChangedSince, leaving the file as it is, when it changed.
 *
 * No system call compares and renames at once, so a save can still land between the comparison
 * and the rename. What was at the path just before the rename is held by a second name, and the
 * file compared is kept open: when either turns out to be not what was compared (an editor that
 * saves by rename put a new file there, or one that saves in place wrote into the old one), the
 * text saved is returned, for the caller to make its change to that text and replace its own
 * with it. Undefined when nothing came in between.
 */
export function replaceIfUnchanged(
  path: string,
  expected: string,
  next: string,
  opts: { maxBytes?: number; afterCompare?: () => void } = {},
): string | undefined {
  return replaceBytesIfUnchanged(path, Buffer.from(expected, "utf8"), next, opts)?.toString("utf8");
}

/** replaceIfUnchanged for any file, a picture as well as a note: the bytes it must hold, and the bytes of a save that came in. */
export function replaceBytesIfUnchanged(
  path: string,
  want: Uint8Array,
  next: string | Uint8Array,
  opts: { maxBytes?: number; afterCompare?: () => void } = {},
): Buffer | undefined {
  const maxBytes = opts.maxBytes ?? 8 << 20;
  let saved: Buffer | undefined;
  writeThen(path, next, {}, (tmp) => {
    const { fd, st } = openRegularFile(path, { noFollow: true });
    try {
      if (st.size > maxBytes || !readAll(fd, st.size).equals(want)) throw new ChangedSince(`${path} changed since it was read`);
      // A test's save just after the comparison; nothing otherwise.
      opts.afterCompare?.();
      let hold: string | undefined = `${tmp}.held`;
      try {
        linkSync(path, hold);
      } catch (err) {
        // The file compared was replaced just now (a link to a file that is gone fails): read again.
        if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new ChangedSince(`${path} changed since it was read`);
        // A file system without hard links: the file held open still tells of a save in place.
        if (!noHardLinks(err)) throw err;
        hold = undefined;
      }
      try {
        renameSync(tmp, path);
        const held = hold === undefined ? undefined : statSync(hold);
        const after = fstatSync(fd);
        if (held && (held.ino !== st.ino || held.dev !== st.dev)) saved = readRegularFile(hold!, { maxBytes, noFollow: true });
        else if (after.size !== st.size || after.mtimeMs !== st.mtimeMs) saved = readAll(fd, Math.min(after.size, maxBytes));
      } finally {
        if (hold !== undefined) unlinkSync(hold);
      }
    } finally {
      closeSync(fd);
    }
  });
  return saved;
}

/**
 * replaceIfUnchanged for a caller that cannot make its change again to a newer text (an archive
 * mark, a merge, an edit asked for by Claude): when a save came in just as the file was replaced,
 * the save is put back in place of ours and ChangedSince is thrown. The change is then not made,
 * and nothing of the person's is lost.
 */
export function replaceOrGiveBack(path: string, expected: string, next: string, opts: { afterCompare?: () => void } = {}): void {
  replaceBytesOrGiveBack(path, Buffer.from(expected, "utf8"), Buffer.from(next, "utf8"), opts);
}

/** replaceOrGiveBack for any file: the bytes it must hold and the bytes to put in their place. */
export function replaceBytesOrGiveBack(
  path: string,
  expected: Uint8Array,
  next: Uint8Array,
  opts: { maxBytes?: number; afterCompare?: () => void } = {},
): void {
  let saved = replaceBytesIfUnchanged(path, expected, next, opts);
  if (saved === undefined) return;
  // What is on disk now is ours; each save that lands as it is given back is given back in turn.
  let ours = next;
  for (let tries = 0; saved !== undefined && tries < 8; tries++) {
    const theirs: Buffer = saved;
    try {
      saved = replaceBytesIfUnchanged(path, ours, theirs, { maxBytes: opts.maxBytes });
    } catch (err) {
      // Saved again since: the newer save is in place, and ours is gone.
      if (err instanceof ChangedSince) break;
      throw err;
    }
    ours = theirs;
  }
  throw new ChangedSince(`${path} was saved while it was being written; it holds that save`);
}

/**
 * Rewrites the text file at `path` by `edit`, never over a save made since it was read: `read`
 * gives the text as it is (undefined when there is no file), `edit` the text to write (undefined
 * to leave it). A missing file is created only where none is; an existing one is replaced only
 * while it holds what was read, and made again from a save that comes in between. For a file both
 * we and the person write (MEMORY.md outside its markers, the synonyms note, a card). Whether it
 * wrote; throws ChangedSince when the file changed on every try. `landed` is shown a save that came
 * in just as the file was replaced, before the change is made to it again; it throws to stop there,
 * the file then holding our text.
 */
export function rewriteText(
  path: string,
  read: () => string | undefined,
  edit: (text: string | undefined) => string | undefined,
  landed: (saved: string) => void = () => {},
): boolean {
  // `base` is the text the change is made to; `current` what the file holds, which is our own
  // text when a save came in just as it was replaced. Read again at the start of a try after the
  // file changed, never after the last: what it holds then is not looked at.
  let base: string | undefined;
  let current: string | undefined;
  let stale = true;
  for (let tries = 0; tries < 8; tries++) {
    if (stale) {
      base = current = read();
      stale = false;
    }
    const next = edit(base);
    if (next === undefined || next === current) return false;
    if (current === undefined) {
      if (writeFileExclusive(path, next)) return true;
      stale = true;
      continue;
    }
    let saved: string | undefined;
    try {
      saved = replaceIfUnchanged(path, current, next);
    } catch (err) {
      if (!(err instanceof ChangedSince)) throw err;
      stale = true;
      continue;
    }
    if (saved === undefined) return true;
    current = next;
    landed(saved);
    base = saved;
  }
  throw new ChangedSince(`${path} kept changing while it was being written`);
}

function readAll(fd: number, size: number): Buffer {
  const buf = Buffer.alloc(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The temporary file written and synced, then handed to `place`; removed if anything fails. */
function writeThen(path: string, data: string | Uint8Array | readonly Uint8Array[], opts: { mode?: number }, place: (tmp: string) => void): void {
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
    place(tmp);
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
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}
