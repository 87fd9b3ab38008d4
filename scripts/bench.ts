/**
 * `npm run bench`: the read path's cost, as ratios taken side by side in one run.
 *
 * For each vault: full index build time, time to update one card in an existing snapshot (the
 * plugin's path), and the whole-process wall time of `recall` against a bare `node -e ''`,
 * interleaved run by run so that machine noise hits both alike.
 */

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCard } from "../src/core/card/card";
import { defaultConfig } from "../src/core/config";
import { buildIndexFromDisk } from "../src/core/index/build-from-disk";
import { vaultFiles } from "../src/core/paths";
import { recall } from "../src/core/recall/recall";
import { SnapshotReader } from "../src/core/snapshot/read";
import { writeSnapshotSliced } from "../src/core/snapshot/write";

const root = fileURLToPath(new URL("..", import.meta.url));
const bridge = join(root, "hook-bridge", "dist", "vault-memory.mjs");
const corpus = join(root, "..", "shared", "corpora", "obsidian-help");
const runs = Number(process.env.BENCH_RUNS ?? 60);

const PROMPTS = [
  "how do I embed a PDF file in a note?",
  "为什么排程跑不起来",
  "vite 部署到自訂網域 base 路徑",
  "sync my vault between phone and desktop",
  "ok continue",
];

interface Row {
  vault: string;
  notes: number;
  snapshotMb: number;
  buildS: number;
  updateMs: number;
  /** The longest stretch of the update that ran without a pause: what a person would feel. */
  blockMs: number;
  bareMs: number;
  recallMs: number;
  /** Median of each run's hook time over the bare run just before it: drift hits both alike. */
  ratio: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timed(cmd: string[], input = ""): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd[0], cmd.slice(1), { input, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")} failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function copy(src: string): string {
  const dest = join(mkdtempSync(join(tmpdir(), "vm-bench-")), "vault");
  cpSync(src, dest, { recursive: true, filter: (p) => !p.includes(".vault-memory") });
  return dest;
}

async function bench(name: string, src: string): Promise<Row> {
  const vault = copy(src);
  const buildMs = timed([process.execPath, bridge, "index", "--vault", vault]);

  // The plugin's incremental path: change one card in the live index, rewrite the snapshot.
  const cfg = defaultConfig();
  const { index } = buildIndexFromDisk(vault, cfg);
  const some = [...index.docs()][Math.floor(index.docCount / 2)].path;
  const text = readFileSync(join(vault, some), "utf8") + "\nAn edited line about zeppelins.\n";
  // As in the plugin: 12 ms slices with a pause to the event loop between them. The event loop's
  // own delay monitor measures what a person would feel: the longest stretch nothing else could run.
  const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
  const delays = monitorEventLoopDelay({ resolution: 1 });
  delays.enable();
  const t0 = performance.now();
  index.upsert(parseCard(some, text, Date.now()));
  await writeSnapshotSliced(vaultFiles.snapshot(vault), index, cfg.recall, pause, 12);
  delays.disable();
  const blockMs = delays.max / 1e6;
  const updateMs = performance.now() - t0;

  // The snapshot the hook reads is the one the plugin's path just wrote; check it answers.
  const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
  recall(PROMPTS[0], reader, reader.header.rules, vault);
  reader.close();

  const bare: number[] = [];
  const hook: number[] = [];
  for (let i = 0; i < runs; i++) {
    // A new session each run, so no card is held back as already shown.
    const input = JSON.stringify({ session_id: `bench-${i}`, hook_event_name: "UserPromptSubmit", prompt: PROMPTS[i % PROMPTS.length] });
    bare.push(timed([process.execPath, "-e", ""]));
    hook.push(timed([process.execPath, bridge, "recall", "--vault", vault], input));
  }
  return {
    vault: name,
    notes: index.docCount,
    snapshotMb: statSync(vaultFiles.snapshot(vault)).size / 1e6,
    buildS: buildMs / 1000,
    updateMs,
    blockMs,
    bareMs: median(bare),
    recallMs: median(hook),
    ratio: median(hook.map((h, i) => h / bare[i])),
  };
}

/** A transcript of about `mb` MB shaped like Claude Code's: big API-request lines, tool output, turns. */
function bigTranscript(mb: number): string {
  const dir = mkdtempSync(join(tmpdir(), "vm-bench-t-"));
  const path = join(dir, "t.jsonl");
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1e6; i++) {
    const ts = new Date(Date.UTC(2026, 10, 30, 0, 0, i)).toISOString();
    const common = { isSidechain: false, userType: "external", cwd: "/work/project", sessionId: "big", version: "2.1.332", gitBranch: "main", timestamp: ts };
    const batch = [
      { ...common, type: "user", uuid: `p${i}`, message: { role: "user", content: `question ${i}: why does the nightly job fail with exit code ${i}?` } },
      { type: "api-request", body: "system prompt ".repeat(4000) },
      { ...common, type: "assistant", uuid: `t${i}`, message: { id: `m${i}`, role: "assistant", content: [{ type: "tool_use", id: `tu${i}`, name: "Bash", input: { command: "cat log" } }] } },
      { ...common, type: "user", uuid: `r${i}`, message: { role: "user", content: [{ type: "tool_result", tool_use_id: `tu${i}`, content: "log line\n".repeat(3000) }] } },
      { ...common, type: "assistant", uuid: `a${i}`, message: { id: `m${i}`, role: "assistant", content: [{ type: "text", text: `We decided to set PATH in the plist; run \`launchctl load x.plist\` (turn ${i}).` }] } },
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

/** Whole-process time of the Stop hook on a large transcript, and its peak memory if GNU time is there. */
function benchQueue(mb: number): string {
  const transcript = bigTranscript(mb);
  const vault = mkdtempSync(join(tmpdir(), "vm-bench-q-"));
  const input = JSON.stringify({ session_id: "big", transcript_path: transcript, cwd: "/work/project", stop_hook_active: false });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(timed([process.execPath, bridge, "queue", "--vault", vault], input));
  let rss = "";
  if (existsSync("/usr/bin/time")) {
    const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, bridge, "queue", "--vault", vault], { input, encoding: "utf8" });
    const kb = Number(r.stderr.trim().split("\n").pop());
    if (Number.isFinite(kb)) rss = `, peak memory ${(kb / 1024).toFixed(0)} MB`;
  }
  const mbReal = statSync(transcript).size / 1e6;
  return `queue (Stop hook) on a ${mbReal.toFixed(1)} MB transcript: ${median(times).toFixed(0)} ms median of 5 whole-process runs${rss}`;
}

if (!existsSync(bridge)) throw new Error("run `npm run build` first");
const vaults: [string, string][] = [["sample-vault", join(root, "sample-vault")]];
if (existsSync(corpus)) vaults.push(["obsidian-help/en", join(corpus, "en")], ["obsidian-help (all)", corpus]);
else console.log(`(${corpus} not found: benchmarking the sample vault only)`);

console.log(`node ${process.version}, ${runs} interleaved runs per vault, medians; ratio: median of hook/bare pairs\n`);
console.log("| vault | notes | snapshot | full index | update 1 card (longest block) | bare `node -e ''` | `recall` hook | ratio |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const [name, src] of vaults) {
  const r = await bench(name, src);
  console.log(
    `| ${r.vault} | ${r.notes} | ${r.snapshotMb.toFixed(1)} MB | ${r.buildS.toFixed(2)} s | ${r.updateMs.toFixed(0)} ms (${r.blockMs.toFixed(0)} ms) | ` +
      `${r.bareMs.toFixed(1)} ms | ${r.recallMs.toFixed(1)} ms | **${r.ratio.toFixed(2)}×** |`,
  );
}

console.log("\n" + benchQueue(20));
if (existsSync(corpus)) {
  // Lint exits 1 when it finds errors, which the help vaults have: only its time matters here.
  const vault = copy(corpus);
  const t = process.hrtime.bigint();
  spawnSync(process.execPath, [bridge, "lint", "--vault", vault], { encoding: "utf8" });
  console.log(`lint of the whole help folder (${listNotesCount(vault)} notes): ${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1)} s, whole process`);
}

function listNotesCount(vault: string): number {
  return buildIndexFromDisk(vault, defaultConfig()).index.docCount;
}
