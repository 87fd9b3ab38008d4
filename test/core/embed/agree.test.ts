import { describe, expect, it } from "vitest";
import { agreementScript, agreementWasm } from "../../../src/core/embed/agree";

describe("sign agreement", () => {
  it("counts the same in WebAssembly as in JavaScript", () => {
    let seed = 7;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (const [words, pieces] of [[1, 1], [2, 3], [32, 500], [4, 20000]] as const) {
      const query = Uint32Array.from({ length: words }, rand);
      const bits = Uint32Array.from({ length: words * pieces }, rand);
      const wasm = agreementWasm(query, bits, pieces);
      expect(wasm).toBeDefined();
      expect([...wasm!]).toEqual([...agreementScript(query, bits, pieces)]);
    }
    // All agree, none agree.
    expect([...agreementWasm(Uint32Array.of(0xffffffff), Uint32Array.of(0xffffffff, 0), 2)!]).toEqual([32, 0]);
  });
});
