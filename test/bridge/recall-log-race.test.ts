/**
 * The prompt hooks of several sessions appending to the recall log at once, just as it passes the
 * size at which it is moved aside (recall/usage-log.ts): every line is kept in one generation or
 * the other, and the older generation is the long log, never a new log of a line or two moved
 * over it. The rounds repeat the race until it would show.
 */

import { spawn } from "node:child_process";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import esbuild from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { olderUsageLog, USAGE_LOG_ROTATE_BYTES } from "../../src/core/recall/usage-log";
import { wasmFromText } from "../../scripts/wat.mjs";
import { copyVault, hookJson, ROOT, runBridge, runBridgeAsync, SAMPLE_VAULT, tempDir } from "../helpers";

const ROUNDS = 5;
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

  // Each process crosses the size some 40 times (the recall log) or 5 times (the log of what hooks
  // did not do, 1 MB of lines of 1 KB).
  it.each([
    ["the recall log", "recall", "recall-log.jsonl", ["1000", "10000"], "recall-log.1.jsonl", 10_000],
    ["the hidden folder's log", "log", "vault-memory.log", ["5000"], "vault-memory.log.1", 1 << 20],
  ])("never moves a new log over the one moved aside, however often processes race to move it: %s", async (_what, kind, name, rest, olderName, least) => {
    const dir = tempDir();
    const child = join(dir, "append-usage.cjs");
    await esbuild.build({
      entryPoints: [join(ROOT, "test", "fixtures", "append-usage.ts")],
      outfile: child,
      bundle: true,
      platform: "node",
      format: "cjs",
      logLevel: "warning",
      plugins: [wasmFromText()],
    });
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
});
