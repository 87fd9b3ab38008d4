/** Small, fast, dependency-free hashes: FNV-1a for shard choice and per-segment integrity. */

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
 * every recall computes for what it reads. A cold process would run a JavaScript loop in V8's
 * interpreter, tens of instructions a step; the same loop in WebAssembly (see wordsHasher) runs
 * at a few per word. The JavaScript loop stays for where WebAssembly is unavailable.
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

/**
 * A WebAssembly module of one function, h(n), the FNV-1a of memory[0, n) as fnv1aWords computes
 * it. Built here from its opcodes rather than shipped as a file, so that it is reviewable:
 *
 *   (func (param $n i32) (result i32) (local $h i32) (local $i i32) (local $w i32)
 *     h = OFFSET; w = n & ~3
 *     while i < w: h = (h ^ i32.load(i)) * PRIME; i += 4
 *     while i < n: h = (h ^ i32.load8_u(i)) * PRIME; i += 1
 *     return h)
 */
function wordsHasher(): ((bytes: Uint8Array) => number) | undefined {
  if (hasher !== undefined) return hasher ?? undefined;
  const shared = (process as unknown as Record<symbol, unknown>)[SHARED] as ((bytes: Uint8Array) => number) | undefined;
  if (shared) return (hasher = shared);
  try {
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(hasherModule()));
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

function hasherModule(): Uint8Array<ArrayBuffer> {
  const [get, set, i32, block, loop, end, brIf, br, geU, xor, mul, add, and, load, load8] = [0x20, 0x21, 0x41, 0x02, 0x03, 0x0b, 0x0d, 0x0c, 0x4f, 0x73, 0x6c, 0x6a, 0x71, 0x28, 0x2d];
  const [N, H, I, W, EMPTY] = [0, 1, 2, 3, 0x40];
  const step = (width: number, limit: number, loadOp: number[]): number[] => [
    block, EMPTY, loop, EMPTY,
    get, I, get, limit, geU, brIf, 1,
    get, H, get, I, ...loadOp, xor, i32, ...sleb(FNV_PRIME), mul, set, H,
    get, I, i32, width, add, set, I,
    br, 0, end, end,
  ];
  const body = [
    1, 3, 0x7f, // three i32 locals: h, i, w
    i32, ...sleb(FNV_OFFSET | 0), set, H,
    get, N, i32, ...sleb(-4), and, set, W,
    ...step(4, W, [load, 2, 0]),
    ...step(1, N, [load8, 0, 0]),
    get, H, end,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...wasmSection(1, [1, 0x60, 1, 0x7f, 1, 0x7f]), // one type: (i32) -> i32
    ...wasmSection(3, [1, 0]), // one function, of that type
    ...wasmSection(5, [1, 0, 1]), // one memory, one page to start
    ...wasmSection(7, [2, 1, 0x6d, 2, 0, 1, 0x68, 0, 0]), // exports "m" (memory) and "h" (function)
    ...wasmSection(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/** A WebAssembly module's section: its id, its size, its bytes (shared with embed/agree.ts). */
export function wasmSection(id: number, bytes: number[]): number[] {
  return [id, ...uleb(bytes.length), ...bytes];
}

/** Unsigned LEB128, as WebAssembly writes sizes and counts. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    const byte = n & 0x7f;
    n >>>= 7;
    out.push(n === 0 ? byte : byte | 0x80);
  } while (n !== 0);
  return out;
}

/** Signed LEB128, as WebAssembly writes constants. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}
