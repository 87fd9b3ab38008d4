import { describe, expect, it } from "vitest";
import { pieceSearch } from "../../../src/core/embed/nearest";

let seed = 7;
const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
const randomVector = (dim: number): Float32Array => Float32Array.from({ length: dim }, () => (rand() / 2 ** 32) * 2 - 1);

/** Pieces as the vectors file holds them: sign bits in 32-bit words, int8 rows. */
function piecesOf(vectors: readonly Float32Array[], dim: number): { bits: Uint32Array; words: number; rows: Int8Array } {
  const words = Math.ceil(dim / 32);
  const bits = new Uint32Array(words * vectors.length);
  const rows = new Int8Array(dim * vectors.length);
  vectors.forEach((v, p) => {
    for (let i = 0; i < dim; i++) {
      if (v[i] > 0) bits[p * words + (i >> 5)] |= 1 << (i & 31);
      rows[p * dim + i] = Math.round(v[i] * 127);
    }
  });
  return { bits, words, rows };
}

describe("the search over the pieces' vectors", () => {
  it.each([
    [1, 1, 4],
    [20, 50, 8], // an odd number of 32-bit words (one): the module pads each piece with a zero word
    [96, 40, 8], // three
    [64, 500, 64],
    [1024, 3000, 64],
    [384, 20, 8], // fewer pieces than asked for
  ])("picks and scores the same in WebAssembly as in JavaScript (%i dimensions, %i pieces, at most %i)", (dim, pieces, max) => {
    const vectors = Array.from({ length: pieces }, () => randomVector(dim));
    const { bits, words, rows } = piecesOf(vectors, dim);
    const read = (into: Uint8Array, p: number): void => into.set(new Uint8Array(rows.buffer, p * dim, dim));
    const wasm = pieceSearch(bits, words, pieces, dim, max);
    const script = pieceSearch(bits, words, pieces, dim, max, true);
    expect([wasm.engine, script.engine]).toEqual(["wasm", "script"]);
    for (let q = 0; q < 5; q++) {
      const query = randomVector(dim);
      const picked = wasm.nearest(query, Math.ceil(max / 2));
      expect([...picked]).toEqual([...script.nearest(query, Math.ceil(max / 2))]);
      expect(picked.length).toBeGreaterThanOrEqual(Math.min(pieces, Math.ceil(max / 2)));
      expect(picked.length).toBeLessThanOrEqual(max);
      expect([...wasm.dots(query, picked, read)]).toEqual([...script.dots(query, picked, read)]);
    }
  });

  it("finds the piece nearest the query, and scores it by its int8 row", () => {
    const dim = 256;
    const vectors = Array.from({ length: 2000 }, () => randomVector(dim));
    const query = vectors[1234].map((x, i) => x + (i % 7 === 0 ? 0.05 : 0));
    const { bits, words, rows } = piecesOf(vectors, dim);
    const search = pieceSearch(bits, words, vectors.length, dim, 16);
    const picked = search.nearest(query, 8);
    expect([...picked]).toContain(1234);
    const dots = search.dots(query, picked, (into, p) => into.set(new Uint8Array(rows.buffer, p * dim, dim)));
    let exact = 0;
    for (let i = 0; i < dim; i++) exact += rows[1234 * dim + i] * query[i];
    expect(dots[picked.indexOf(1234)]).toBe(exact);
    expect(Math.max(...dots)).toBe(exact);
  });

  it("never lets pieces tied at the cut crowd out nearer ones later in the file", () => {
    const dim = 64;
    const query = randomVector(dim);
    // Two hundred copies of a piece that agrees on all but 8 signs, then twenty that agree on all but 2.
    const flip = (n: number): Float32Array => query.map((x, i) => (i < n ? -x : x));
    const vectors = [...Array.from({ length: 200 }, () => flip(8)), ...Array.from({ length: 20 }, () => flip(2))];
    const { bits, words } = piecesOf(vectors, dim);
    for (const script of [false, true]) {
      const picked = [...pieceSearch(bits, words, vectors.length, dim, 64, script).nearest(query, 32)];
      expect(picked.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => 200 + i));
      expect(picked).toHaveLength(64);
    }
  });

  it("keeps every piece tied with the last one wanted, up to its most", () => {
    // Four pieces, all the same: each agrees with any query as much as the others.
    const same = Float32Array.of(1, -1, 1, -1);
    const { bits, words } = piecesOf([same, same, same, same], 4);
    expect([...pieceSearch(bits, words, 4, 4, 8).nearest(same, 1)]).toEqual([0, 1, 2, 3]);
    expect([...pieceSearch(bits, words, 4, 4, 3).nearest(same, 1)]).toEqual([0, 1, 2]);
    expect([...pieceSearch(bits, words, 4, 4, 3, true).nearest(same, 1)]).toEqual([0, 1, 2]);
  });
});
