/** Shared test fixtures: temporary folders, the sample vault, the shared corpus and the built bridge. */

import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach } from "vitest";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sealHeader } from "../src/core/snapshot/write";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const SAMPLE_VAULT = join(ROOT, "sample-vault");
export const CORPUS = resolve(ROOT, "..", "shared", "corpora", "obsidian-help");
export const BRIDGE = join(ROOT, "hook-bridge", "dist", "vault-memory.cjs");
/** Obsidian's help vaults beside the repository; a clone without them runs everything else. */
export const HAS_CORPUS = existsSync(CORPUS);
export const NO_CORPUS = `skipped: ${CORPUS} is missing (the shared corpus of real vaults)`;

/**
 * A snapshot's header edited as a test needs it, then sealed again with its checksum, so that
 * a test of (say) an older tokenizer sees that problem and not a damaged header.
 */
export function editHeader(bytes: Buffer, edit: (header: string) => string): Buffer {
  const nl = bytes.indexOf(0x0a);
  const line = bytes.subarray(0, nl).toString("utf8");
  const unsealed = line.replace(/,"headerSum":"[0-9a-f]{8}"\}$/, "}");
  return Buffer.concat([Buffer.from(sealHeader(edit(unsealed)), "utf8"), bytes.subarray(nl)]);
}

export function tempDir(prefix = "vm-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A writable copy of a vault, so tests never write into the repo or the shared corpus. */
export function copyVault(src: string, name = "vault"): string {
  const dest = join(tempDir(), name);
  cpSync(src, dest, { recursive: true, filter: (p) => !p.includes(".vault-memory") });
  return dest;
}

export function markdownFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...markdownFiles(dir, p));
    else if (e.name.endsWith(".md")) out.push(p);
  }
  return out;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bridge as Claude Code would: a fresh Node process, JSON on stdin. */
/**
 * The prompt hook gives up silently after 2 s, which a busy machine running the suite on two
 * cores can reach: a test's recall then printed nothing by chance. Tests that do not test the
 * deadline itself get one no run reaches.
 */
function patient(args: string[]): string[] {
  return args[0] === "recall" && !args.includes("--deadline-ms") ? [...args, "--deadline-ms", "600000"] : args;
}

export function runBridge(args: string[], input = "", env: NodeJS.ProcessEnv = {}): RunResult {
  if (!existsSync(BRIDGE)) throw new Error(`${BRIDGE} is missing: run \`npm run build\` first`);
  // A lint report of a large vault runs to megabytes, past spawnSync's usual 1 MB.
  const r = spawnSync(process.execPath, [BRIDGE, ...patient(args)], {
    input,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 300_000,
    maxBuffer: 256 * 2 ** 20,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * runBridge without blocking this process: for tests whose servers (the embedding stub) live in it.
 * `bridge`: another copy of the bridge's entry than the built one.
 */
export function runBridgeAsync(args: string[], input = "", bridge = BRIDGE, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bridge, ...patient(args)], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

export interface MeasuredRun extends RunResult {
  /** The process's peak resident memory in kB, by /usr/bin/time; NaN where there is none. */
  peakKb: number;
}

/** Where the peak memory of a process is measured from; without it, peakKb is NaN. */
export const TIME = "/usr/bin/time";

/**
 * `argv` (a command and its arguments) run under /usr/bin/time for its peak memory, without
 * blocking this process, and killed with its whole group after `killAfterMs`: a hang is a null
 * status, not a test that waits forever.
 */
export function runMeasured(argv: string[], input = "", env: NodeJS.ProcessEnv = {}, killAfterMs = 60_000): Promise<MeasuredRun> {
  const out = join(tempDir("vm-time-"), "peak");
  const measured = existsSync(TIME);
  const [command, ...rest] = measured ? [TIME, "-f", "%M", "-o", out, ...argv] : argv;
  return new Promise((resolve) => {
    const child = spawn(command, rest, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env }, detached: true });
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), killAfterMs);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const last = measured && existsSync(out) ? readFileSync(out, "utf8").trim().split("\n").pop() : "";
      // time exits with the command's status, and says so on its file when the command was killed.
      resolve({ status: signal ? null : code, stdout, stderr, peakKb: measured ? Number(last) : NaN });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/** runBridgeAsync under runMeasured. */
export function runBridgeMeasured(args: string[], input = "", env: NodeJS.ProcessEnv = {}): Promise<MeasuredRun> {
  if (!existsSync(BRIDGE)) throw new Error(`${BRIDGE} is missing: run \`npm run build\` first`);
  return runMeasured([process.execPath, BRIDGE, ...args], input, env);
}

let sessions = 0;

/** A UserPromptSubmit payload; each call is its own session unless `extra` names one. */
export function hookJson(prompt: string, extra: Record<string, unknown> = {}): string {
  const session_id = `test-${process.pid}-${++sessions}`;
  // No project unless a test names one: a project would keep other projects' cards out.
  return JSON.stringify({ session_id, transcript_path: "", cwd: "", hook_event_name: "UserPromptSubmit", prompt, ...extra });
}

/**
 * This test file's own per-user settings folder ($XDG_CONFIG_HOME), fresh for each test and
 * handed to every bridge the tests start; `write` puts settings that run a program or name a
 * server there, where a person sets them (the vault's config.json is never read for those).
 */
export function withMachineSettings(): { write: (settings: Record<string, unknown>) => string } {
  let before: string | undefined;
  let dir = "";
  beforeEach(() => {
    before = process.env.XDG_CONFIG_HOME;
    dir = tempDir("vm-user-config-");
    process.env.XDG_CONFIG_HOME = dir;
  });
  afterEach(() => {
    process.env.XDG_CONFIG_HOME = before;
  });
  return {
    write: (settings) => {
      const file = join(dir, "vault-memory", "config.json");
      mkdirSync(join(dir, "vault-memory"), { recursive: true, mode: 0o700 });
      writeFileSync(file, JSON.stringify(settings), { mode: 0o600 });
      return file;
    },
  };
}

/** A temporary vault holding `files` (vault-relative path → text). */
export function vaultWith(files: Record<string, string>): string {
  const v = tempDir();
  for (const [p, t] of Object.entries(files)) {
    mkdirSync(join(v, p, ".."), { recursive: true });
    writeFileSync(join(v, p), t);
  }
  return v;
}

/** Whether a process is alive and not a zombie: a container's init may never reap what it inherits. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return process.platform !== "linux";
  }
}

/**
 * Stops the resident recall servers whose folders are in `cacheDir` (hook-bridge/src/resident)
 * and waits until each has gone: a hook a test runs with the server on starts one, which would
 * otherwise wait half an hour for the next prompt.
 */
export async function stopResidentServers(cacheDir: string): Promise<void> {
  if (!existsSync(cacheDir)) return;
  const pids: number[] = [];
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith("recall-")) continue;
    try {
      pids.push(Number(readFileSync(join(cacheDir, name, "alive"), "utf8")));
    } catch {
      /* none serves this folder */
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* gone */
    }
  }
  while (pids.some(alive)) await new Promise((r) => setTimeout(r, 10));
}
