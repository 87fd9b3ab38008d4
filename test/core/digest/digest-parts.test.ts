import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { AnswerError, extractJson, safePath, validateAnswer } from "../../../src/core/digest/answer";
import { commitVault, MAX_DELETIONS } from "../../../src/core/digest/git";
import { callFailed, classifyFailure, endsRun, failureReason } from "../../../src/core/digest/llm";
import { runCommand } from "../../../src/core/digest/run-command";
import { acquireLock, releaseLock, STALE_MS } from "../../../src/core/digest/lock";
import { isDue, lastScheduled } from "../../../src/core/digest/schedule";
import { ROOT, tempDir } from "../../helpers";

const create = { action: "create", folder: "debugging", fileName: "x", frontmatter: { name: "n", description: "d", type: "debugging", tags: ["t"] }, body: "b", related: [] };

describe("validateAnswer", () => {
  it.each<[string, unknown, RegExp]>([
    ["an unknown action", { action: "delete" }, /action must be/],
    ["not an object", ["create"], /not a JSON object/],
    ["path traversal in the folder", { ...create, folder: "../secrets" }, /folder/],
    ["a folder outside the card folders", { ...create, folder: "meta" }, /folder/],
    ["a path in the file name", { ...create, fileName: "../../etc/passwd" }, /not allowed/],
    ["a hidden file name", { ...create, fileName: ".obsidian" }, /not allowed/],
    ["missing frontmatter", { ...create, frontmatter: undefined }, /frontmatter is missing/],
    ["frontmatter without a description", { ...create, frontmatter: { name: "n", type: "t", tags: ["t"] } }, /must be a string/],
    ["frontmatter without tags", { ...create, frontmatter: { name: "n", description: "d", type: "t", tags: [] } }, /at least one tag/],
    ["an oversized body", { ...create, body: "x".repeat(20_001) }, /over 20000/],
    ["an empty body", { ...create, body: "  " }, /empty/],
    ["an absolute append target", { action: "append", target: "/etc/hosts.md", section: "s", related: [] }, /not a card/],
    ["a Windows absolute target", { action: "append", target: "C:\\notes\\a.md", section: "s", related: [] }, /not a card/],
    ["a traversal target", { action: "append", target: "reference/../../x.md", section: "s", related: [] }, /not a card/],
    ["a hidden target", { action: "append", target: ".vault-memory/config.md", section: "s", related: [] }, /not a card/],
    ["a target that is not markdown", { action: "append", target: "reference/a.txt", section: "s", related: [] }, /not a markdown card/],
    ["synonyms that are not a list of lists", { ...create, synonyms: "排程, launchd" }, /list of lists/],
    ["a synonym group of one word", { ...create, synonyms: [["launchd", "LaunchD"]] }, /2 to 8 different words/],
    ["more than five synonym groups", { ...create, synonyms: Array.from({ length: 6 }, (_, i) => [`a${i}`, `b${i}`]) }, /more than 5 groups/],
    ["a synonym holding a comma", { ...create, synonyms: [["排程，定时", "cron"]] }, /separator or markup/],
    ["a synonym that is a wikilink", { ...create, synonyms: [["[[secret]]", "cron"]] }, /separator or markup/],
    ["a synonym that would be a heading", { ...create, synonyms: [["# Owned", "cron"]] }, /separator or markup/],
    ["a synonym of more words than the note reads as one", { ...create, synonyms: [["one two three four five six", "cron"]] }, /more than 5 words/],
    ["a synonym over two lines", { action: "append", target: "reference/a.md", section: "s", synonyms: [["cron\n- injected, line", "launchd"]] }, /several lines/],
    ["an alias over two lines", { ...create, frontmatter: { ...create.frontmatter, aliases: ["a\nb"] } }, /several lines/],
  ])("refuses %s", (_, value, message) => {
    expect(() => validateAnswer(value)).toThrow(AnswerError);
    expect(() => validateAnswer(value)).toThrow(message);
  });

  it("accepts the three shapes, and strips a frontmatter block from a body", () => {
    expect(validateAnswer({ ...create, body: "---\nname: evil\n---\nreal body", related: ["[[a|x]]"] })).toMatchObject({ action: "create", body: "real body", related: ["a"] });
    expect(validateAnswer({ action: "append", target: "reference/a.md", section: "more" })).toMatchObject({ action: "append", target: "reference/a.md" });
    expect(validateAnswer({ action: "skip", reason: "nothing new" })).toEqual({ action: "skip", reason: "nothing new" });
    expect(validateAnswer({ ...create, frontmatter: { ...create.frontmatter, aliases: [" schtasks "] }, synonyms: [["排程", "launchd", "Launchd"]] })).toMatchObject({
      frontmatter: { aliases: ["schtasks"] },
      synonyms: [["排程", "launchd"]],
    });
    expect(safePath("reference/sub/a.md")).toBe("reference/sub/a.md");
  });

  it("finds the JSON in a fence, in prose, or in claude's json result", () => {
    expect(extractJson('Sure!\n```json\n{"action":"skip","reason":"r"}\n```')).toEqual({ action: "skip", reason: "r" });
    expect(extractJson('I decided: {"action":"skip","reason":"r"} done')).toEqual({ action: "skip", reason: "r" });
    expect(extractJson(JSON.stringify({ type: "result", result: '{"action":"skip","reason":"r"}' }))).toEqual({ action: "skip", reason: "r" });
    expect(() => extractJson("no json here")).toThrow(/no JSON/);
  });
});

describe("runCommand", () => {
  it("passes the prompt on stdin and returns stdout", async () => {
    const r = await runCommand(["/bin/sh", "-c", "cat | tr a-z A-Z"], "hello", { timeoutMs: 10_000 });
    expect(r).toMatchObject({ code: 0, stdout: "HELLO", timedOut: false });
  });

  it.each([
    ["quota", "Error: Your credit balance is too low"],
    ["quota", "429 Too Many Requests: rate limit exceeded"],
    ["quota", "Claude AI usage limit reached"],
    ["auth", "Invalid API key · Please run /login"],
    ["auth", "401 Unauthorized"],
    ["connection", "Error: connect ECONNREFUSED 127.0.0.1:443"],
    ["connection", "getaddrinfo ENOTFOUND api.anthropic.com"],
    ["other", "something else broke"],
  ])("classifies a %s failure: %s", (kind, stderr) => {
    expect(classifyFailure({ code: 1, stdout: "", stderr, timedOut: false, ms: 1 })).toBe(kind);
  });

  // The shape `claude -p --output-format json` prints for a failed turn, exit 0 or 1.
  const cli = (fields: Record<string, unknown>, code = 1) => ({ code, stdout: JSON.stringify({ type: "result", subtype: "success", is_error: true, num_turns: 1, duration_ms: 1, ...fields }), stderr: "", timedOut: false, ms: 1 });

  it.each([
    ["connection", { api_error: "connection_failed", api_error_status: null, result: "API Error: Connection refused (ECONNREFUSED)" }, "cannot reach the API: API Error: Connection refused (ECONNREFUSED)"],
    ["auth", { api_error_status: 401, result: "Invalid API key · Please run /login" }, "auth: Invalid API key · Please run /login (HTTP 401)"],
    ["quota", { api_error_status: 429, result: "API Error: 429 rate_limit_error\nmore detail" }, "quota: API Error: 429 rate_limit_error (HTTP 429)"],
  ] as const)("reads a %s failure from the CLI's JSON as one line", (kind, fields, reason) => {
    const r = cli(fields);
    expect(classifyFailure(r)).toBe(kind);
    expect(endsRun(classifyFailure(r))).toBe(true);
    expect(failureReason(r, 300)).toBe(reason);
  });

  it("counts a result the CLI marks as an error as a failed call, whatever its exit code", () => {
    expect(callFailed(cli({ api_error: "connection_failed", result: "API Error: Connection error." }, 0))).toBe(true);
    expect(callFailed({ code: 0, stdout: JSON.stringify({ type: "result", is_error: false, result: "{}" }), stderr: "", timedOut: false, ms: 1 })).toBe(false);
    expect(endsRun("other")).toBe(false);
    expect(endsRun("timeout")).toBe(false);
  });
});

describe("lock", () => {
  it("lets one digest run at a time, and takes over a stale lock", () => {
    const path = join(tempDir(), "digest.lock");
    const now = Date.now();
    expect(acquireLock(path, now)).toEqual({ ok: true });
    const second = acquireLock(path, now + 1000);
    expect(second.ok).toBe(false);
    expect(acquireLock(path, now + STALE_MS + 1)).toEqual({ ok: true });
    releaseLock(path);
    expect(acquireLock(path, now)).toEqual({ ok: true });
    releaseLock(path);
  });

  it("lets only one of two takers of a stale lock win, the rival coming mid-takeover", () => {
    const path = join(tempDir(), "digest.lock");
    const old = Date.now() - STALE_MS - 60_000;
    writeFileSync(path, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: new Date(old).toISOString() }));
    let rival: ReturnType<typeof acquireLock> | undefined;
    // The rival found the same stale lock a moment later: before takeovers took turns, it moved
    // aside the first taker's fresh lock and both went on to run a digest.
    const first = acquireLock(path, Date.now(), () => (rival = acquireLock(path)));
    expect(first).toEqual({ ok: true });
    expect(rival?.ok).toBe(false);
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid });
    // The stale lock was kept, moved aside; no takeover mark is left behind.
    const left = readdirSync(dirname(path));
    expect(left.filter((f) => f.startsWith("digest.lock.stale-"))).toHaveLength(1);
    expect(left.filter((f) => f.includes("takeover"))).toEqual([]);
    releaseLock(path);
  });

  it("races whole processes on a stale lock: exactly one wins each round", async () => {
    const dir = tempDir();
    const lock = join(dir, "lock.cjs");
    buildSync({ entryPoints: [join(ROOT, "src/core/digest/lock.ts")], bundle: true, platform: "node", format: "cjs", outfile: lock, logLevel: "error" });
    const script = join(dir, "take.cjs");
    // Each taker stays alive, holding what it took, until every one has answered: a lock whose
    // process has ended is free for the next.
    writeFileSync(script, `process.stdout.write(JSON.stringify(require(${JSON.stringify(lock)}).acquireLock(process.argv[2])) + "\\n");\nprocess.stdin.resume();\n`);
    for (let round = 0; round < 3; round++) {
      const path = join(dir, `round-${round}.lock`);
      writeFileSync(path, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: new Date(Date.now() - STALE_MS - 60_000).toISOString() }));
      const takers = Array.from({ length: 4 }, () => spawn(process.execPath, [script, path], { stdio: ["pipe", "pipe", "inherit"] }));
      const answers = takers.map((child) => new Promise<{ ok: boolean }>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(JSON.parse(d.toString()) as { ok: boolean }))));
      const results = await Promise.all(answers);
      for (const child of takers) child.stdin.end();
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    }
  });

  it("takes over a lock whose process on this computer has ended, however recent", () => {
    const path = join(tempDir(), "digest.lock");
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    writeFileSync(path, JSON.stringify({ pid: Number(gone), host: hostname(), startedAt: new Date().toISOString() }));
    expect(acquireLock(path)).toEqual({ ok: true });
    releaseLock(path);
  });

  it("does not release another process's lock", () => {
    const path = join(tempDir(), "digest.lock");
    writeFileSync(path, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: new Date().toISOString() }));
    releaseLock(path);
    expect(acquireLock(path).ok).toBe(false);
  });
});

describe("schedule", () => {
  const at = (s: string) => new Date(s);
  it("finds the last scheduled time", () => {
    expect(lastScheduled(at("2026-11-30T10:00:00"), "03:00").toString()).toBe(at("2026-11-30T03:00:00").toString());
    expect(lastScheduled(at("2026-11-30T02:00:00"), "03:00").toString()).toBe(at("2026-11-29T03:00:00").toString());
  });

  it("catches up on a night missed while Obsidian was closed", () => {
    // Last ran two nights ago; Obsidian opens at 9 in the morning: due.
    expect(isDue(at("2026-11-30T09:00:00"), "03:00", at("2026-11-28T03:05:00").toISOString())).toBe(true);
    // Ran this morning at 3: not due again until tomorrow.
    expect(isDue(at("2026-11-30T09:00:00"), "03:00", at("2026-11-30T03:01:00").toISOString())).toBe(false);
    expect(isDue(at("2026-11-30T09:00:00"), "03:00", undefined)).toBe(true);
  });
});

describe("git snapshot", () => {
  function repo(files: number): string {
    const dir = tempDir();
    const g = (...a: string[]) => spawnSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...a], { encoding: "utf8" });
    g("init", "-q");
    mkdirSync(join(dir, "cards"));
    for (let i = 0; i < files; i++) writeFileSync(join(dir, "cards", `c${i}.md`), `card ${i}\n`);
    g("add", "-A");
    g("commit", "-qm", "start");
    return dir;
  }

  it("refuses, and unstages, a commit that would delete more than 30 files", () => {
    const dir = repo(40);
    for (let i = 0; i <= MAX_DELETIONS; i++) unlinkSync(join(dir, "cards", `c${i}.md`));
    expect(commitVault(dir, "digest")).toEqual({ status: "refused", deletions: 31 });
    expect(spawnSync("git", ["-C", dir, "diff", "--cached", "--name-only"], { encoding: "utf8" }).stdout).toBe("");
    expect(spawnSync("git", ["-C", dir, "log", "--oneline"], { encoding: "utf8" }).stdout.trim().split("\n")).toHaveLength(1);
  });

  it("commits a change with a few deletions, and leaves the hidden folder out", () => {
    const dir = repo(10);
    unlinkSync(join(dir, "cards", "c0.md"));
    writeFileSync(join(dir, "cards", "new.md"), "new\n");
    mkdirSync(join(dir, ".vault-memory"));
    writeFileSync(join(dir, ".vault-memory", "snapshot.jsonl"), "{}\n");
    expect(commitVault(dir, "digest")).toEqual({ status: "committed", files: 2 });
    expect(commitVault(dir, "digest")).toEqual({ status: "nothing-to-commit" });
    expect(commitVault(tempDir(), "digest")).toEqual({ status: "not-a-repo" });
  });
});
