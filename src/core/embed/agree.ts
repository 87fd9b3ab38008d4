/** How many sign bits each piece shares with the query, for every piece of the vault at once. */

import { sleb, uleb, wasmSection } from "../io/hash";

/**
 * A WebAssembly module of one function, a(n, words): for each of n pieces, the number of bits of
 * its `words` 32-bit words that agree with the query's, which sits at the start of memory, the
 * pieces after it, the counts after them. In a process that runs it once the same loop in
 * JavaScript is mostly V8's interpreter, about five milliseconds at 15,000 pieces of 1,024
 * dimensions; this runs in a fraction of one. Built from its opcodes, so it can be read:
 *
 *   (func (param $n i32) (param $words i32) (local $p $k $same $w $out $q i32)
 *     w = words << 2; out = w + (n * words << 2)
 *     while p < n:
 *       same = 0; k = 0; q = 0
 *       while k < words: same += popcnt(~(load(w) ^ load(q))); w += 4; q += 4; k += 1
 *       store(out + (p << 2), same); p += 1)
 */
function agreeModule(): Uint8Array<ArrayBuffer> {
  const [get, set, i32, block, loop, end, brIf, br, geU, xor, mul, add, shl, load, store, popcnt] = [0x20, 0x21, 0x41, 0x02, 0x03, 0x0b, 0x0d, 0x0c, 0x4f, 0x73, 0x6c, 0x6a, 0x74, 0x28, 0x36, 0x69];
  const [N, WORDS, P, K, SAME, W, OUT, Q, EMPTY] = [0, 1, 2, 3, 4, 5, 6, 7, 0x40];
  const inc = (local: number, by: number): number[] => [get, local, i32, ...sleb(by), add, set, local];
  const body = [
    1, 6, 0x7f, // six i32 locals
    get, WORDS, i32, 2, shl, set, W,
    get, W, get, N, get, WORDS, mul, i32, 2, shl, add, set, OUT,
    block, EMPTY, loop, EMPTY,
    get, P, get, N, geU, brIf, 1,
    i32, 0, set, SAME, i32, 0, set, K, i32, 0, set, Q,
    block, EMPTY, loop, EMPTY,
    get, K, get, WORDS, geU, brIf, 1,
    get, SAME, get, W, load, 2, 0, get, Q, load, 2, 0, xor, i32, ...sleb(-1), xor, popcnt, add, set, SAME,
    ...inc(W, 4), ...inc(Q, 4), ...inc(K, 1),
    br, 0, end, end,
    get, OUT, get, P, i32, 2, shl, add, get, SAME, store, 2, 0,
    ...inc(P, 1),
    br, 0, end, end,
    end,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...wasmSection(1, [1, 0x60, 2, 0x7f, 0x7f, 0]), // one type: (i32, i32) -> ()
    ...wasmSection(3, [1, 0]),
    ...wasmSection(5, [1, 0, 1]),
    ...wasmSection(7, [2, 1, 0x6d, 2, 0, 1, 0x61, 0, 0]), // exports "m" (memory) and "a" (function)
    ...wasmSection(10, [1, ...uleb(body.length), ...body]),
  ]);
}

const PAGE = 65536;

/**
 * The pieces' bits in a WebAssembly instance, ready for a query: made while the embedding server
 * works on the prompt, so that only the count itself is left once its vector arrives. Undefined
 * without WebAssembly.
 */
export function prepareAgreement(bits: Uint32Array, words: number, pieces: number): ((query: Uint32Array) => Int32Array) | undefined {
  let instance: WebAssembly.Instance;
  try {
    instance = new WebAssembly.Instance(new WebAssembly.Module(agreeModule()));
  } catch {
    return undefined;
  }
  const memory = instance.exports.m as WebAssembly.Memory;
  const bytes = (words + bits.length + pieces) * 4;
  const grow = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
  if (grow > 0) memory.grow(grow);
  new Uint32Array(memory.buffer).set(bits, words);
  const count = instance.exports.a as (n: number, words: number) => void;
  return (query) => {
    new Uint32Array(memory.buffer).set(query, 0);
    count(pieces, words);
    return new Int32Array(memory.buffer, (words + bits.length) * 4, pieces);
  };
}

/** Agreeing bits of each piece with `query`; `bits` holds the pieces' words one after another. Undefined without WebAssembly. */
export function agreementWasm(query: Uint32Array, bits: Uint32Array, pieces: number): Int32Array | undefined {
  return prepareAgreement(bits, query.length, pieces)?.(query);
}

/** The same count in JavaScript: where WebAssembly is missing, and for the test that holds the two together. */
export function agreementScript(query: Uint32Array, bits: Uint32Array, pieces: number): Int32Array {
  const words = query.length;
  const out = new Int32Array(pieces);
  for (let p = 0, w = 0; p < pieces; p++) {
    let same = 0;
    for (let k = 0; k < words; k++, w++) {
      let x = ~(bits[w] ^ query[k]);
      x -= (x >>> 1) & 0x55555555;
      x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
      same += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    out[p] = same;
  }
  return out;
}
