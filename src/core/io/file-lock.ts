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
// Far longer than writing a token takes, even on a loaded machine.
const EMPTY_LOCK_MS = 2_000;
let host: string | undefined;

/**
 * Runs `fn` holding the lock at `path`. A lock appears whole or not at all (its token is written
 * beside it, then linked into place), so a full disk never leaves an empty lock that others wait
 * on; an empty one holds nothing once it is older than a token takes to write (an earlier
 * release's, cut short; without hard links a lock is empty for a moment as it is made). A lock
 * whose holder is a process of this computer that has ended is taken over at once, one older than
 * `staleMs` too.
 */
export function withFileLock<T>(path: string, fn: () => T, opts: FileLockOptions): T {
  const release = takeFileLock(path, opts);
  try {
    return fn();
  } finally {
    release();
  }
}

/** The lock is held by another process, and was for the whole wait. */
export class LockHeld extends Error {}

/**
 * Takes the lock at `path` as withFileLock does, for a holder whose work is not one synchronous
 * step (Obsidian's, which awaits its own write): the function that releases it.
 */
export function takeFileLock(path: string, opts: FileLockOptions): () => void {
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
    // An empty lock is one being made where hard links are missing (createExclusive writes its
    // token just after making it), or one an earlier release left cut short, which is old.
    if (held !== undefined && ((held === "" && age > EMPTY_LOCK_MS) || age > opts.staleMs || holderGone(held))) {
      takeOver(path, held, token, opts.staleMs);
      continue;
    }
    if (Date.now() - started >= opts.waitMs) throw new LockHeld(`${opts.what} is locked by another process (${path})`);
    Atomics.wait(pause, 0, 0, delay);
  }
  return () => {
    try {
      if (readTextFile(path, { maxBytes: 1024, noFollow: true }) === token) unlinkSync(path);
    } catch {
      /* moved aside as stale by another process: nothing of ours is left */
    }
  };
}

/**
 * Moves aside, never removes, the lock at `path` while it still holds `stale`. Takers take turns
 * by a second lock beside it (`.takeover`), held for a look and a rename: under it no other taker
 * moves the lock, and a lock is only ever placed where none is, so the lock looked at is the one
 * moved. Without turns, a taker that had looked at the stale lock could move aside the fresh one
 * another taker had just placed, and find a third's there when it put it back: two holders at
 * once, or a released lock put back, which held the others off until it went stale.
 */
function takeOver(path: string, stale: string, token: string, staleMs: number): void {
  const turn = `${path}.takeover`;
  if (!placeWhole(turn, token)) {
    clearDeadTurn(turn, staleMs);
    return;
  }
  try {
    let now: string;
    try {
      now = readTextFile(path, { maxBytes: 1024, noFollow: true });
    } catch {
      return; // released meanwhile
    }
    if (now === stale) renameSync(path, `${path}.stale-${token.replace(/\s/g, "-")}`);
  } finally {
    try {
      if (readTextFile(turn, { maxBytes: 1024, noFollow: true }) === token) unlinkSync(turn);
    } catch {
      /* cleared as dead by another taker: nothing of ours is left */
    }
  }
}

/**
 * Removes a turn left by a taker that died within its few system calls (its process ended, or it
 * is older than the lock may be). Looked at and removed in two steps: two processes clearing one
 * dead turn at the very same instant would need a death inside that instant first.
 */
function clearDeadTurn(turn: string, staleMs: number): void {
  try {
    const held = readTextFile(turn, { maxBytes: 1024, noFollow: true });
    if (Date.now() - statSync(turn).mtimeMs > staleMs || holderGone(held)) unlinkSync(turn);
  } catch {
    /* gone already */
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
