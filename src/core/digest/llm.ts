/** Runs the configured LLM command: prompt on stdin, a timeout enforced here, the whole process tree killed. */

import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

export interface LlmResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/**
 * Runs `command` with `input` on stdin. The child gets its own process group, so on timeout the
 * group is killed (a shell wrapper and its children too), with no external `timeout` program:
 * Windows' timeout.exe waits instead of limiting, and GNU timeout is not everywhere.
 */
export function runLlm(command: readonly string[], input: string, opts: { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv }): Promise<LlmResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      detached: process.platform !== "win32",
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid);
    }, opts.timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: stderr + String(err), timedOut, ms: Date.now() - started });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, ms: Date.now() - started });
    });
    child.stdin.on("error", () => {
      /* the command exited before reading its input */
    });
    child.stdin.end(input);
  });
}

function killTree(pid: number | undefined): void {
  if (!pid) return;
  try {
    if (process.platform === "win32") spawnSync("taskkill", ["/pid", String(pid), "/T", "/F"], { windowsHide: true });
    else process.kill(-pid, "SIGKILL");
  } catch {
    /* already gone */
  }
}

/**
 * Finds the LLM binary: as configured if absolute, else on this process's PATH, else on the
 * login shell's PATH. A scheduler (launchd, Task Scheduler, a GUI-launched Obsidian) gets a much
 * shorter PATH than a terminal, which is why nightly runs used to fail silently.
 */
export function resolveBinary(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (isAbsolute(name)) return isExecutable(name) ? name : undefined;
  const exts = process.platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) if (isExecutable(join(dir, name + ext))) return join(dir, name + ext);
  }
  if (process.platform === "win32") return undefined;
  const shell = env.SHELL && isAbsolute(env.SHELL) ? env.SHELL : "/bin/sh";
  const r = spawnSync(shell, ["-lc", `command -v ${JSON.stringify(name)}`], { encoding: "utf8", timeout: 10_000, env });
  const found = r.stdout?.trim().split("\n").pop() ?? "";
  return isAbsolute(found) && isExecutable(found) ? found : undefined;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What a failed call looks like from here: the run stops on quota and authentication failures. */
export type FailureKind = "quota" | "auth" | "timeout" | "other";

export function classifyFailure(r: LlmResult): FailureKind {
  if (r.timedOut) return "timeout";
  const text = `${r.stderr}\n${r.stdout}`.toLowerCase();
  if (/rate.?limit|quota|usage limit|credit balance|too many requests|\b429\b|overloaded|limit reached/.test(text)) return "quota";
  if (/unauthori[sz]ed|authentication|invalid (?:x-)?api.?key|\b401\b|\b403\b|please run \/login|not logged in|oauth/.test(text)) return "auth";
  return "other";
}
