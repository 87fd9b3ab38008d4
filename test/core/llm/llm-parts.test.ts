/** The LLM room's small parts: running a command, reading a failed call, the lock the digest and enrich share. */

import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { callFailed, classifyFailure, endsRun, failureReason } from "../../../src/core/llm/llm";
import { acquireLock, releaseLock, STALE_MS } from "../../../src/core/llm/lock";
import { runCommand } from "../../../src/core/llm/run-command";
import { ROOT, tempDir } from "../../helpers";

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
  const cli = (fields: Record<string, unknown>, code = 1) => ({
    code,
    stdout: JSON.stringify({ type: "result", subtype: "success", is_error: true, num_turns: 1, duration_ms: 1, ...fields }),
    stderr: "",
    timedOut: false,
    ms: 1,
  });

  it.each([
    [
      "connection",
      { api_error: "connection_failed", api_error_status: null, result: "API Error: Connection refused (ECONNREFUSED)" },
      "cannot reach the API: API Error: Connection refused (ECONNREFUSED)",
    ],
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
    // No answer at all in its time: the next call would wait as long for nothing.
    expect(endsRun("timeout")).toBe(true);
  });

  it("reads a call its run stopped as the end of the night, and says so rather than a timeout", () => {
    const stopped = { code: null, stdout: "", stderr: "", timedOut: false, stopped: true, ms: 1 };
    expect(callFailed(stopped)).toBe(true);
    expect(endsRun(classifyFailure(stopped))).toBe(true);
    expect(failureReason(stopped, 300)).toBe("no answer before the run was stopped");
    expect(failureReason({ ...stopped, stopped: false, timedOut: true }, 300)).toBe("no answer within 300 s");
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
    buildSync({ entryPoints: [join(ROOT, "src/core/llm/lock.ts")], bundle: true, platform: "node", format: "cjs", outfile: lock, logLevel: "error" });
    const script = join(dir, "take.cjs");
    // Each taker stays alive, holding what it took, until every one has answered: a lock whose
    // process has ended is free for the next.
    writeFileSync(
      script,
      `process.stdout.write(JSON.stringify(require(${JSON.stringify(lock)}).acquireLock(process.argv[2])) + "\\n");\nprocess.stdin.resume();\n`,
    );
    for (let round = 0; round < 3; round++) {
      const path = join(dir, `round-${round}.lock`);
      writeFileSync(path, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: new Date(Date.now() - STALE_MS - 60_000).toISOString() }));
      const takers = Array.from({ length: 4 }, () => spawn(process.execPath, [script, path], { stdio: ["pipe", "pipe", "inherit"] }));
      const answers = takers.map(
        (child) => new Promise<{ ok: boolean }>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(JSON.parse(d.toString()) as { ok: boolean }))),
      );
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
