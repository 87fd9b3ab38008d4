import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { overlayPathOf } from "../../src/core/snapshot/format";
import { describe, expect, it } from "vitest";
import { findSynonyms } from "../../src/core/index/index-options";
import { DeadlineExceeded, scoreGroups } from "../../src/core/index/scorer";
import { msSinceStart } from "../../src/core/io/clock";
import { MAX_PROMPT_HEAD_CHARS, MAX_PROMPT_TAIL_CHARS, scoredPromptParts } from "../../src/core/recall/query";
import { vaultFiles } from "../../src/core/paths";
import { copyVault, runBridge, SAMPLE_VAULT } from "../helpers";

let session = 0;
const recallOf = (vault: string, prompt: string) =>
  runBridge(["recall", "--vault", vault], JSON.stringify({ prompt, session_id: `hostile-${process.pid}-${++session}`, cwd: "" }));

describe("recall on prompts that are mostly paste", () => {
  it("answers a word repeated 48,000 times (a synonym, once quadratic) within its deadline", () => {
    const vault = copyVault(SAMPLE_VAULT);
    runBridge(["index", "--vault", vault]);
    const r = recallOf(vault, "cron job ".repeat(48_000));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("launchd-cron-path.md");
  });

  it("finds the card for a question asked before a 2 MB pasted log, and after one", () => {
    const vault = copyVault(SAMPLE_VAULT);
    runBridge(["index", "--vault", vault]);
    const log = Array.from(
      { length: 20_000 },
      (_, i) => `Dec  1 03:00:${String(i % 60).padStart(2, "0")} host kernel: [${i}] eth0 link state changed to up, queue ${i % 8} rx ring ${i}`,
    ).join("\n");
    expect(log.length).toBeGreaterThan(1_500_000);
    expect(recallOf(vault, `为什么排程跑不起来? 日志如下:\n${log}`).stdout).toContain("launchd-cron-path.md");
    expect(recallOf(vault, `${log}\n为什么排程跑不起来?`).stdout).toContain("launchd-cron-path.md");
    expect(existsSync(vaultFiles.log(vault)) ? readFileSync(vaultFiles.log(vault), "utf8") : "").not.toMatch(/gave up/);
  });
});

describe("the bounds behind it", () => {
  it("finds every occurrence of a synonym in linear time", () => {
    const tokens = Array.from({ length: 200_000 }, () => "cron");
    const found = findSynonyms(tokens, [[["cron"]]]);
    expect(found.get(0)).toHaveLength(200_000);
  });

  it("scores the two ends of a long prompt, cut between words", () => {
    const prompt = "start ".repeat(5_000) + "middle ".repeat(100_000) + "end ".repeat(1_000);
    const scored = scoredPromptParts(prompt).join("\n");
    expect(scored.length).toBeLessThanOrEqual(MAX_PROMPT_HEAD_CHARS + MAX_PROMPT_TAIL_CHARS + 1);
    expect(scored.startsWith("start start")).toBe(true);
    expect(scored.trimEnd().endsWith("end end")).toBe(true);
    expect(scored.split(/\s+/).filter((w) => w && !["start", "middle", "end"].includes(w))).toEqual([]);
    expect(scoredPromptParts("short question")).toEqual(["short question"]);
  });

  it("gives up inside the scoring loop once the deadline has passed", () => {
    const source = { docCount: 1, idLimit: 1, indexOptions: undefined as never, postings: () => [0, 100], doc: () => undefined };
    const groups = [
      { term: "a", alternatives: [["a", 1]] as const },
      { term: "b", alternatives: [["b", 1]] as const },
    ];
    expect(() => scoreGroups(groups, source, () => true, { deadline: msSinceStart() - 1 })).toThrow(DeadlineExceeded);
    expect(scoreGroups(groups, source, () => true, { deadline: msSinceStart() + 10_000 })).toHaveLength(1);
  });
});

describe("files that are not files", () => {
  // A reader that opened these with a blocking open waited forever for a writer.
  it.each(["snapshot", "overlay"] as const)("a FIFO at the %s ends the prompt hook and remind at once, printing nothing wrong", (which) => {
    const vault = copyVault(SAMPLE_VAULT);
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const snapshot = vaultFiles.snapshot(vault);
    const at = which === "snapshot" ? snapshot : overlayPathOf(snapshot);
    if (which === "snapshot") renameSync(snapshot, snapshot + ".moved");
    execFileSync("mkfifo", [at]);
    const r = recallOf(vault, "why does my nightly job fail under launchd?");
    // Ended (a hang is a null status after the helper's timeout), exit 0.
    expect(r.status).toBe(0);
    if (which === "snapshot") expect(r.stdout).toBe("");
    const remind = runBridge(["remind", "--vault", vault], JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", cwd: "" }));
    expect(remind.status).toBe(0);
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/not a regular file/);
  });
});

describe("paths that are not there", () => {
  it("prints no card deleted since the last index, nor any of a snapshot copied from another vault", () => {
    const vault = copyVault(SAMPLE_VAULT);
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const prompt = "why does my nightly job fail under launchd?";
    expect(recallOf(vault, prompt).stdout).toContain("launchd-cron-path.md");
    rmSync(join(vault, "debugging", "launchd-cron-path.md"));
    const after = recallOf(vault, prompt);
    expect(after.status).toBe(0);
    expect(after.stdout).not.toContain("launchd-cron-path.md");
    // Another vault with this one's snapshot: none of its paths lead anywhere there.
    const other = copyVault(SAMPLE_VAULT, "other");
    for (const dir of ["debugging", "reference", "feedback", "projects", "user", "teaching", "moc"]) rmSync(join(other, dir), { recursive: true, force: true });
    mkdirSync(vaultFiles.dir(other), { recursive: true });
    copyFileSync(vaultFiles.snapshot(vault), vaultFiles.snapshot(other));
    const copied = recallOf(other, "vite 部署到自訂網域 base 路徑");
    expect([copied.status, copied.stdout]).toEqual([0, ""]);
  });
});
