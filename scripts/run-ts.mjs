// Runs one of scripts/*.ts: bundles it (bundle-node.mjs) into .cache/ and executes it with Node.
import { spawnSync } from "node:child_process";
import { basename } from "node:path";
import { bundleForNode } from "./bundle-node.mjs";

const [entry, ...args] = process.argv.slice(2);
const outfile = `.cache/${basename(entry, ".ts")}.mjs`;
await bundleForNode(entry, outfile, "esm", {
  packages: "external",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
const r = spawnSync(process.execPath, [outfile, ...args], { stdio: "inherit" });
process.exit(r.status ?? 1);
