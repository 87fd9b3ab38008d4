/**
 * Runs `sync` in a Node process of its own and follows it, so that a window waiting on the
 * network never freezes; the same protocol as the digest's (digest/child.ts): one JSON line per
 * step, then the report.
 */

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { clearTimeout, setTimeout } from "node:timers";
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

// A report names a sync's files; past these, the output is not the bridge's.
const MAX_LINE_CHARS = 1 << 20;
const MAX_STDERR_CHARS = 4096;
// After the sync exits, something it left in the background (git's own housekeeping) may still hold
// its pipes for a moment; the report is in by then.
const DRAIN_MS = 1000;

/**
 * Starts `sync --json` and resolves with its report. Never rejects: a bridge that cannot start,
 * dies, prints something else or runs past its deadline resolves with a report that says so (ok:
 * false). A sync killed half-way is finished by the next one (see sync.ts, recover).
 */
export function runSyncChild(o: SyncChildOptions): Promise<SyncReport> {
  return new Promise((resolve) => {
    if (o.signal?.aborted) return resolve(failed("the sync was stopped before it started"));
    const args = [o.bridge, "sync", "--vault", o.vault, "--json", "--config", "-"];
    let child: ChildProcessWithoutNullStreams;
    try {
      // A process group of its own, so that a sync past its deadline goes with the git and ssh it started.
      child = spawn(o.node, args, { env: o.env ?? process.env, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32", windowsHide: true });
    } catch (err) {
      return resolve(failed(`could not start the sync: ${err instanceof Error ? err.message : String(err)}`));
    }
    follow(child, o, resolve);
  });
}

/** Reads the sync's lines until it ends, its deadline passes or it is stopped, and resolves once. */
function follow(child: ChildProcessWithoutNullStreams, o: SyncChildOptions, resolve: (r: SyncReport) => void): void {
  const lines = new SyncLines(o.onProgress);
  let done = false;
  let drain: NodeJS.Timeout | undefined;
  const finish = (r: SyncReport): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    clearTimeout(drain);
    o.signal?.removeEventListener("abort", onAbort);
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
    resolve(r);
  };
  const stop = (why: string): void => {
    killTree(child.pid);
    finish(failed(why));
  };
  const ms = o.timeoutMs ?? SYNC_CHILD_TIMEOUT_MS;
  const within = ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${ms / 1000} s`;
  const timer = setTimeout(() => stop(`the sync did not end within ${within} and was stopped; the next sync finishes what it began`), ms);
  const onAbort = (): void => stop("the sync was stopped; the next sync finishes what it began");
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const ended = (code: number | null, signal: NodeJS.Signals | null): void => finish(lines.result(code, signal));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => lines.stdout(chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => lines.stderr(chunk));
  child.on("error", (err) => finish(failed(`could not start the sync: ${err.message}`)));
  child.on("exit", (code, signal) => {
    drain = setTimeout(() => ended(code, signal), DRAIN_MS);
  });
  child.on("close", ended);
  child.stdin.on("error", () => {
    /* a bridge that exits before reading its settings is reported by "close" */
  });
  child.stdin.end(JSON.stringify(o.config));
}

/** What the sync printed: its progress handed on as it comes, its report kept, anything else noted. */
class SyncLines {
  private report: SyncReport | undefined;
  private broken = "";
  private pending = "";
  private err = "";

  constructor(private readonly onProgress?: (line: string) => void) {}

  stdout(chunk: string): void {
    this.pending += chunk;
    let nl: number;
    while ((nl = this.pending.indexOf("\n")) >= 0) {
      this.take(this.pending.slice(0, nl));
      this.pending = this.pending.slice(nl + 1);
    }
    if (this.pending.length > MAX_LINE_CHARS) {
      this.broken ||= "a line longer than the bridge ever prints";
      this.pending = "";
    }
  }

  stderr(chunk: string): void {
    this.err = (this.err + chunk).slice(-MAX_STDERR_CHARS);
  }

  /** The report, or why there is none, once the sync has ended. */
  result(code: number | null, signal: NodeJS.Signals | null): SyncReport {
    this.take(this.pending);
    this.pending = "";
    if (this.report) return this.report;
    if (this.broken) return failed(`the bridge printed something that is not the sync's: ${this.broken}`);
    const last = this.err.trim() ? `: ${this.err.trim().split("\n").pop()}` : "";
    return failed(`the sync ended (${signal ?? `exit ${String(code)}`}) without a report${last}`);
  }

  private take(line: string): void {
    if (line.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.broken ||= line.slice(0, 200);
      return;
    }
    const l = parsed as Partial<{ progress: unknown; warning: unknown; protocol: unknown; report: SyncReport }>;
    if (typeof l.progress === "string") this.onProgress?.(l.progress);
    else if (typeof l.warning === "string") this.onProgress?.(`warning: ${l.warning}`);
    else if (l.protocol === SYNC_CHILD_PROTOCOL && isReport(l.report)) this.report = l.report;
    else this.broken ||= line.slice(0, 200);
  }
}

function failed(error: string): SyncReport {
  return { ok: false, error, committed: 0, received: 0, merged: [], conflicts: [], kept: [], regenerated: [], pushed: false, skipped: [] };
}

/** Kills the sync's process group (Windows: its tree), so that no git or ssh it started waits on. */
function killTree(pid: number | undefined): void {
  if (!pid) return;
  if (process.platform === "win32") {
    spawnSync("taskkill", ["/pid", String(pid), "/T", "/F"], { windowsHide: true });
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    /* gone already */
  }
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
