/**
 * Runs a CommonJS file of the bridge through V8 with a code cache kept beside it. Node 20 has no
 * compile cache of its own, and compiling the recall code was about a fifth of every prompt's
 * hook: with the cache, V8 reads the compiled functions instead.
 */

import { closeSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { fnv1aWords } from "../../src/core/io/hash";

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
 * `require` is the caller's: the file must sit beside the caller and need only what the caller's
 * require finds (Node's own modules). Node's createRequire loads the module system's internals
 * that a prompt's run otherwise never compiles. `hash` checks the cache: fnv1aWords, or its
 * JavaScript loop where a process's first WebAssembly (most of a millisecond to set up) would
 * stand before something more urgent.
 */
export function requireCached<T>(file: string, build: string, require: NodeJS.Require, hash: (bytes: Uint8Array) => number = fnv1aWords): CachedModule<T> {
  const source = readFileSync(file, "utf8");
  const cachePath = join(dirname(file), `.${basename(file)}.v8cache`);
  // A file of another build (copied over by hand, half an upgrade) must not run with this cache:
  // V8 checks only the source's length, and would run the old functions.
  const ours = build !== "" && source.startsWith(BUILD_MARK + build + "\n");
  const key = (full: boolean, sum: number): string =>
    `${build} ${process.version} ${process.arch} ${full ? "full" : "part"} ${sum.toString(16).padStart(8, "0")}`.padEnd(KEY_BYTES).slice(0, KEY_BYTES);
  let cached: Buffer | undefined;
  let cachedFull = false;
  if (ours) {
    try {
      const bytes = readFileSync(cachePath);
      const head = bytes.subarray(0, KEY_BYTES).toString("latin1");
      const data = bytes.subarray(KEY_BYTES);
      const sum = hash(data);
      if (head === key(true, sum) || head === key(false, sum)) {
        cached = data;
        cachedFull = head === key(true, sum);
      }
    } catch {
      /* no cache yet: this run writes one */
    }
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData: cached });
  const usable = cached !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: { exports: T }, f: string, d: string) => void;
  wrapper(module.exports, require, module, file, dirname(file));
  let full = false;
  if (ours && (!usable || !cachedFull)) {
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

function writeCache(path: string, bytes: Buffer): void {
  // Atomic by rename, so two hooks at once never leave a torn cache; the io module is not used
  // because the entry must load nothing it does not need.
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w", 0o644);
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
