/** Small, fast, dependency-free hashes: FNV-1a for shard choice and per-segment integrity. */

// fnv1aWords' loop in WebAssembly, assembled from hash.wat at build time (scripts/wat.mjs).
import hasherModule from "./hash.wat";

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over UTF-16 code units: picks a term's shard, so it must never change within a format version. */
export function fnv1aString(text: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/**
 * FNV-1a over bytes: catches a segment that was cut or overwritten, cheaply enough for the hot path.
 * Passing the hash of what came before as `seed` continues it, so pieces hash as their concatenation.
 */
export function fnv1aBytes(bytes: Uint8Array, start = 0, end = bytes.length, seed = FNV_OFFSET): number {
  let h = seed;
  for (let i = start; i < end; i++) {
    h ^= bytes[i];
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * FNV-1a over 32-bit little-endian words, then the last bytes one by one: a segment's hash, which
 * every recall computes for what it reads, and the check of the prompt hook's code cache (about
 * 100 KB). A cold process would run a JavaScript loop in V8's interpreter, tens of instructions a
 * step; the same loop in WebAssembly (hash.wat) runs at a few per word: measured in the whole
 * prompt hook, about a tenth of its instructions (docs/speed.md). The JavaScript loop stays
 * for where WebAssembly is unavailable.
 */
export function fnv1aWords(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const wasm = end - start <= MAX_WASM_BYTES ? wordsHasher() : undefined;
  if (wasm) return wasm(bytes.subarray(start, end));
  let h = FNV_OFFSET;
  let i = start;
  const words = (end - start) >>> 2;
  const offset = bytes.byteOffset + start;
  if (LITTLE_ENDIAN && offset % 4 === 0) {
    const view = new Int32Array(bytes.buffer, offset, words);
    for (let w = 0; w < words; w++) h = Math.imul(h ^ view[w], FNV_PRIME);
    i += words * 4;
  } else {
    for (let w = 0; w < words; w++, i += 4) h = Math.imul(h ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)), FNV_PRIME);
  }
  for (; i < end; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  return h >>> 0;
}

/** The JavaScript loop alone, so tests can hold the two to the same answers. */
export function fnv1aWordsScript(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const saved = hasher;
  hasher = null;
  try {
    return fnv1aWords(bytes, start, end);
  } finally {
    hasher = saved;
  }
}

// Inputs are copied into the module's memory, which keeps its size: a bound keeps it small.
const MAX_WASM_BYTES = 32 << 20;
const PAGE = 65536;
// Shared through the process object so that two bundles in one process (the hook's entry and its
// recall code) instantiate the module once.
const SHARED = Symbol.for("vault-memory.fnv1aWords");
let hasher: ((bytes: Uint8Array) => number) | null | undefined;

/** The module of hash.wat, instantiated once per process; undefined where WebAssembly is unavailable. */
function wordsHasher(): ((bytes: Uint8Array) => number) | undefined {
  if (hasher !== undefined) return hasher ?? undefined;
  const shared = (process as unknown as Record<symbol, unknown>)[SHARED] as ((bytes: Uint8Array) => number) | undefined;
  if (shared) return (hasher = shared);
  try {
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(hasherModule));
    const memory = exports.m as WebAssembly.Memory;
    const h = exports.h as (n: number) => number;
    hasher = (bytes) => {
      const need = Math.ceil(bytes.length / PAGE) - memory.buffer.byteLength / PAGE;
      if (need > 0) memory.grow(need);
      new Uint8Array(memory.buffer, 0, bytes.length).set(bytes);
      return h(bytes.length) >>> 0;
    };
    (process as unknown as Record<symbol, unknown>)[SHARED] = hasher;
  } catch {
    hasher = null;
  }
  return hasher ?? undefined;
}
