// Compiles the WebAssembly text files of src/ to their bytes at build time, with wabt's wat2wasm
// (pinned in package.json). Shared by the build (esbuild.config.mjs) and the tests
// (vitest.config.ts): `import bytes from "./x.wat"` is a Uint8Array of the module.
import { readFileSync } from "node:fs";
import wabtInit from "wabt";

let wabt;

/** The module `path` holds, as bytes; throws with wat2wasm's message when it does not assemble or validate. */
export async function watToWasm(path) {
  wabt ??= await wabtInit();
  const mod = wabt.parseWat(path, readFileSync(path, "utf8"));
  try {
    mod.validate();
    return Uint8Array.from(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}

/** The JavaScript a `.wat` import becomes: its bytes, as a Uint8Array literal. */
export async function watModuleSource(path) {
  return `export default new Uint8Array([${(await watToWasm(path)).join(",")}]);\n`;
}

/** An esbuild plugin for `.wat` imports: the build, scripts/run-ts.mjs and the benchmark use it. */
export function wasmFromText() {
  return {
    name: "wasm-from-text",
    setup(build) {
      build.onLoad({ filter: /\.wat$/ }, async (args) => ({ contents: await watModuleSource(args.path), loader: "js" }));
    },
  };
}
