/**
 * The prompt hook's way to the resident recall server (server.ts), in the bridge's entry.
 *
 * Each hook is a new Node process, and most of its cost beyond bare Node is loading recall's code
 * and compiling what a prompt runs. A server that stays up between prompts has both done: the hook
 * hands it the payload and prints what it answers. When no server answers, the hook recalls in its
 * own process as before, then starts one for the prompts after it.
 *
 * They talk through files in a folder of the person's private cache folder (mode 700, see
 * code-cache.ts), so no other account can answer in the server's place or ask it for cards. Files,
 * not a socket: loading Node's `net` and running its event loop cost a hook about as much as the
 * recall it saves, while the file calls are loaded in every Node process already. The folder's
 * name is a hash of everything that decides the answer besides the payload (the command line, the
 * settings' environment, Node and the bridge's path): a server only ever answers hooks that would
 * have recalled exactly as it does.
 */

import { existsSync, renameSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { readRegularFile } from "../../../src/core/io/read-file";

/**
 * `VAULT_MEMORY_RESIDENT=off` (or 0, false, no): every hook recalls in its own process, and none
 * starts a server. A number: the minutes a server stays without a prompt (30 unless set).
 */
export const RESIDENT_ENV = "VAULT_MEMORY_RESIDENT";

/** How long a server stays without a request, from RESIDENT_ENV. */
export function residentIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const minutes = Number(env[RESIDENT_ENV]);
  // Past 2^31 - 1 ms a timer fires at once.
  return env[RESIDENT_ENV] && Number.isFinite(minutes) && minutes > 0 ? Math.min(minutes * 60_000, 2 ** 31 - 1) : 30 * 60_000;
}

/**
 * The environment recall reads (its settings' and the cache's folders, the vault and config
 * options), which is all a server is started with: a variable recall read and this list missed
 * would be absent in the server, and its answers would differ from the hook's own, which the tests
 * compare.
 */
export const RESIDENT_ENV_KEYS = [
  "HOME",
  "USERPROFILE",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "APPDATA",
  "LOCALAPPDATA",
  "VAULT_MEMORY_VAULT",
  "CLAUDE_PLUGIN_OPTION_VAULT",
  "CLAUDE_PLUGIN_OPTION_CONFIG",
  "CLAUDE_PLUGIN_ROOT",
  "CLAUDE_PLUGIN_DATA",
  "CLAUDE_CONFIG_DIR",
  "TZ",
  // How Node and its TLS run, for semantic recall's request to an https server.
  "NODE_OPTIONS",
  "NODE_EXTRA_CA_CERTS",
  "NODE_TLS_REJECT_UNAUTHORIZED",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  RESIDENT_ENV,
] as const;

/**
 * The server's files in its folder: who serves; the bell a hook rings once its request is in (a
 * file's change is told at once everywhere, a folder's only after a pause on macOS, where Node
 * watches folders through FSEvents); a request, a request taken, an answer.
 */
export const RESIDENT_FILES = { alive: "alive", bell: "bell", request: "q-", taken: "w-", answer: "a-", partial: "." } as const;

/** How long a hook waits for the server beyond its own deadline; past it, it prints nothing. */
const GRACE_MS = 500;
// How often a waiting hook looks for the answer. Sleeping, not spinning: Atomics.wait blocks the thread.
const POLL_MS = 0.25;
// Every this many looks, whether the server still runs: one that left never answers.
const CHECK_EVERY = 40;

export interface Resident {
  /** The server's folder. */
  dir: string;
  /** The environment a server is started with. */
  env: NodeJS.ProcessEnv;
  /** The hook's command line without its deadline, which each request carries instead. */
  argv: string[];
  /** The hook's deadline (--deadline-ms), if its command line sets one. */
  deadlineMs?: number;
}

/** The command line without `--deadline-ms`, and the deadline: one hook's wait, not a setting the server holds. */
function withoutDeadline(argv: readonly string[]): { argv: string[]; deadlineMs?: number } {
  const out: string[] = [];
  let deadlineMs: number | undefined;
  // Only a deadline the hook takes: one it refuses stays on the line, for the server to refuse alike.
  const valid = (v: string): boolean => /^\d+(\.\d+)?$/.test(v) && Number(v) > 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--deadline-ms" && i + 1 < argv.length && valid(argv[i + 1])) deadlineMs = Number(argv[++i]);
    else if (a.startsWith("--deadline-ms=") && valid(a.slice("--deadline-ms=".length))) deadlineMs = Number(a.slice("--deadline-ms=".length));
    else out.push(a);
  }
  return { argv: out, deadlineMs };
}

/** The server for this hook's command line and settings, or undefined where none may serve it. */
export function residentFor(argv: readonly string[], cacheDir: () => string, env: NodeJS.ProcessEnv = process.env): Resident | undefined {
  const off = env[RESIDENT_ENV]?.toLowerCase();
  if (off === "off" || off === "0" || off === "false" || off === "no") return undefined;
  // Windows gives a folder no owner-only mode that the cache folder's check could rely on.
  if (process.platform === "win32" || typeof process.getuid !== "function") return undefined;
  if (argv.includes("--help") || argv.includes("-h")) return undefined;
  const cache = cacheDir();
  if (!cache) return undefined;
  const kept: NodeJS.ProcessEnv = {};
  for (const k of RESIDENT_ENV_KEYS) if (env[k] !== undefined) kept[k] = env[k];
  const line = withoutDeadline(argv);
  // A relative path on the command line means the hook's own folder; an absolute one does not. Any
  // value that is not a full path counts (a number too): the folder then joins the key, which
  // costs at most a server per folder.
  const values = line.argv.slice(1).flatMap((a) => (a.startsWith("-") ? (a.includes("=") ? [a.slice(a.indexOf("=") + 1)] : []) : [a]));
  const relative = values.some((v) => !isAbsolute(v));
  const key = JSON.stringify([process.execPath, process.version, __filename, line.argv, relative ? process.cwd() : "", kept]);
  return { dir: join(cache, `recall-${hash(key, 0x811c9dc5)}${hash(key, 0x050c5d1f)}`), env: kept, ...line };
}

/** 32 bits of FNV-1a from `seed`; two seeds give a name no two settings share by chance. */
function hash(text: string, seed: number): string {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * A server marks its folder with its process id and touches the mark every few seconds: a mark
 * older than this is of a server that stopped, or died and left a process id another took.
 */
export const ALIVE_FRESH_MS = 15_000;

/** The process id in a server's mark, if the mark is a small regular file touched lately and the process runs. */
export function markedPid(alive: string): number | undefined {
  let pid = NaN;
  let fresh = false;
  try {
    const text = readRegularFile(alive, { maxBytes: 32, noFollow: true, check: (st) => ((fresh = Date.now() - st.mtimeMs < ALIVE_FRESH_MS), "") });
    pid = Number(text.toString("latin1"));
  } catch {
    return undefined;
  }
  if (!fresh || !Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** Why a hook recalls in its own process when none serves: the common case, not worth a log line. */
export const NO_SERVER = "no resident recall server runs";

/** The server's process id, if one serves the folder and still runs. */
function serverPid(dir: string): number | undefined {
  return markedPid(join(dir, RESIDENT_FILES.alive));
}

// A server's answer is the cards' text, a few kilobytes; past this it is not one.
const MAX_ANSWER_BYTES = 4 << 20;

/**
 * What the server printed for this payload; why not when no server answered (none running, one
 * that runs other code, or one too slow), and the hook then recalls in its own process.
 * `deadlineMs` is the hook's own, counted from its start; the wait ends a little after it.
 */
export function askResident(resident: Resident, stdin: string, deadlineMs: number): { out: string } | { missed: string; late?: true } {
  const { dir } = resident;
  const deadline = resident.deadlineMs ?? deadlineMs;
  const pid = serverPid(dir);
  if (pid === undefined) return { missed: NO_SERVER };
  const id = `${process.pid}-${Math.floor(process.uptime() * 1e6).toString(36)}`;
  const request = join(dir, RESIDENT_FILES.request + id);
  const answer = join(dir, RESIDENT_FILES.answer + id);
  try {
    // Written aside and renamed in, so that the server never reads half a request.
    const partial = join(dir, RESIDENT_FILES.partial + RESIDENT_FILES.request + id);
    // When the hook started, by the wall clock the server shares: the time its request waits counts.
    writeFileSync(partial, JSON.stringify({ stdin, startedAt: Date.now() - process.uptime() * 1000, deadline: resident.deadlineMs }), {
      mode: 0o600,
      flag: "wx",
    });
    renameSync(partial, request);
  } catch (err) {
    return { missed: `the request could not be written (${err instanceof Error ? err.message : String(err)})` };
  }
  try {
    const now = new Date();
    utimesSync(join(dir, RESIDENT_FILES.bell), now, now);
  } catch {
    // No bell: a server still starting, or one that left. Its request is taken back.
    forget(request);
    return { missed: "the resident recall server cannot be told" };
  }
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const stop = deadline + GRACE_MS;
  for (let looks = 1; ; looks++) {
    let text: string | undefined;
    // Looked for first: a missing file's read would throw, and an error costs more than the look.
    if (existsSync(answer)) {
      try {
        text = readRegularFile(answer, { maxBytes: MAX_ANSWER_BYTES, noFollow: true }).toString("utf8");
      } catch {
        text = "";
      }
    }
    if (text !== undefined) {
      forget(answer);
      forget(request);
      try {
        const reply = JSON.parse(text) as { out?: unknown };
        if (typeof reply.out === "string") return { out: reply.out };
        return { missed: "the resident recall server runs other code" };
      } catch {
        return { missed: "the resident recall server's answer could not be read" };
      }
    }
    const late = process.uptime() * 1000 > stop;
    if (late || (looks % CHECK_EVERY === 0 && serverPid(dir) !== pid)) {
      // Taken back if the server has not taken it; if it has, its answer is cleared away later.
      forget(request);
      // A server too slow for one hook is too slow for the next: the next starts another.
      if (late && serverPid(dir) === pid) forget(join(dir, RESIDENT_FILES.alive));
      return late ? { missed: "the resident recall server did not answer in time", late } : { missed: "the resident recall server left" };
    }
    Atomics.wait(sleeper, 0, 0, POLL_MS);
  }
}

/** Removes a file of the exchange; one gone already is what was wanted. */
export function forget(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}

/** Whether a server serves this folder now. */
export function residentRunning(resident: Resident): boolean {
  return serverPid(resident.dir) !== undefined;
}

/** Starts a server for the hooks after this one, detached: this hook neither waits for it nor keeps it. */
export function startResident(resident: Resident, entry: string): void {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node's own module, loaded only when a server is started
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    spawn(process.execPath, [entry, "recall-server", resident.dir, ...resident.argv], { detached: true, stdio: "ignore", env: resident.env }).unref();
  } catch {
    /* the next hook tries again; this one has answered */
  }
}
