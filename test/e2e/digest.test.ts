/** The nightly digest end to end: the real Claude Code CLI as the LLM command, canned answers from the stand-in. */

import { spawnSync } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCard } from "../../src/core/card/card";
import { hintsOf, hintState } from "../../src/core/card/hints";
import { defaultConfig, type VaultMemoryConfig } from "../../src/core/config";
import { runDigest } from "../../src/core/digest/run";
import { lintVault } from "../../src/core/lint/lint";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listHandled, listPending } from "../../src/core/queue/queue-store";
import { jsonl, line } from "../fixtures/transcript";
import { SAMPLE_VAULT, copyVault, runBridge, tempDir } from "../helpers";
import { until } from "../wait";
import { CLAUDE, claudeAvailable } from "./claude-driver";
import { startStub, type Stub } from "./messages-stub";

const LONG = "Here is the detail of what was done and why, long enough to be kept.";

const ANSWERS: Record<string, unknown> = {
  create: {
    action: "create",
    folder: "debugging",
    fileName: "task-scheduler-path",
    frontmatter: {
      name: "Task Scheduler PATH",
      description: "Windows Task Scheduler runs with a short PATH; use absolute paths",
      type: "debugging",
      tags: ["windows", "scheduler"],
      aliases: ["schtasks"],
      project: "nightly",
    },
    body: "Task Scheduler gives the nightly job a short PATH, so `claude` is not found. Use the absolute path.",
    related: ["launchd-cron-path"],
    // The person said 任务计划程序; the card says Task Scheduler.
    synonyms: [["任务计划程序", "Task Scheduler"]],
    // What recall will also match the card by: the questions it answers.
    questions: ["why can't the scheduled task find claude?", "任务计划程序 找不到命令"],
  },
  append: {
    action: "append",
    target: "reference/vite-custom-domain-base.md",
    section: "Also set `base` in the preview server when testing locally.",
    related: ["blog-site"],
  },
  skip: { action: "skip", reason: "small talk about the weather" },
  malformed: "I think this should become a card about vite, but here is no JSON.",
  traversal: {
    action: "create",
    folder: "../../etc",
    fileName: "passwd",
    frontmatter: { name: "x", description: "x", type: "reference", tags: ["x"] },
    body: "x",
    related: [],
  },
  absolute: { action: "append", target: "/etc/hosts.md", section: "x", related: [] },
};

let stub: Stub;
let home: string;
let vault: string;

// What each conversation is about, so that the index offers the right cards to extend.
const TOPIC: Record<string, string> = { append: "the vite base path after moving the blog to a custom domain" };

function queue(session: string, marker: string, at: string): void {
  const t = join(tempDir(), `${session}.jsonl`);
  const topic = TOPIC[marker] ?? "the nightly job and its PATH under the scheduler";
  writeFileSync(t, jsonl([line.prompt(`CASE-${marker}: ${topic}`), line.reply(LONG), line.prompt(`more about CASE-${marker}`), line.reply(LONG)]));
  const r = captureSession(vault, { sessionId: session, transcriptPath: t, cwd: "/work/nightly", stopHookActive: false }, DEFAULT_QUEUE_RULES, {
    now: new Date(at),
  });
  expect(r.queued).toBe(true);
}

const CALL_TIMEOUT_SEC = 30;

function config(): VaultMemoryConfig {
  const c = defaultConfig();
  c.digest.command = [CLAUDE, "-p", "--output-format", "json"];
  // Far more than a call to the stand-in takes on a busy machine (a few seconds): no call meets
  // it but one made to hang, which a test gives a short timeout of its own.
  c.digest.timeoutSec = CALL_TIMEOUT_SEC;
  return c;
}

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  TMPDIR: process.env.TMPDIR,
  ANTHROPIC_BASE_URL: stub.url,
  ANTHROPIC_API_KEY: "test-key-not-real",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
});
const git = (...args: string[]) => spawnSync("git", ["-C", vault, ...args], { encoding: "utf8" });

describe.skipIf(!claudeAvailable)("nightly digest with the real Claude Code CLI", () => {
  beforeAll(async () => {
    stub = await startStub();
    home = tempDir("vm-home-");
    vault = copyVault(SAMPLE_VAULT, "Digest vault");
    git("init", "-q");
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
    stub.reply = (body) => {
      // The night's enrich, after the queue: a question for each card of the batch.
      const cards = [...body.matchAll(/<card path=\\"([^"\\]+)\\">/g)].map((c) => c[1]);
      if (cards.length > 0) return JSON.stringify({ cards: cards.map((path) => ({ path, questions: [`what does ${path} say?`] })) });
      const m = /CASE-(\w+)/.exec(body);
      const a = m ? ANSWERS[m[1]] : undefined;
      return typeof a === "string" ? a : JSON.stringify(a ?? { action: "skip", reason: "no case" });
    };
    stub.behave = (body) => {
      if (body.includes("CASE-hang")) return { delayMs: 3_600_000 };
      if (body.includes("CASE-quota"))
        return {
          status: 400,
          errorMessage: "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
        };
      return undefined;
    };
    ["create", "append", "skip", "malformed", "traversal", "absolute"].forEach((m, i) => queue(`s-${m}`, m, `2026-11-29T0${i}:00:00Z`));
  });

  afterAll(async () => {
    await stub?.close();
  });

  it("shows planned actions on --dry-run and writes nothing", async () => {
    const before = git("status", "--porcelain").stdout;
    const r = await runDigest({ vault, config: config(), dryRun: true, limit: 3, env: env() });
    expect(r.results.map((x) => x.outcome.action)).toEqual(["created", "extended", "skipped"]);
    expect(listPending(vault)).toHaveLength(6);
    expect(git("status", "--porcelain").stdout).toBe(before);
    expect(existsSync(join(vault, "debugging", "task-scheduler-path.md"))).toBe(false);
  });

  it("runs a night: creates, extends, skips, refuses bad answers, and keeps what failed", async () => {
    const r = await runDigest({ vault, config: config(), env: env() });
    expect(r.ok, JSON.stringify(r.failures)).toBe(true);
    expect(r.results.map((x) => [x.sessionId, x.outcome.action])).toEqual([
      ["s-create", "created"],
      ["s-append", "extended"],
      ["s-skip", "skipped"],
    ]);
    const reasons = Object.fromEntries(r.failures.map((f) => [f.sessionId, f.reason]));
    expect(reasons["s-malformed"]).toMatch(/no JSON/);
    expect(reasons["s-traversal"]).toMatch(/folder/);
    expect(reasons["s-absolute"]).toMatch(/not a card in the vault/);
    expect(
      listPending(vault)
        .map((e) => e.sessionId)
        .sort(),
    ).toEqual(["s-absolute", "s-malformed", "s-traversal"]);
    expect(
      listHandled(vault)
        .map((e) => e.sessionId)
        .sort(),
    ).toEqual(["s-append", "s-create", "s-skip"]);

    const card = readFileSync(join(vault, "debugging", "task-scheduler-path.md"), "utf8");
    expect(card).toMatch(
      /^---\nname: Task Scheduler PATH\ndescription: .+\ntype: debugging\ntags: \[windows, scheduler\]\naliases: \[schtasks\]\nproject: nightly\nsource: session s-create\n/,
    );
    // The sample vault's cards close with `## Related` more often than `## 相關` (8 to 7), and a new card follows them.
    expect(card).toContain("## Related\n- [[launchd-cron-path]]");
    expect(card).toMatch(
      /\nquestions:\n {2}- why can't the scheduled task find claude\?\n {2}- 任务计划程序 找不到命令\nquestions-for: [0-9a-f]{8} [0-9a-f]{8}\n---\n/,
    );
    expect(hintState(parseCard("debugging/task-scheduler-path.md", card), "questions")).toBe("current");
    // After the queue, the night enriched cards that had no hints, within the same budget.
    expect(r.enriched?.written.length).toBeGreaterThan(0);
    expect(r.enriched?.written.map((w) => w.path)).not.toContain("debugging/task-scheduler-path.md");
    const enriched = r.enriched?.written[0]?.path ?? "";
    expect(hintsOf(parseCard(enriched, readFileSync(join(vault, enriched), "utf8")), "questions")).toEqual([`what does ${enriched} say?`]);
    expect(readFileSync(join(vault, "debugging", "launchd-cron-path.md"), "utf8")).toContain("[[task-scheduler-path]]");
    const extended = readFileSync(join(vault, "reference", "vite-custom-domain-base.md"), "utf8");
    expect(extended).toMatch(/## \d{4}-\d{2}-\d{2}\n\nAlso set `base` in the preview server/);
    expect(existsSync(join(vault, "..", "..", "etc", "passwd.md"))).toBe(false);
  }, 300_000);

  it("tidies: MEMORY.md, overview pages, snapshot, a report note, a status, and a git commit listing the cards", () => {
    expect(readFileSync(join(vault, "MEMORY.md"), "utf8")).toContain("[Task Scheduler PATH](debugging/task-scheduler-path.md)");
    expect(existsSync(join(vault, "moc", "timeline.md"))).toBe(true);
    expect(readFileSync(join(vault, "moc", "decision-log-vault-memory.md"), "utf8")).toMatch(/Decision log: vault-memory/);
    const today = new Date().toISOString().slice(0, 10);
    const report = readFileSync(join(vault, "meta", "digest", `${today}.md`), "utf8");
    expect(report).toMatch(/## Cards created \(1\)\n- \[\[task-scheduler-path\]\]/);
    expect(report).toMatch(/## Failures \(3\)/);
    expect(report).toMatch(/## Cards enriched \([1-9]\d*\)\n- \[\[/);
    expect(report).toMatch(/Queue left: 3\./);
    expect(JSON.parse(readFileSync(join(vault, ".vault-memory", "digest-status.json"), "utf8"))).toMatchObject({
      ok: true,
      created: 1,
      extended: 1,
      skipped: 1,
      failed: 3,
      left: 3,
    });
    expect(git("log", "-1", "--format=%B").stdout).toMatch(
      /vault-memory digest .*\n\n- created debugging\/task-scheduler-path\.md\n- extended reference\/vite-custom-domain-base\.md/,
    );
    expect(git("status", "--porcelain", "--", ".", ":(exclude).vault-memory").stdout).toBe("");
    const recall = runBridge(
      ["recall", "--vault", vault],
      JSON.stringify({ prompt: "Task Scheduler PATH on windows for the nightly job", session_id: "after" }),
    );
    expect(recall.stdout).toContain("task-scheduler-path.md");
    // The person's own words reach the card through the synonyms note the night added to.
    expect(readFileSync(join(vault, "meta", "synonyms.md"), "utf8")).toContain("- 任务计划程序, Task Scheduler\n");
    expect(report).toMatch(/## Synonyms added \(1\)\n- 任务计划程序, Task Scheduler/);
    const own = runBridge(["recall", "--vault", vault], JSON.stringify({ prompt: "Windows 上的任务计划程序怎么设置", session_id: "words" }));
    expect(own.stdout).toContain("task-scheduler-path.md");
  });

  it("leaves a vault the linter finds no errors in", () => {
    expect(
      lintVault(vault, defaultConfig().lint)
        .filter((f) => f.severity === "error")
        .map((f) => `${f.rule} ${f.file}: ${f.message}`),
    ).toEqual([]);
  });

  it("stops the night at the first call that gets no answer, and keeps the queue", async () => {
    queue("s-hang", "hang", "2026-11-28T01:00:00Z");
    const waiting = listPending(vault).length;
    const asked = stub.requests.length;
    // The stand-in never answers this call. Once the CLI is waiting on it, the night is stopped
    // the way the call's deadline would stop it, without waiting seconds for a deadline to pass
    // (run-command.test.ts tests the deadline itself, and the digest's timeout message).
    const stop = new AbortController();
    const night = runDigest({ vault, config: config(), env: env(), sessionIds: ["s-hang", "s-malformed"], signal: stop.signal });
    await until(() => stub.requests.slice(asked).some((body) => body.includes("CASE-hang")));
    stop.abort();
    const r = await night;
    expect(r.ok).toBe(false);
    expect(r.error).toBe("stopped: no answer before the run was stopped");
    expect(r.failures.map((f) => f.sessionId)).toEqual(["s-hang"]);
    // Nothing more was asked: not the next conversation, not enrich.
    expect(r.enriched).toBeUndefined();
    expect(listPending(vault)).toHaveLength(waiting);
    expect(JSON.parse(readFileSync(join(vault, ".vault-memory", "digest-status.json"), "utf8"))).toMatchObject({ ok: false });
  });

  it("stops at once when the API cannot be reached, and never says a night where every conversation failed went well", async () => {
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, "127.0.0.1", () => {
        const port = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    // The CLI retries a refused connection for minutes, which the call's deadline would cut
    // short; without its retries it says at once that it cannot connect, and that is what is read.
    const r = await runDigest({ vault, config: config(), env: { ...env(), ANTHROPIC_BASE_URL: `http://127.0.0.1:${closed}`, CLAUDE_CODE_MAX_RETRIES: "0" } });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^stopped: cannot reach the API/);
    expect(r.failures).toHaveLength(1);
    expect(r.enriched).toBeUndefined();
  });

  it("never says a night went well when every conversation it tried failed", async () => {
    const r = await runDigest({ vault, config: config(), env: env(), sessionIds: ["s-malformed", "s-traversal"] });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^every conversation tried failed \(2\); the first: .*no JSON/);
    expect(JSON.parse(readFileSync(join(vault, ".vault-memory", "digest-status.json"), "utf8"))).toMatchObject({ ok: false });
  });

  it("stops on a quota failure and keeps the rest of the queue", async () => {
    queue("s-quota", "quota", "2026-11-28T00:00:00Z");
    const r = await runDigest({ vault, config: config(), env: env() });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/quota/);
    expect(r.failures.map((f) => f.sessionId)).toEqual(["s-quota"]);
    expect(listPending(vault).map((e) => e.sessionId)).toContain("s-malformed");
    expect(JSON.parse(readFileSync(join(vault, ".vault-memory", "digest-status.json"), "utf8"))).toMatchObject({ ok: false });
  });

  it("reports a missing LLM binary clearly instead of failing silently", async () => {
    const c = config();
    c.digest.command = ["no-such-llm-command-xyz", "-p"];
    const r = await runDigest({ vault, config: c, env: { PATH: "/usr/bin:/bin", HOME: home, SHELL: "/bin/sh" } });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/cannot find "no-such-llm-command-xyz" on the login shell's PATH/);
  });
});
