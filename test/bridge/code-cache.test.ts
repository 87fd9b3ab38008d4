/** The prompt hook's code cache: written once after a full run, used after, and never trusted blindly. */

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRIDGE_FILE, BRIDGE_FILES } from "../../src/core/install/hook-commands";
import { copyVault, hookJson, ROOT, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { cacheDir, cacheName } from "../../hook-bridge/src/code-cache";

/** Where a bridge copy's recall code is cached: the person's cache folder, never beside it. */
const cacheOf = (dir: string): string => join(cacheDir(), cacheName(join(dir, "vault-memory-recall.cjs")));
const KEY_BYTES = 96;

/** A bridge copy of its own, so each case starts without a cache. */
function bridgeCopy(): string {
  const dir = tempDir("vm-cache-");
  for (const name of BRIDGE_FILES) copyFileSync(join(ROOT, "hook-bridge", "dist", name), join(dir, name));
  return dir;
}

function recallFrom(dir: string, vault: string, prompt = "为什么排程跑不起来", entry = BRIDGE_FILE, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(process.execPath, [join(dir, entry), "recall", "--vault", vault, "--deadline-ms", "600000"], {
    input: hookJson(prompt, { session_id: `s-${Math.random()}` }),
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  expect(r.status).toBe(0);
  return r.stdout;
}

function cacheKey(dir: string): string {
  return readFileSync(cacheOf(dir)).subarray(0, KEY_BYTES).toString("latin1").trim();
}

describe("the prompt hook's code cache", () => {
  const vault = copyVault(SAMPLE_VAULT, "Cache Vault");
  runBridge(["index", "--vault", vault]);
  const expected = recallFrom(join(ROOT, "hook-bridge", "dist"), vault);

  it("is written by the first full run, for this build, Node and machine, and the next run answers the same", () => {
    const dir = bridgeCopy();
    expect(expected).toContain("launchd-cron-path.md");
    expect(recallFrom(dir, vault)).toBe(expected);
    const build = /^\/\/vault-memory-build (\w+)\n/.exec(readFileSync(join(dir, "vault-memory-recall.cjs"), "utf8"))![1];
    expect(cacheKey(dir)).toMatch(new RegExp(`^${build} ${process.version} ${process.arch} full [0-9a-f]{8}$`));
    const written = readFileSync(cacheOf(dir));
    expect(recallFrom(dir, vault)).toBe(expected);
    // A usable cache of a full run is left as it is.
    expect(readFileSync(cacheOf(dir)).equals(written)).toBe(true);
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
    const good = readFileSync(cacheOf(dir));
    const damaged = Buffer.from(good);
    for (let i = KEY_BYTES + 64; i < damaged.length; i += 97) damaged[i] ^= 0xff;
    writeFileSync(cacheOf(dir), damaged);
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(readFileSync(cacheOf(dir)).equals(damaged)).toBe(false);
    const foreign = Buffer.concat([Buffer.from(cacheKey(dir).replace(process.version, "v99.0.0").padEnd(KEY_BYTES), "latin1"), Buffer.from("garbage")]);
    writeFileSync(cacheOf(dir), foreign);
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(cacheKey(dir)).toContain(process.version);
  });

  it("is not used with a recall file of another build, even of the same length", () => {
    const dir = bridgeCopy();
    recallFrom(dir, vault);
    const recallFile = join(dir, "vault-memory-recall.cjs");
    const text = readFileSync(recallFile, "utf8");
    // Same length, another build mark: V8 alone would take the old cache for it.
    writeFileSync(
      recallFile,
      text.replace(/^\/\/vault-memory-build (\w)/, (_m, c: string) => `//vault-memory-build ${c === "0" ? "1" : "0"}`),
    );
    const before = readFileSync(cacheOf(dir));
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(readFileSync(cacheOf(dir)).equals(before)).toBe(true);
  });

  it("is skipped where the bridge's folder cannot be written, and the hook answers all the same", () => {
    if (process.getuid?.() === 0) return; // root writes anywhere; the case cannot be made here
    const dir = bridgeCopy();
    chmodSync(dir, 0o555);
    try {
      expect(recallFrom(dir, vault)).toBe(expected);
      expect(existsSync(cacheOf(dir))).toBe(false);
    } finally {
      chmodSync(dir, 0o755);
    }
  });

  it("serves hooks installed by earlier releases through the old entry name", () => {
    const dir = bridgeCopy();
    expect(recallFrom(dir, vault, "为什么排程跑不起来", "vault-memory.mjs")).toBe(expected);
  });

  it("lives in the person's own cache folder, private to them, and never beside the bridge", () => {
    const dir = bridgeCopy();
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(readdirSync(dir).filter((f) => f.endsWith(".v8cache"))).toEqual([]);
    if (process.platform === "win32") return;
    expect(statSync(cacheOf(dir)).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
  });

  it("never reads a cache planted beside the bridge, as a sync into the vault would", () => {
    const dir = bridgeCopy();
    recallFrom(dir, vault);
    const good = readFileSync(cacheOf(dir));
    // A cache of the right key beside the bridge, whose data is not V8's: read, it would crash.
    const planted = Buffer.concat([good.subarray(0, KEY_BYTES), Buffer.alloc(good.length - KEY_BYTES, 0x41)]);
    writeFileSync(join(dir, ".vault-memory-recall.cjs.v8cache"), planted);
    unlinkSync(cacheOf(dir));
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(existsSync(cacheOf(dir))).toBe(true);
  });

  it("answers, never hanging, whatever the cache path holds: a link to /dev/zero, 200 MB", () => {
    if (process.platform === "win32") return;
    const dir = bridgeCopy();
    mkdirSync(cacheDir(), { recursive: true, mode: 0o700 });
    symlinkSync("/dev/zero", cacheOf(dir));
    expect(recallFrom(dir, vault)).toBe(expected);
    // Replaced by a cache of its own, by rename: the link is gone, /dev/zero untouched.
    expect(lstatSync(cacheOf(dir)).isFile()).toBe(true);
    writeFileSync(cacheOf(dir), "");
    truncateSync(cacheOf(dir), 200 << 20);
    expect(recallFrom(dir, vault)).toBe(expected);
    expect(statSync(cacheOf(dir)).size).toBeLessThan(32 << 20);
  });

  it("uses no cache folder that another account owns", () => {
    if (process.platform === "win32" || process.getuid?.() !== 0) return; // making another's folder needs root, as CI is
    const dir = bridgeCopy();
    const theirs = tempDir("vm-their-cache-");
    chownSync(theirs, 65534, 65534);
    chmodSync(theirs, 0o777);
    expect(recallFrom(dir, vault, undefined, undefined, { XDG_CACHE_HOME: theirs })).toBe(expected);
    expect(readdirSync(theirs)).toEqual([]);
  });
});
