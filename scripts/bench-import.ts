/**
 * `import` on a large history, measured: writes N generated Claude Code transcripts (20 turns each,
 * with tool output, a third of them one prompt), then runs the built bridge's `import` on them
 * twice (the second run must add nothing), printing each run's wall time and what it queued.
 *
 *   npm run build && node scripts/run-ts.mjs scripts/bench-import.ts [N] [tool bytes per turn]
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeHistory } from "../test/fixtures/history";

const root = join(import.meta.dirname, "..");
const bridge = join(root, "hook-bridge", "dist", "vault-memory.cjs");
if (!existsSync(bridge)) throw new Error(`${bridge} is missing: run npm run build first`);
const count = Number(process.argv[2] ?? 1000);
const toolBytes = Number(process.argv[3] ?? 20_000);
const scratch = mkdtempSync(join(tmpdir(), "vm-bench-import-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

const projects = join(scratch, "projects");
const vault = join(scratch, "vault");
mkdirSync(vault);
const paths = writeHistory(projects, count, { projects: 20, toolBytes, turns: 20 });
const bytes = Number(spawnSync("du", ["-sb", projects], { encoding: "utf8" }).stdout.split("\t")[0]);
console.log(`${paths.length} transcripts, ${(bytes / 2 ** 20).toFixed(0)} MB, Node ${process.version}`);

// The environment as a person's shell has it: no extra certificates for Node to load.
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
for (const run of ["first", "second"]) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bridge, "import", "--vault", vault, "--from", projects], { encoding: "utf8", env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`import failed: ${r.stderr}`);
  console.log(`${run} run: ${(ms / 1000).toFixed(2)} s: ${r.stdout.split("\n").slice(0, 2).join("; ")}`);
}
