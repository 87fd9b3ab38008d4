/**
 * Runs one of the bridge's commands with `--json` in a Node process of its own and follows it, so
 * that a window waiting on it never freezes: one JSON line per step (progress, warning), then the
 * report, marked with the command's protocol number. Obsidian's digest, sync and import use it.
 */

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { clearTimeout, setTimeout } from "node:timers";

export interface BridgeChildOptions<R> {
  /** The program that runs the bridge: Node, or Obsidian's own Electron with ELECTRON_RUN_AS_NODE. */
  node: string;
  /** The bridge's entry file (vault-memory.cjs). */
  bridge: string;
  /** The command line after the entry file, `--json` among it. */
  args: readonly string[];
  /** What the command reads on stdin (the settings, with `--config -`). */
  input: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Past this the command and everything it started are killed. None: it ends on its own (the
   * digest, whose every LLM call has its own deadline, and which holds the vault's lock and writes
   * its status as it goes: stopped half way, it would waste the call it was in).
   */
  timeoutMs?: number;
  /** Stops it now, the same way the deadline does. */
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  /** The command's name in what is said of it ("the sync"). */
  what: string;
  /** Said after "was stopped": what becomes of the work it left ("; the next sync finishes what it began"). */
  afterStop?: string;
  protocol: number;
  isReport: (v: unknown) => v is R;
  /** The report that says the command failed, and why. */
  failed: (error: string) => R;
}

// A report names files; past these, the output is not the bridge's.
const MAX_LINE_CHARS = 1 << 20;
const MAX_STDERR_CHARS = 4096;
// After the command exits, something it left in the background (git's own housekeeping) may still
// hold its pipes for a moment; the report is in by then.
const DRAIN_MS = 1000;

/**
 * Starts the command and resolves with its report. Never rejects: a bridge that cannot start, dies,
 * prints something else or runs past its deadline resolves with a report that says so.
 */
export function runBridgeChild<R>(o: BridgeChildOptions<R>): Promise<R> {
  return new Promise((resolve) => {
    if (o.signal?.aborted) return resolve(o.failed(`the ${o.what} was stopped before it started`));
    let child: ChildProcessWithoutNullStreams;
    try {
      // A process group of its own, so that a command past its deadline goes with what it started (git, ssh).
      child = spawn(o.node, [o.bridge, ...o.args], {
        env: o.env ?? process.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: process.platform !== "win32",
        windowsHide: true,
      });
    } catch (err) {
      return resolve(o.failed(`could not start the ${o.what}: ${err instanceof Error ? err.message : String(err)}`));
    }
    follow(child, o, resolve);
  });
}

/** Reads the command's lines until it ends, its deadline passes or it is stopped, and resolves once. */
function follow<R>(child: ChildProcessWithoutNullStreams, o: BridgeChildOptions<R>, resolve: (r: R) => void): void {
  const lines = new ChildLines(o);
  let done = false;
  let drain: NodeJS.Timeout | undefined;
  const finish = (r: R): void => {
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
    finish(o.failed(why));
  };
  const ms = o.timeoutMs;
  const within = ms === undefined ? "" : ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${ms / 1000} s`;
  const timer = ms === undefined ? undefined : setTimeout(() => stop(`the ${o.what} did not end within ${within} and was stopped${o.afterStop ?? ""}`), ms);
  const onAbort = (): void => stop(`the ${o.what} was stopped${o.afterStop ?? ""}`);
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const ended = (code: number | null, signal: NodeJS.Signals | null): void => finish(lines.result(code, signal));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => lines.stdout(chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => lines.stderr(chunk));
  child.on("error", (err) => finish(o.failed(`could not start the ${o.what}: ${err.message}`)));
  child.on("exit", (code, signal) => {
    drain = setTimeout(() => ended(code, signal), DRAIN_MS);
  });
  child.on("close", ended);
  child.stdin.on("error", () => {
    /* a bridge that exits before reading its input is reported by "close" */
  });
  child.stdin.end(o.input);
}

/** What the command printed: its progress handed on as it comes, its report kept, anything else noted. */
class ChildLines<R> {
  private report: R | undefined;
  private broken = "";
  private pending = "";
  private err = "";

  constructor(private readonly o: BridgeChildOptions<R>) {}

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

  /** The report, or why there is none, once the command has ended. */
  result(code: number | null, signal: NodeJS.Signals | null): R {
    this.take(this.pending);
    this.pending = "";
    if (this.report) return this.report;
    if (this.broken) return this.o.failed(`the bridge printed something that is not the ${this.o.what}'s: ${this.broken}`);
    const last = this.err.trim() ? `: ${this.err.trim().split("\n").pop()}` : "";
    return this.o.failed(`the ${this.o.what} ended (${signal ?? `exit ${String(code)}`}) without a report${last}`);
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
    const l = parsed as Partial<{ progress: unknown; warning: unknown; protocol: unknown; report: unknown }>;
    if (typeof l.progress === "string") this.o.onProgress?.(l.progress);
    else if (typeof l.warning === "string") this.o.onProgress?.(`warning: ${l.warning}`);
    else if (l.protocol === this.o.protocol && this.o.isReport(l.report)) this.report = l.report;
    else this.broken ||= line.slice(0, 200);
  }
}

/** Kills the command's process group (Windows: its tree), so that nothing it started waits on. */
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
