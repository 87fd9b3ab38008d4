/**
 * A session start's sync: when this computer's settings turn sync on, the other computers' cards
 * are pulled (and this one's pushed) by a `sync` in a process of its own, so the session never
 * waits on the network. At most once an hour, and never beside a sync still running.
 */

import { spawn } from "node:child_process";
import { syncDue } from "../../src/core/sync/sync";

const EVERY_MS = 60 * 60_000;

/** Starts `sync` detached when one is due; what to log. */
export function startSync(vault: string, bridge: string, configFlag?: string): string {
  if (!syncDue(vault, EVERY_MS)) return "";
  const child = spawn(process.execPath, [bridge, "sync", "--vault", vault, ...(configFlag ? ["--config", configFlag] : [])], {
    detached: true,
    stdio: "ignore",
    windowsHide: true,
  });
  child.unref();
  return child.pid !== undefined ? "started a sync with the vault's remote in the background" : "";
}
