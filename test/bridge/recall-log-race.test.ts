/**
 * The prompt hooks of several sessions appending to the recall log at once, just as it passes the
 * size at which it is moved aside (recall/usage-log.ts): every line is kept in one generation or
 * the other, and the older generation is the long log, never a new log of a line or two moved
 * over it. The rounds repeat the race until it would show.
 */

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { olderUsageLog, USAGE_LOG_ROTATE_BYTES } from "../../src/core/recall/usage-log";
import { bundleForNode } from "../../scripts/bundle-node.mjs";
import { copyVault, hookJson, ROOT, runBridge, runBridgeAsync, SAMPLE_VAULT, tempDir } from "../helpers";

const ROUNDS = 3;
const HOOKS = 8;

const lines = (path: string): number => readFileSync(path, "utf8").split("\n").length - 1;

describe("prompt hooks appending to the recall log as it is moved aside", () => {
  const vault = copyVault(SAMPLE_VAULT, "Log Race Vault");
  afterAll(() => rmSync(join(vault, ".."), { recursive: true, force: true }));

  it("keeps every line, and moves only the long log aside, in every round", async () => {
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const log = vaultFiles.usageLog(vault);
    const older = olderUsageLog(log);
    const line = JSON.stringify({ t: "2026-11-01T00:00:00.000Z", session: "old", prompt: "00000000", cards: [{ path: "a.md", score: 20 }], ms: 1 }) + "\n";
    const before = Math.ceil(USAGE_LOG_ROTATE_BYTES / line.length);
    const long = line.repeat(before);
    for (let round = 0; round < ROUNDS; round++) {
      rmSync(older, { force: true });
      writeFileSync(log, long);
      const runs = await Promise.all(Array.from({ length: HOOKS }, () => runBridgeAsync(["recall", "--vault", vault], hookJson("why is sqlite locked"))));
      expect(runs.map((r) => r.status)).toEqual(Array(HOOKS).fill(0));
      expect(statSync(older).size).toBeGreaterThanOrEqual(USAGE_LOG_ROTATE_BYTES);
      expect(lines(older) + lines(log)).toBe(before + HOOKS);
    }
  });

  // A process appending in a tight loop (test/fixtures/append-usage.ts), built once.
  const bin = tempDir();
  const child = join(bin, "append-usage.cjs");
  beforeAll(async () => {
    await bundleForNode(join(ROOT, "test", "fixtures", "append-usage.ts"), child, "cjs");
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  // Each process crosses the size some 40 times (the recall log) or 5 times (the log of what hooks
  // did not do, 1 MB of lines of 1 KB).
  it.each([
    ["the recall log", "recall", "recall-log.jsonl", ["1000", "10000"], "recall-log.1.jsonl", 10_000],
    ["the hidden folder's log", "log", "vault-memory.log", ["5000"], "vault-memory.log.1", 1 << 20],
  ])("never moves a new log over the one moved aside, however often processes race to move it: %s", async (_what, kind, name, rest, olderName, least) => {
    const dir = tempDir();
    const log = join(dir, name);
    const run = (who: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const p = spawn(process.execPath, [child, kind, log, who, ...rest], { stdio: ["ignore", "pipe", "inherit"] });
        let out = "";
        p.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
        p.on("error", reject);
        p.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${who} exited ${code}`))));
      });
    const short = await Promise.all(["a", "b", "c", "d"].map(run));
    expect(short).toEqual(["0", "0", "0", "0"]);
    expect(statSync(join(dir, olderName)).size).toBeGreaterThanOrEqual(least);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ["the recall log", "recall", "recall-log.jsonl", ["3", "10000"], "recall-log.1.jsonl", 10_000],
    ["the hidden folder's log", "log", "vault-memory.log", ["3"], "vault-memory.log.1", (1 << 20) + 1],
  ])("appends, and moves nothing, when its lock's path holds something no lock is: %s", (_what, kind, name, rest, olderName, size) => {
    const dir = tempDir();
    const log = join(dir, name);
    writeFileSync(log, "x".repeat(size - 1) + "\n");
    // A folder where the lock would be: no process holds it, and none can take it over.
    mkdirSync(`${log}.lock`);
    // In a process of its own, bounded: a lock that spun on such a path would hang this one.
    const r = spawnSync(process.execPath, [child, kind, log, "a", ...rest], { encoding: "utf8", timeout: 30_000 });
    expect([r.status, r.signal]).toEqual([0, null]);
    expect(lines(log)).toBe(4);
    expect(() => statSync(join(dir, olderName))).toThrow();
    rmSync(dir, { recursive: true, force: true });
  });
});
