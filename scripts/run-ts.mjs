// Runs one of scripts/*.ts: bundles it with esbuild into .cache/ and executes it with Node.
import esbuild from "esbuild";
import { spawnSync } from "node:child_process";
import { basename } from "node:path";
import { wasmFromText } from "./wat.mjs";

const [entry, ...args] = process.argv.slice(2);
const outfile = `.cache/${basename(entry, ".ts")}.mjs`;
await esbuild.build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning",
  plugins: [wasmFromText()],
});
const r = spawnSync(process.execPath, [outfile, ...args], { stdio: "inherit" });
process.exit(r.status ?? 1);
