/** The prompt hook's code cache: written once after a full run, used after, and never trusted blindly. */

import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRIDGE_FILE, BRIDGE_FILES } from "../../src/core/install/hook-commands";
import { copyVault, hookJson, ROOT, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";

const CACHE = ".vault-memory-hot.cjs.v8cache";
const KEY_BYTES = 96;

/** A bridge copy of its own, so each case starts without a cache. */
function bridgeCopy(): string {
  const dir = tempDir("vm-cache-");
  for (const name of BRIDGE_FILES) copyFileSync(join(ROOT, "hook-bridge", "dist", name), join(dir, name));
  return dir;
}

function recallFrom(dir: string, vault: string, prompt = "为什么排程跑不起来", entry = BRIDGE_FILE): string {
  const r = spawnSync(process.execPath, [join(dir, entry), "recall", "--vault", vault], { input: hookJson(prompt, { session_id: `s-${Math.random()}` }), encoding: "utf8" });
  expect(r.status).toBe(0);
  return r.stdout;
}

function cacheKey(dir: string): string {
  return readFileSync(join(dir, CACHE)).subarray(0, KEY_BYTES).toString("latin1").trim();
}

describe("the prompt hook's code cache", () => {
  const vault = copyVault(SAMPLE_VAULT, "Cache Vault");
  runBridge(["index", "--vault", vault]);
  const expected = recallFrom(join(ROOT, "hook-bridge", "dist"), vault);

  it("is written by the first full run, for this build, Node and machine, and the next run answers the same", () => {
    const dir = bridgeCopy();
    expect(expected).toContain("launchd-cron-path.md");
    expect(recallFrom(dir, vault)).toBe(expected);
    const build = /^\/\/vault-memory-build (\w+)\n/.exec(readFileSync(join(dir, "vault-memory-hot.cjs"), "utf8"))![1];
    expect(cacheKey(dir)).toMatch(new RegExp(`^${build} ${process.version} ${process.arch} full [0-9a-f]{8}$`));
    const written = readFileSync(join(dir, CACHE));
    expect(recallFrom(dir, vault)).toBe(expected);
    // A usable cache of a full run is left as it is.
    expect(readFileSync(join(dir, CACHE)).equals(written)).toBe(true);
  });

  it("is replaced once a full run follows a run that stopped early", () => {
    const dir = bridgeCopy();
    const empty = tempDir("vm-cache-vault-");
    expect(recallFrom(dir, empty)).toBe("");
    expect(cacheKey(dir)).toMatch(/ part \w+$/);
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(cacheKey(dir)).toMatch(/ full \w+$/);
  });

  it("is rejected and rewritten when damaged, or written for another Node", () => {
    const dir = bridgeCopy();
    recallFrom(dir, vault);
    const good = readFileSync(join(dir, CACHE));
    const damaged = Buffer.from(good);
    for (let i = KEY_BYTES + 64; i < damaged.length; i += 97) damaged[i] ^= 0xff;
    writeFileSync(join(dir, CACHE), damaged);
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(readFileSync(join(dir, CACHE)).equals(damaged)).toBe(false);
    const foreign = Buffer.concat([Buffer.from(cacheKey(dir).replace(process.version, "v99.0.0").padEnd(KEY_BYTES), "latin1"), Buffer.from("garbage")]);
    writeFileSync(join(dir, CACHE), foreign);
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(cacheKey(dir)).toContain(process.version);
  });

  it("is not used with a hot file of another build, even of the same length", () => {
    const dir = bridgeCopy();
    recallFrom(dir, vault);
    const hot = join(dir, "vault-memory-hot.cjs");
    const text = readFileSync(hot, "utf8");
    // Same length, another build mark: V8 alone would take the old cache for it.
    writeFileSync(hot, text.replace(/^\/\/vault-memory-build (\w)/, (_m, c: string) => `//vault-memory-build ${c === "0" ? "1" : "0"}`));
    const before = readFileSync(join(dir, CACHE));
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(readFileSync(join(dir, CACHE)).equals(before)).toBe(true);
  });

  it("is skipped where the bridge's folder cannot be written, and the hook answers all the same", () => {
    if (process.getuid?.() === 0) return; // root writes anywhere; the case cannot be made here
    const dir = bridgeCopy();
    chmodSync(dir, 0o555);
    try {
      expect(recallFrom(dir, vault)).toBe(expected);
      expect(existsSync(join(dir, CACHE))).toBe(false);
    } finally {
      chmodSync(dir, 0o755);
    }
  });

  it("serves hooks installed by earlier releases through the old entry name", () => {
    const dir = bridgeCopy();
    expect(recallFrom(dir, vault, "为什么排程跑不起来", "vault-memory.mjs")).toBe(expected);
  });
});
