/** One digest or enrich run at a time, across Obsidian windows and synced machines: a lock file that goes stale. */

import { hostname } from "node:os";
import { mkdirSync, renameSync, unlinkSync } from "node:fs";
import { placeWhole } from "../io/file-lock";
import { readTextFile } from "../io/read-file";
import { dirname } from "node:path";

// A digest of a few dozen entries takes minutes; one holding the lock this long has died.
export const STALE_MS = 2 * 3_600_000;
// Taking over a stale lock takes milliseconds; a takeover mark this old was left by a crash.
const TAKEOVER_STALE_MS = 10 * 60_000;

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

export type LockResult = { ok: true } | { ok: false; holder: LockInfo };

/**
 * Takes the lock, or says who holds it. A stale lock (older than STALE_MS, or held by a process of
 * this computer that is gone) is moved aside and taken over.
 *
 * Two takers that find the same stale lock must not both win: the one that moved it aside and
 * made its own would otherwise see its fresh lock moved aside by the other a moment later. So a
 * takeover is done under a second mark, made the same no-clobber way, which only one can make;
 * and a lock is made whole before it appears (written beside it, then linked into place), so no
 * reader ever judges a half-written lock to be stale. `duringTakeover` lets a test run a rival in
 * the middle of one.
 */
export function acquireLock(path: string, now = Date.now(), duringTakeover?: () => void): LockResult {
  mkdirSync(dirname(path), { recursive: true });
  const mine: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date(now).toISOString() };
  if (place(path, mine)) return { ok: true };
  const holder = readHolder(path);
  if (holder && !isStale(holder, now)) return { ok: false, holder };
  const takeover = `${path}.takeover`;
  if (!place(takeover, mine)) {
    const other = readHolder(takeover);
    // A takeover mark left by a crash would block every digest for good.
    if (!other || now - Date.parse(other.startedAt) < TAKEOVER_STALE_MS) return { ok: false, holder: other ?? holder ?? unknownHolder() };
    moveAside(takeover, now);
    if (!place(takeover, mine)) return { ok: false, holder: readHolder(takeover) ?? unknownHolder() };
  }
  try {
    duringTakeover?.();
    // Judged again under the mark: the lock may have been released and taken since.
    const current = readHolder(path);
    if (current && !isStale(current, now)) return { ok: false, holder: current };
    const aside = moveAside(path, now);
    // Between reading it and moving it, the stale lock may have been released and a live one
    // made: that one goes back, and its holder keeps it.
    const moved = aside ? readHolder(aside) : undefined;
    if (aside && moved && !isStale(moved, now)) {
      place(path, moved);
      return { ok: false, holder: moved };
    }
    return place(path, mine) ? { ok: true } : { ok: false, holder: readHolder(path) ?? unknownHolder() };
  } finally {
    release(takeover, mine);
  }
}

export function releaseLock(path: string): void {
  release(path, { pid: process.pid, host: hostname() });
}

/** Removes the lock at `path` if `who` holds it. */
function release(path: string, who: Pick<LockInfo, "pid" | "host">): void {
  try {
    const holder = readHolder(path);
    if (holder && holder.pid === who.pid && holder.host === who.host) unlinkSync(path);
  } catch {
    /* already released */
  }
}

/** Makes `path` hold `info` if nothing is there, whole or not at all; false if something is. */
function place(path: string, info: LockInfo): boolean {
  return placeWhole(path, JSON.stringify(info));
}

function isStale(holder: LockInfo, now: number): boolean {
  const started = Date.parse(holder.startedAt);
  if (!Number.isFinite(started) || now - started >= STALE_MS) return true;
  // A process of this computer that has ended holds nothing, however recent its lock.
  return holder.host === hostname() && holder.pid !== process.pid && !alive(holder.pid);
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, and another account's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Nothing is deleted: a stale lock is kept beside the live one, for whoever wonders what died.
 * Where it went, or undefined when nothing was there.
 */
function moveAside(path: string, now: number): string | undefined {
  const aside = `${path}.stale-${now}-${process.pid}`;
  try {
    renameSync(path, aside);
    return aside;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    return undefined;
  }
}

function unknownHolder(): LockInfo {
  return { pid: 0, host: "?", startedAt: "?" };
}

function readHolder(path: string): LockInfo | undefined {
  try {
    // A line of JSON; a lock that is not one (a FIFO, a huge file) holds nothing, and goes aside as stale.
    const v = JSON.parse(readTextFile(path, { maxBytes: 1 << 16 })) as Partial<LockInfo> | null;
    return v && typeof v.pid === "number" && typeof v.host === "string" && typeof v.startedAt === "string" ? (v as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}
