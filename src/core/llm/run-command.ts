/** Runs a program with input on stdin (the LLM, the digest's report, `claude mcp`, the bridge's embed), under a deadline that nothing it starts outlives. */

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { sanitize } from "../privacy/redact";

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the caller's signal stopped it (see CommandOptions.signal). */
  stopped?: boolean;
  ms: number;
}

export interface CommandOptions {
  timeoutMs: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Stops the command before its deadline, the same way the deadline does: whatever it started
   * is killed and the call returns at once. A run that is cancelled must not leave a model or a
   * mailer running, nor wait for one.
   */
  signal?: AbortSignal;
}

// Every process the command starts inherits this variable, even one that left the process group
// and lost its parent, so it can be found again by it (on Linux, where /proc shows environments).
const MARK = "VAULT_MEMORY_RUN";

// After the command exits, a child it left behind may still hold the pipes; once that child is
// killed the pipes close at once, so this only bounds a holder that could not be found.
const DRAIN_MS = 1000;

/**
 * Sends `text` to a program the person set (the LLM command, the report command): through the
 * one sanitiser first, whatever the text was built from. Queued conversations are sanitised when
 * they are captured, but a prompt also carries cards, candidates and rules written since, by
 * anyone who can write the vault.
 */
export function sendToCommand(command: readonly string[], text: string, opts: CommandOptions): Promise<CommandResult> {
  return runCommand(command, sanitize(text), opts);
}

/**
 * Runs `command` with `input` on stdin. The deadline covers the pipes as well as the process: a
 * detached child holding stdout open must not hold the digest. When the command exits or the
 * deadline passes, whatever it started is killed, with no external `timeout` program (Windows'
 * timeout.exe waits instead of limiting, and GNU timeout is not everywhere). `opts.signal` ends it
 * early by the same path.
 */
export function runCommand(command: readonly string[], input: string, opts: CommandOptions): Promise<CommandResult> {
  const started = Date.now();
  const mark = randomUUID();
  return new Promise((resolve) => {
    // Stopped before it began: nothing is started only to be killed.
    if (opts.signal?.aborted) {
      resolve({ code: null, stdout: "", stderr: "", timedOut: false, stopped: true, ms: Date.now() - started });
      return;
    }
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(command[0], command.slice(1), {
        cwd: opts.cwd,
        env: { ...(opts.env ?? process.env), [MARK]: mark },
        // Its own process group (and session), so the group can be killed without touching ours.
        detached: process.platform !== "win32",
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (err) {
      // A setting holding a NUL byte, say: spawn refuses it before any process exists.
      resolve({ code: null, stdout: "", stderr: String(err), timedOut: false, stopped: false, ms: Date.now() - started });
      return;
    }
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let stopped = false;
    let code: number | null = null;
    let done = false;
    let drain: NodeJS.Timeout | undefined;
    const finish = (extra = ""): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(drain);
      opts.signal?.removeEventListener("abort", onAbort);
      // A holder that escaped every search keeps its end of the pipes; ours are let go.
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
      resolve({ code, stdout, stderr: stderr + extra, timedOut, stopped, ms: Date.now() - started });
    };
    // Decoded across chunks: a pipe splits a long answer anywhere, Chinese characters included.
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    let exited = false;
    // The deadline and the caller's stop take one path, so what is proven of one holds for the other.
    const end = (): void => {
      killAll(child.pid, mark, !exited);
      finish();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, opts.timeoutMs);
    const onAbort = (): void => {
      stopped = true;
      end();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (err) => finish(String(err)));
    child.on("exit", (c) => {
      code = c;
      exited = true;
      if (done) return;
      // What it left running is killed too: a background child must not outlive the call.
      killAll(child.pid, mark, false);
      drain = setTimeout(finish, DRAIN_MS);
    });
    child.on("close", () => finish());
    child.stdin.on("error", () => {
      /* the command exited before reading its input */
    });
    child.stdin.end(input);
  });
}

/**
 * Kills the command's process group and every process found to descend from it or to carry its
 * mark. Each is stopped before anything is killed, so none can fork a child between the search
 * and the kill, and parents stay alive for the search to follow them down. Once the command has
 * exited, its pid is free for reuse by any process, so it is no longer followed itself.
 */
function killAll(pid: number | undefined, mark: string, rootAlive: boolean): void {
  if (!pid) return;
  if (process.platform === "win32") {
    // taskkill follows parent links only: a child whose parent already exited is out of reach.
    if (rootAlive) spawnSync("taskkill", ["/pid", String(pid), "/T", "/F"], { windowsHide: true });
    return;
  }
  signal(-pid, "SIGSTOP");
  const found = new Set<number>();
  for (let round = 0; round < 20; round++) {
    const fresh = related(pid, mark, rootAlive).filter((p) => !found.has(p));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      found.add(p);
      signal(p, "SIGSTOP");
    }
  }
  signal(-pid, "SIGKILL");
  for (const p of found) signal(p, "SIGKILL");
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone already, or never ours */
  }
}

/** Processes in the command's group, carrying its mark, or descending from either (or from the command while it runs). */
function related(root: number, mark: string, rootAlive: boolean): number[] {
  const procs = listProcesses(mark);
  const children = new Map<number, number[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const out = new Set<number>();
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      if (out.has(c)) continue;
      out.add(c);
      walk(c);
    }
  };
  if (rootAlive) walk(root);
  for (const p of procs) {
    if (p.pgid !== root && !p.marked) continue;
    out.add(p.pid);
    walk(p.pid);
  }
  if (rootAlive) out.add(root);
  out.delete(process.pid);
  return [...out];
}

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  marked: boolean;
}

function listProcesses(mark: string): Proc[] {
  let dirs: string[];
  try {
    dirs = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    // macOS and the BSDs: no /proc, and no reading other processes' environments.
    const ps = spawnSync("ps", ["-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid="], { encoding: "utf8" });
    return (ps.stdout ?? "")
      .split("\n")
      .map((row) => row.trim().split(/\s+/).map(Number))
      .filter(([pid]) => pid > 0)
      .map(([pid, ppid, pgid]) => ({ pid, ppid, pgid, marked: false }));
  }
  const needle = `${MARK}=${mark}\0`;
  const out: Proc[] = [];
  for (const d of dirs) {
    try {
      // Read plainly: procfs files are the kernel's, small, and never block.
      // The command name is in parentheses and may itself hold spaces or parentheses.
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const [, ppid, pgid] = stat
        .slice(stat.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number);
      let marked = false;
      try {
        marked = readFileSync(`/proc/${d}/environ`, "latin1").includes(needle);
      } catch {
        /* another user's process: never ours */
      }
      out.push({ pid: Number(d), ppid, pgid, marked });
    } catch {
      /* exited while being read */
    }
  }
  return out;
}
