import { describe, expect, it } from "vitest";
import { fnv1aBytes, fnv1aWords, fnv1aWordsScript } from "../../../src/core/io/hash";

/** Bytes that are the same on every run, so a failure can be replayed. */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) out[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return out;
}

describe("fnv1aWords", () => {
  // The WebAssembly loop must give the JavaScript loop's answers, or every snapshot the plugin
  // wrote would look damaged to the hook.
  it.each([0, 1, 3, 4, 5, 63, 64, 65, 65_535, 65_536, 65_537, 300_001])("the WebAssembly and JavaScript loops agree on %i bytes, at any offset", (n) => {
    const b = bytes(n + 8, n);
    for (const start of [0, 1, 2, 3, 5]) expect(fnv1aWords(b, start, start + n)).toBe(fnv1aWordsScript(b, start, start + n));
  });

  it("is FNV-1a over bytes where there are fewer than four", () => {
    const b = new Uint8Array([1, 2, 3]);
    expect(fnv1aWords(b)).toBe(fnv1aBytes(b));
  });

  it("keeps known values, which snapshots on disk depend on", () => {
    expect(fnv1aWords(new TextEncoder().encode("vault memory"))).toBe(fnv1aWordsScript(new TextEncoder().encode("vault memory")));
    expect(fnv1aWords(new Uint8Array(0))).toBe(0x811c9dc5);
    expect(fnv1aWords(new Uint8Array([0x61, 0x62, 0x63, 0x64]))).toBe(Math.imul(0x811c9dc5 ^ 0x64636261, 0x01000193) >>> 0);
  });

  it("answers for inputs larger than its memory bound through the JavaScript loop", () => {
    const big = bytes((32 << 20) + 5, 7);
    expect(fnv1aWords(big, 1)).toBe(fnv1aWordsScript(big, 1));
  });
});
