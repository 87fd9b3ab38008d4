/**
 * Processes racing for one file lock: never two holders at once, and never a released lock put
 * back. Six processes (test/fixtures/lock-taker.ts) take one lock again and again: once where
 * every other time each leaves it as a holder that died would (some 850 takeovers), and once on a
 * file system without hard links, where a lock is empty for a moment as it is made. Each repeats
 * its race until it shows (two holders, or a lock held off for its whole wait, in most runs of
 * the release before).
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForNode } from "../../../scripts/bundle-node.mjs";
import { ROOT, tempDir } from "../../helpers";

const TAKERS = 6;
const TIMES = 300;

describe("a file lock whose holder died, taken over by several processes at once", () => {
  const bin = tempDir();
  const child = join(bin, "lock-taker.cjs");
  beforeAll(async () => {
    await bundleForNode(join(ROOT, "test", "fixtures", "lock-taker.ts"), child, "cjs");
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it.each([
    ["whose holders die", true, ""],
    ["on a drive without hard links", false, "nolinks"],
  ])(
    "lets one process in at a time: %s",
    async (_what, die, links) => {
      const dir = tempDir();
      const lock = join(dir, "cards.lock");
      const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
      const host = spawnSync(process.execPath, ["-e", "process.stdout.write(require('node:os').hostname())"], { encoding: "utf8" }).stdout;
      // Every taker still running when one fails is stopped, and the folder removed, whatever the outcome.
      const running = new Set<ChildProcess>();
      const run = (who: string): Promise<string> =>
        new Promise((resolve, reject) => {
          // Without hard links the race is an instant of each lock's making, so it is run longer.
          const times = links === "nolinks" ? 3 * TIMES : TIMES;
          const p = spawn(process.execPath, [child, lock, who, String(times), die ? gone : "none", host, links], { stdio: ["ignore", "pipe", "inherit"] });
          running.add(p);
          let out = "";
          p.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
          p.on("error", reject);
          p.on("close", (code) => {
            running.delete(p);
            if (code === 0) resolve(out);
            else reject(new Error(`${who} exited ${code}`));
          });
        });
      try {
        const overlaps = await Promise.all(Array.from({ length: TAKERS }, (_, i) => run(`t${i}`)));
        expect(overlaps).toEqual(Array(TAKERS).fill("0"));
        // Released at the end, its turns too; every lock taken over is kept beside it.
        const left = readdirSync(dir);
        expect(left.filter((f) => !f.startsWith("cards.lock.stale-"))).toEqual([]);
        if (die) expect(left.length).toBeGreaterThan(TAKERS * 10);
      } finally {
        const ended = [...running].map((p) => new Promise((resolve) => p.once("close", resolve)));
        for (const p of running) p.kill("SIGKILL");
        await Promise.all(ended);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
