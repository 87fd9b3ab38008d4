/**
 * A session start's sync: when this computer's settings turn sync on, the other computers' cards
 * are pulled (and this one's pushed) by a `sync` in a process of its own, so the session never
 * waits on the network. At most once an hour, and never beside a sync still running.
 */

import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { readSyncStatus, syncLockPath } from "../../src/core/sync/sync";

const EVERY_MS = 60 * 60_000;
// A sync's lock older than this was left by one that died (see sync.ts, LOCK).
const LOCK_STALE_MS = 30 * 60_000;

/** Whether a background sync is due: none in the last hour, none running. */
export function syncDue(vault: string, now = Date.now()): boolean {
  const last = readSyncStatus(vault);
  if (last && now - Date.parse(last.finishedAt) < EVERY_MS) return false;
  try {
    if (now - statSync(syncLockPath(vault)).mtimeMs < LOCK_STALE_MS) return false;
  } catch {
    /* no lock: none running */
  }
  return true;
}

/** Starts `sync` detached when one is due; what to log. */
export function startSync(vault: string, bridge: string, configFlag?: string): string {
  if (!syncDue(vault)) return "";
  const child = spawn(process.execPath, [bridge, "sync", "--vault", vault, ...(configFlag ? ["--config", configFlag] : [])], {
    detached: true,
    stdio: "ignore",
    windowsHide: true,
  });
  child.unref();
  return child.pid !== undefined ? "started a sync with the vault's remote in the background" : "";
}
