/** The search over the cards' vectors once the prompt's has come: sign bits for a first cut, int8 rows for the cosine. */

import { sleb, uleb, wasmSection } from "../io/hash";

/**
 * What a search does with the pieces' vectors, made ready while the embedding server works so
 * that only arithmetic is left when the prompt's vector arrives.
 */
export interface PieceSearch {
  /** Which of the two does the work: for the tests that hold them together. */
  engine: "wasm" | "script";
  /**
   * The pieces to rescore for `query`: the `want` whose signs agree with its signs the most, and
   * those tied with the last of them, at most `max` in all (every piece nearer than the last
   * first, then the tied ones in piece order). For unit vectors the share of agreeing signs
   * tracks the angle, so the nearest are among them.
   */
  nearest(query: Float32Array, want: number): Int32Array;
  /** `query` dot the int8 row of each of `pieces`, each row read by `read` into the bytes it is given. */
  dots(query: Float32Array, pieces: Int32Array, read: (into: Uint8Array, piece: number) => void): Float64Array;
}

/**
 * A search over `pieces` pieces of `dim` dimensions whose sign bits are `bits` (`words` 32-bit
 * words each), rescoring at most `max`. In WebAssembly unless `script` (or WebAssembly is
 * missing): in a process that runs it once, the same loops in JavaScript are mostly V8's
 * interpreter, several milliseconds at 15,000 pieces of 1,024 dimensions, where the module
 * takes a fraction of one.
 */
export function pieceSearch(bits: Uint32Array, words: number, pieces: number, dim: number, max: number, script = false): PieceSearch {
  return (script ? undefined : wasmSearch(bits, words, pieces, dim, max)) ?? scriptSearch(bits, words, pieces, dim, max);
}

/** The query's sign bits, `words` 32-bit words (more than the dimensions need are left 0). */
function signs(query: Float32Array, words: number): Uint32Array {
  const q = new Uint32Array(words);
  for (let i = 0; i < query.length; i++) if (query[i] > 0) q[i >> 5] |= 1 << (i & 31);
  return q;
}

/** The least disagreement at which `want` pieces are in, from the count of pieces at each. */
function cutOf(histogram: Int32Array, want: number): number {
  let cut = 0;
  for (let have = histogram[0]; cut < histogram.length - 1 && have < want; ) have += histogram[++cut];
  return cut;
}

/** The same search in JavaScript: where WebAssembly is missing, and for the test that holds the two together. */
function scriptSearch(bits: Uint32Array, words: number, pieces: number, dim: number, max: number): PieceSearch {
  return {
    engine: "script",
    nearest(query, want) {
      const q = signs(query, words);
      const differ = new Int32Array(pieces);
      const histogram = new Int32Array(words * 32 + 1);
      for (let p = 0, w = 0; p < pieces; p++) {
        let d = 0;
        for (let k = 0; k < words; k++, w++) {
          let x = bits[w] ^ q[k];
          x -= (x >>> 1) & 0x55555555;
          x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
          d += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
        }
        differ[p] = d;
        histogram[d]++;
      }
      const cut = cutOf(histogram, want);
      const picked: number[] = [];
      for (let p = 0; p < pieces && picked.length < max; p++) if (differ[p] < cut) picked.push(p);
      for (let p = 0; p < pieces && picked.length < max; p++) if (differ[p] === cut) picked.push(p);
      return Int32Array.from(picked);
    },
    dots(query, picked, read) {
      const row = new Uint8Array(dim);
      const r = new Int8Array(row.buffer);
      return Float64Array.from(picked, (p) => {
        read(row, p);
        let dot = 0;
        for (let i = 0; i < dim; i++) dot += r[i] * query[i];
        return dot;
      });
    },
  };
}

const PAGE = 65536;

/**
 * The search in a WebAssembly instance, the pieces' bits copied in. Its memory, in order: the
 * query's signs, the pieces' signs (in 64-bit words: a piece of an odd number of 32-bit words
 * gets a zero word, as the query does, so it never disagrees), each piece's disagreement, the
 * count of pieces at each disagreement, the picked pieces, the query, their int8 rows, their dot
 * products. Undefined without WebAssembly.
 */
function wasmSearch(bits: Uint32Array, words: number, pieces: number, dim: number, max: number): PieceSearch | undefined {
  let instance: WebAssembly.Instance;
  try {
    instance = new WebAssembly.Instance(new WebAssembly.Module(searchModule()));
  } catch {
    return undefined;
  }
  const longs = Math.ceil(words / 2);
  const Q = 0;
  const B = Q + longs * 8;
  const D = B + pieces * longs * 8;
  const H = D + pieces * 4;
  const histogramLength = longs * 64 + 1;
  const P = H + histogramLength * 4;
  const F = P + max * 4;
  const R = F + dim * 4;
  const O = Math.ceil((R + max * dim) / 8) * 8;
  const memory = instance.exports.m as WebAssembly.Memory;
  const grow = Math.ceil((O + max * 8) / PAGE) - memory.buffer.byteLength / PAGE;
  if (grow > 0) memory.grow(grow);
  const buffer = memory.buffer;
  const u32 = new Uint32Array(buffer);
  if (longs * 2 === words) u32.set(bits, B / 4);
  else for (let p = 0; p < pieces; p++) u32.set(bits.subarray(p * words, (p + 1) * words), B / 4 + p * longs * 2);
  const histogram = new Int32Array(buffer, H, histogramLength);
  const exports = instance.exports as Record<"a" | "p" | "d", (...args: number[]) => number>;
  // Each function run once now, on a query of zeros: V8 makes a module's code ready on a
  // function's first call, and that first count over every piece took 0.6 to 1.2 ms where later
  // ones take 0.1; this is while the server works, the real ones after.
  exports.a(pieces, longs, B, D, H);
  exports.p(1, 0, 1, D, P);
  exports.d(1, dim, R, F, O);
  return {
    engine: "wasm",
    nearest(query, want) {
      u32.set(signs(query, longs * 2), Q / 4);
      histogram.fill(0);
      exports.a(pieces, longs, B, D, H);
      const n = exports.p(pieces, cutOf(histogram, want), max, D, P);
      return new Int32Array(buffer, P, n).slice();
    },
    dots(query, picked, read) {
      new Float32Array(buffer, F, dim).set(query);
      const n = Math.min(picked.length, max);
      for (let r = 0; r < n; r++) read(new Uint8Array(buffer, R + r * dim, dim), picked[r]);
      exports.d(n, dim, R, F, O);
      return new Float64Array(buffer, O, n).slice();
    },
  };
}

/**
 * A module of three functions over one memory, built from its opcodes so that it can be read:
 *
 *   a(n, longs, B, D, H)      for each piece p of n: D[p] = popcnt of its signs XOR the query's
 *                             (the 64-bit words at 0), and H[D[p]] += 1
 *   p(n, cut, max, D, P) → c  P[c++] = p for each piece with D[p] < cut, then each with
 *                             D[p] = cut, at most max in all
 *   d(c, dim, R, F, O)        O[r] = sum of i8 row r at R times f32 query at F, in f64 (as
 *                             JavaScript adds them, so the two searches give equal numbers)
 */
function searchModule(): Uint8Array<ArrayBuffer> {
  const [get, set, tee, i32, f64c, block, loop, ifThen, end, br, brIf] = [0x20, 0x21, 0x22, 0x41, 0x44, 0x02, 0x03, 0x04, 0x0b, 0x0c, 0x0d];
  const [load, load64, loadF32, load8s, store, storeF64] = [0x28, 0x29, 0x2a, 0x2c, 0x36, 0x39];
  const [eq, ltU, geU, add, shl, xor64, popcnt64, wrap, fromI32, promote, mulF64, addF64] = [0x46, 0x49, 0x4f, 0x6a, 0x74, 0x85, 0x7b, 0xa7, 0xb7, 0xbb, 0xa2, 0xa0];
  const [I32, F64, VOID] = [0x7f, 0x7c, 0x40];
  const inc = (local: number, by: number): number[] => [get, local, i32, ...sleb(by), add, set, local];
  const at = (base: number, index: number, scale: number): number[] => [get, base, get, index, i32, scale, shl, add];
  // while (index < limit) { ...body; index += 1 }
  const forEach = (index: number, limit: number, body: number[]): number[] => [block, VOID, loop, VOID, get, index, get, limit, geU, brIf, 1, ...body, ...inc(index, 1), br, 0, end, end];

  const a = (() => {
    const [N, LONGS, Bp, Dp, Hp, P, K, DIFF, W, Q, T] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    return [
      1, 6, I32,
      get, Bp, set, W,
      ...forEach(P, N, [
        i32, 0, set, DIFF, i32, 0, set, K, i32, 0, set, Q,
        ...forEach(K, LONGS, [
          get, DIFF, get, W, load64, 3, 0, get, Q, load64, 3, 0, xor64, popcnt64, wrap, add, set, DIFF,
          ...inc(W, 8), ...inc(Q, 8),
        ]),
        ...at(Dp, P, 2), get, DIFF, store, 2, 0,
        ...at(Hp, DIFF, 2), tee, T, get, T, load, 2, 0, i32, 1, add, store, 2, 0,
      ]),
      end,
    ];
  })();
  const p = (() => {
    const [N, CUT, MAX, Dp, Pp, P, C] = [0, 1, 2, 3, 4, 5, 6];
    // One pass for the pieces under the cut, one for those at it.
    const pass = (compare: number): number[] => [
      i32, 0, set, P,
      ...forEach(P, N, [
        get, C, get, MAX, geU, brIf, 1,
        ...at(Dp, P, 2), load, 2, 0, get, CUT, compare,
        ifThen, VOID, ...at(Pp, C, 2), get, P, store, 2, 0, ...inc(C, 1), end,
      ]),
    ];
    return [1, 2, I32, ...pass(ltU), ...pass(eq), get, C, end];
  })();
  const d = (() => {
    const [C, DIM, Rp, Fp, Op, R, I, ROW, ACC] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
    return [
      2, 3, I32, 1, F64,
      get, Rp, set, ROW,
      ...forEach(R, C, [
        f64c, 0, 0, 0, 0, 0, 0, 0, 0, set, ACC, i32, 0, set, I,
        ...forEach(I, DIM, [
          get, ACC,
          get, ROW, get, I, add, load8s, 0, 0, fromI32,
          ...at(Fp, I, 2), loadF32, 2, 0, promote,
          mulF64, addF64, set, ACC,
        ]),
        ...at(Op, R, 3), get, ACC, storeF64, 3, 0,
        get, ROW, get, DIM, add, set, ROW,
      ]),
      end,
    ];
  })();
  const five = [5, I32, I32, I32, I32, I32];
  const fn = (body: number[]): number[] => [...uleb(body.length), ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...wasmSection(1, [2, 0x60, ...five, 0, 0x60, ...five, 1, I32]), // (i32 ×5) -> () and (i32 ×5) -> i32
    ...wasmSection(3, [3, 0, 1, 0]),
    ...wasmSection(5, [1, 0, 1]),
    ...wasmSection(7, [4, 1, 0x6d, 2, 0, 1, 0x61, 0, 0, 1, 0x70, 0, 1, 1, 0x64, 0, 2]), // "m" memory, "a" "p" "d"
    ...wasmSection(10, [3, ...fn(a), ...fn(p), ...fn(d)]),
  ]);
}
