/** The search over the cards' vectors once the prompt's has come: sign bits for a first cut, int8 rows for the cosine. */

// The module's bytes, assembled from nearest.wat at build time (scripts/wat.mjs).
import searchModule from "./nearest.wat";

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
  for (let have = histogram[0]; cut < histogram.length - 1 && have < want;) have += histogram[++cut];
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
 * products. Undefined without WebAssembly. The module (nearest.wat) has three functions:
 *
 *   a(n, longs, B, D, H)      for each piece p of n: D[p] = popcnt of its signs XOR the query's
 *                             (the 64-bit words at 0), and H[D[p]] += 1
 *   p(n, cut, max, D, P) → c  P[c++] = p for each piece with D[p] < cut, then each with
 *                             D[p] = cut, at most max in all
 *   d(c, dim, R, F, O)        O[r] = sum of i8 row r at R times f32 query at F, in f64 (as
 *                             JavaScript adds them, so the two searches give equal numbers)
 */
function wasmSearch(bits: Uint32Array, words: number, pieces: number, dim: number, max: number): PieceSearch | undefined {
  let instance: WebAssembly.Instance;
  try {
    instance = new WebAssembly.Instance(new WebAssembly.Module(searchModule));
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
  // Each function run once now, over all it will work on, with a query of zeros: V8 compiles a
  // function quickly on its first call and well once it has run long enough, so the real runs,
  // after the server's answer, find it compiled well. Run on one piece or one row, picking and
  // the dot products took 0.5 to 0.8 ms each after the answer; this is while the server works.
  exports.a(pieces, longs, B, D, H);
  exports.p(pieces, 0, max, D, P);
  exports.d(max, dim, R, F, O);
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
