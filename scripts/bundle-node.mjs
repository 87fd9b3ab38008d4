// Bundles one TypeScript entry into a single file Node runs, with the WebAssembly text files of
// src/ assembled on the way: what the benchmark, scripts/run-ts.mjs and the tests that start a
// helper process of their own each need, built the same way everywhere.
import esbuild from "esbuild";
import { wasmFromText } from "./wat.mjs";

/** Bundles `entry` to `outfile` as `format` ("esm" or "cjs") for Node 20; `extra` adds esbuild options. */
export async function bundleForNode(entry, outfile, format = "esm", extra = {}) {
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format,
    target: "node20",
    logLevel: "warning",
    plugins: [wasmFromText()],
    ...extra,
  });
}
