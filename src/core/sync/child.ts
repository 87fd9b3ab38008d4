/**
 * Runs `sync` in a Node process of its own and follows it (io/bridge-child.ts), so that a window
 * waiting on the network never freezes.
 */

import { runBridgeChild } from "../io/bridge-child";
import type { VaultMemoryConfig } from "../config";
import type { SyncReport } from "./sync";

/** Names the shape of the last line, so a bridge of another release is told apart from a broken one. */
export const SYNC_CHILD_PROTOCOL = 1;

/** One line of `sync --json`: progress as it goes, then the report. */
export type SyncChildLine = { progress: string } | { warning: string } | { protocol: number; report: SyncReport };

/**
 * Past the longest a sync's own bounds allow (a minute for its lock, two for each fetch and push,
 * three retries), a sync that has not ended is stuck on something they do not bound.
 */
export const SYNC_CHILD_TIMEOUT_MS = 20 * 60_000;

export interface SyncChildOptions {
  /** The program that runs the bridge: Node, or Obsidian's own Electron with ELECTRON_RUN_AS_NODE. */
  node: string;
  /** The bridge's entry file (vault-memory.cjs). */
  bridge: string;
  vault: string;
  /** The settings the sync runs with, handed on stdin (`--config -`). */
  config: VaultMemoryConfig;
  env?: NodeJS.ProcessEnv;
  /** Past this the sync and everything it started (git, ssh) are killed; SYNC_CHILD_TIMEOUT_MS by default. */
  timeoutMs?: number;
  /** Stops it now, the same way the deadline does. */
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
}

/**
 * Starts `sync --json` and resolves with its report. Never rejects: a bridge that cannot start,
 * dies, prints something else or runs past its deadline resolves with a report that says so (ok:
 * false). A sync killed half-way is finished by the next one (see sync.ts, recover).
 */
export function runSyncChild(o: SyncChildOptions): Promise<SyncReport> {
  return runBridgeChild({
    ...o,
    args: ["sync", "--vault", o.vault, "--json", "--config", "-"],
    input: JSON.stringify(o.config),
    timeoutMs: o.timeoutMs ?? SYNC_CHILD_TIMEOUT_MS,
    what: "sync",
    afterStop: "; the next sync finishes what it began",
    protocol: SYNC_CHILD_PROTOCOL,
    isReport,
    failed,
  });
}

function failed(error: string): SyncReport {
  return { ok: false, error, committed: 0, received: 0, merged: [], conflicts: [], kept: [], regenerated: [], pushed: false, skipped: [] };
}

function isReport(v: unknown): v is SyncReport {
  const r = v as Partial<SyncReport> | undefined;
  return (
    !!r &&
    typeof r === "object" &&
    typeof r.ok === "boolean" &&
    typeof r.committed === "number" &&
    typeof r.received === "number" &&
    typeof r.pushed === "boolean" &&
    [r.merged, r.conflicts, r.kept, r.skipped].every(Array.isArray)
  );
}
