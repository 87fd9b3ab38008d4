/**
 * Runs a CommonJS file of the bridge through V8 with a code cache. Node 20 has no compile cache of
 * its own, and compiling the recall code was about a fifth of every prompt's hook: with the cache,
 * V8 reads the compiled functions instead.
 *
 * V8 runs cached code without checking where it came from, so a cache is executable: it lives in
 * the person's own cache folder, which only they can write (mode 700), never beside the bridge,
 * which for Obsidian's "Connect Claude Code" is inside the vault, where a sync or another account
 * could plant one.
 */

import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { fnv1aWords } from "../../src/core/io/hash";
import { readRegularFile } from "../../src/core/io/read-file";
import { homeDir } from "../../src/core/io/home";

/** How the built file's first line names its build (esbuild.config.mjs writes it); the cache is only used for that exact build. */
const BUILD_MARK = "//vault-memory-build ";
// Fixed width, so the key is read without knowing its length: build, Node version, arch, whether
// the run that wrote the cache went all the way (see CachedModule.complete), and the FNV-1a of
// the cached data. V8 does not check its data in release builds: a damaged cache crashed the
// process on every prompt, so the hook checks it first.
const KEY_BYTES = 96;

export interface CachedModule<T> {
  exports: T;
  /**
   * Call when the run used the code a typical run uses. V8 caches only the functions compiled so
   * far, so a cache written by a run that stopped early (no snapshot yet) is replaced once by one
   * written after a full run.
   */
  complete: () => void;
}

/**
 * Runs `file`, a CommonJS bundle marked with its build (esbuild.config.mjs), as Node would run a
 * CommonJS file. `require` is the caller's: the file must sit beside the caller and
 * need only what the caller's require finds (Node's own modules). Node's createRequire loads the
 * module system's internals that a prompt's run otherwise never compiles.
 */
export function requireCached<T>(file: string, build: string, require: NodeJS.Require): CachedModule<T> {
  // Read plainly: the bridge's own bundle beside the running entry, not a file anyone put there.
  const source = readFileSync(file, "utf8");
  const dir = privateCacheDir();
  const cachePath = dir ? join(dir, cacheName(file)) : "";
  // A file of another build (copied over by hand, half an upgrade) must not run with this cache:
  // V8 checks only the source's length, and would run the old functions.
  const ours = build !== "" && source.startsWith(BUILD_MARK + build + "\n");
  const key = (full: boolean, sum: number): string =>
    `${build} ${process.version} ${process.arch} ${full ? "full" : "part"} ${sum.toString(16).padStart(8, "0")}`.padEnd(KEY_BYTES).slice(0, KEY_BYTES);
  let cached: Buffer | undefined;
  let cachedFull = false;
  if (ours && cachePath) {
    try {
      const bytes = readPrivate(cachePath);
      const head = bytes.subarray(0, KEY_BYTES).toString("latin1");
      const data = bytes.subarray(KEY_BYTES);
      const sum = fnv1aWords(data);
      if (head === key(true, sum) || head === key(false, sum)) {
        cached = data;
        cachedFull = head === key(true, sum);
      }
    } catch {
      /* no cache yet: this run writes one */
    }
  }
  // Wrapped in the function CommonJS runs a file in, as Node's loader does.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData: cached });
  const usable = cached !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: { exports: T }, f: string, d: string) => void;
  wrapper(module.exports, require, module, file, dirname(file));
  let full = false;
  if (ours && cachePath && (!usable || !cachedFull)) {
    // At exit, after the answer is out: the cache then holds every function this run compiled.
    process.once("exit", () => {
      if (usable && !full) return;
      try {
        const data = script.createCachedData();
        writeCache(cachePath, Buffer.concat([Buffer.from(key(full, fnv1aWords(data)), "latin1"), data]));
      } catch {
        /* a read-only install runs without a cache, as fast as before it had one */
      }
    });
  }
  return {
    exports: module.exports,
    complete: () => {
      full = true;
    },
  };
}

let cacheFolder: string | undefined;

/** The person's cache folder for the bridge: XDG's on Linux, Caches on macOS, LocalAppData on Windows. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith("/")) return join(env.XDG_CACHE_HOME, "vault-memory");
  if (platform === "win32") return join(env.LOCALAPPDATA || join(homeDir(env), "AppData", "Local"), "vault-memory", "cache");
  if (platform === "darwin") return join(homeDir(env), "Library", "Caches", "vault-memory");
  return join(homeDir(env), ".cache", "vault-memory");
}

/** The cache's file for a bridge file: its name and a hash of its folder, so two installed copies keep their own. */
export function cacheName(file: string): string {
  let h = 2166136261;
  const d = dirname(file);
  for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d.charCodeAt(i), 16777619);
  return `${basename(file)}.${(h >>> 0).toString(16).padStart(8, "0")}.v8cache`;
}

// A cache larger than this is not one V8 wrote for the bridge (a real one is about 1 MB).
const MAX_CACHE_BYTES = 32 << 20;

/**
 * The cache folder, made if missing; "" when it is not the person's alone (another owner, a
 * link, writable by others), and then no cache is read or written. Checked once a process: the
 * prompt hook finds its resident server there, then runs its files through the cache there.
 */
export function privateCacheDir(): string {
  return (cacheFolder ??= checkedCacheDir());
}

function checkedCacheDir(): string {
  const dir = cacheDir();
  try {
    // The folder it is made in must not be another's to rename or replace it in either.
    if (!safeParent(dirname(dir))) return "";
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return "";
    if (process.platform === "win32" || typeof process.getuid !== "function") return dir;
    if (st.uid !== process.getuid()) return "";
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    return dir;
  } catch {
    return "";
  }
}

function safeParent(parent: string): boolean {
  if (process.platform === "win32" || typeof process.getuid !== "function") return true;
  let st;
  try {
    st = lstatSync(parent);
  } catch {
    return true; // made now, with the mode above
  }
  const mine = st.uid === process.getuid() || st.uid === 0;
  return st.isDirectory() && mine && ((st.mode & 0o022) === 0 || (st.mode & 0o1000) !== 0);
}

/** A cache file: a regular file of ours, not a link, bounded, opened without blocking. */
function readPrivate(path: string): Buffer {
  const mine = (st: { uid: number }): string => (typeof process.getuid === "function" && st.uid !== process.getuid() ? "not ours" : "");
  return readRegularFile(path, { maxBytes: MAX_CACHE_BYTES, noFollow: true, check: mine });
}

function writeCache(path: string, bytes: Buffer): void {
  // Atomic by rename, so two hooks at once never leave a torn cache; the io module is not used
  // because the entry must load nothing it does not need.
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
