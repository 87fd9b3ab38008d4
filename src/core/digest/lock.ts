/** One digest at a time, across Obsidian windows and synced machines: a lock file that goes stale. */

import { hostname } from "node:os";
import { closeSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { readTextFile } from "../io/read-file";
import { dirname } from "node:path";

// A digest of a few dozen entries takes minutes; one holding the lock this long has died.
export const STALE_MS = 2 * 3_600_000;

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

/** Takes the lock, or says who holds it. A stale lock is moved aside and taken over. */
export function acquireLock(path: string, now = Date.now()): { ok: true } | { ok: false; holder: LockInfo } {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date(now).toISOString() } satisfies LockInfo));
      closeSync(fd);
      return { ok: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = readHolder(path);
      if (holder && now - Date.parse(holder.startedAt) < STALE_MS) return { ok: false, holder };
      renameSync(path, `${path}.stale-${now}`);
    }
  }
  const holder = readHolder(path);
  return { ok: false, holder: holder ?? { pid: 0, host: "?", startedAt: "?" } };
}

export function releaseLock(path: string): void {
  try {
    const holder = readHolder(path);
    if (holder && holder.pid === process.pid && holder.host === hostname()) unlinkSync(path);
  } catch {
    /* already released */
  }
}

function readHolder(path: string): LockInfo | undefined {
  try {
    // A line of JSON; a lock that is not one (a FIFO, a huge file) holds nothing, and goes aside as stale.
    return JSON.parse(readTextFile(path, { maxBytes: 1 << 16 })) as LockInfo;
  } catch {
    return undefined;
  }
}
