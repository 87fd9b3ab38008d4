/**
 * A lock between processes for writes that take milliseconds: a file made exclusively, holding
 * its taker's token. Hooks and the MCP server are short synchronous steps, so waiting is a
 * sleep between tries, not a callback.
 */

import { closeSync, linkSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { FileRefused, readTextFile } from "./read-file";
import { createExclusive, noHardLinks } from "./atomic";

export interface FileLockOptions {
  /** A lock older than this was left by a process that died. */
  staleMs: number;
  /** Past this, give up and throw: the holder is stuck, not busy. */
  waitMs: number;
  /** What the lock guards, for the error that says it is held. */
  what: string;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
let host: string | undefined;

/**
 * Runs `fn` holding the lock at `path`. A lock appears whole or not at all (its token is written
 * beside it, then linked into place), so a full disk never leaves an empty lock that others wait
 * on; an empty one (an earlier release's, cut short) holds nothing. A lock whose holder is a
 * process of this computer that has ended is taken over at once, one older than `staleMs` too.
 */
export function withFileLock<T>(path: string, fn: () => T, opts: FileLockOptions): T {
  mkdirSync(dirname(path), { recursive: true });
  const started = Date.now();
  host ??= hostname();
  // Ours alone, so that release never removes a lock another process holds.
  const token = `${process.pid} ${host} ${started} ${Math.random().toString(36).slice(2)}`;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    if (placeWhole(path, token)) break;
    let held: string | undefined;
    let age = 0;
    try {
      held = readTextFile(path, { maxBytes: 1024, noFollow: true });
      age = Date.now() - statSync(path).mtimeMs;
    } catch (err) {
      if (released(err)) continue;
      // Something no lock is (a folder, a link, a file too large or unreadable): it holds the
      // path as a live lock would, waited for and then refused, never taken over.
      held = undefined;
    }
    if (held !== undefined && (held === "" || age > opts.staleMs || holderGone(held))) {
      // Moved aside, not removed, and only by one taker: the rename fails for the others.
      const aside = `${path}.stale-${token.replace(/\s/g, "-")}`;
      try {
        renameSync(path, aside);
        // Between the look and the rename another taker may have put a fresh lock there: that one
        // is live, so it goes back (a hard link fails if a lock already stands again).
        const moved = readTextFile(aside, { maxBytes: 1024, noFollow: true });
        if (moved !== held) {
          linkSync(aside, path);
          unlinkSync(aside);
        }
      } catch {
        /* another process took it over first */
      }
      continue;
    }
    if (Date.now() - started > opts.waitMs) throw new Error(`${opts.what} is locked by another process (${path})`);
    Atomics.wait(pause, 0, 0, delay);
  }
  try {
    return fn();
  } finally {
    try {
      if (readTextFile(path, { maxBytes: 1024, noFollow: true }) === token) unlinkSync(path);
    } catch {
      /* moved aside as stale by another process: nothing of ours is left */
    }
  }
}

/**
 * Makes `path` hold `token` if nothing is there, whole or not at all (written beside it, then
 * linked into place); false if something is. Throws, leaving nothing, when it cannot be written.
 */
export function placeWhole(path: string, token: string): boolean {
  const draft = `${path}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    const fd = openSync(draft, "wx");
    try {
      writeSync(fd, token);
    } finally {
      closeSync(fd);
    }
    linkSync(draft, path);
    return true;
  } catch (err) {
    // A file system without hard links: made in place, exclusively (see createExclusive).
    if (noHardLinks(err)) return createExclusive(path, token);
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return false;
  } finally {
    try {
      unlinkSync(draft);
    } catch {
      /* never made */
    }
  }
}

/** Whether reading the lock failed because it was released meanwhile: nothing is at the path. */
function released(err: unknown): boolean {
  return err instanceof FileRefused ? err.why === "missing" : (err as NodeJS.ErrnoException).code === "ENOENT";
}

/** Whether the token names a process of this computer that has ended. */
function holderGone(token: string): boolean {
  const [pid, of] = token.split(" ");
  const n = Number(pid);
  if (of !== host || !Number.isInteger(n) || n <= 0 || n === process.pid) return false;
  try {
    process.kill(n, 0);
    return false;
  } catch (err) {
    // EPERM: alive, and another account's.
    return (err as NodeJS.ErrnoException).code !== "EPERM";
  }
}
