// Runs the prompt hook's tests under each Node the bridge supports (20, 22, 24): every mechanism
// in the hook must work on all three (docs/speed.md). Each Node comes from npm's
// node-<platform>-<arch> package, fetched once into node_modules/.cache/node-versions.
//
//   node scripts/node-versions.mjs [--no-build] [--refresh] [20 22 24]
//
// The tests spawn the built bridge with the Node that runs them (process.execPath), so running
// vitest under each Node runs the hook under it: recall with semantic recall off and on against a
// stand-in embedding server, the code cache, the hash and the vector search.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cache = join(root, "node_modules", ".cache", "node-versions");
const args = process.argv.slice(2);
const majors = args.filter((a) => /^\d+$/.test(a));
const VERSIONS = majors.length > 0 ? majors : ["20", "22", "24"];
const TESTS = [
  "test/bridge/semantic-recall.test.ts",
  "test/bridge/code-cache.test.ts",
  "test/bridge/no-vault.test.ts",
  "test/bridge/failure-recall.test.ts",
  "test/bridge/resident.test.ts",
  "test/bridge/resident-client.test.ts",
  "test/core/io/hash.test.ts",
  "test/core/embed/nearest.test.ts",
  "test/core/embed/embed.test.ts",
];

function run(cmd, argv, options = {}) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: "inherit", ...options });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

/** The path of Node `major`'s binary, fetched with `npm pack` the first time. */
function nodeOf(major) {
  if (process.platform !== "linux" && process.platform !== "darwin")
    throw new Error(`npm has no node-${process.platform} package this script knows; run the tests under each Node by hand`);
  const dir = join(cache, major);
  const bin = join(dir, "package", "bin", "node");
  if (args.includes("--refresh")) rmSync(dir, { recursive: true, force: true });
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const pkg = `node-${process.platform}-${process.arch}@${major}`;
  process.stderr.write(`fetching ${pkg}\n`);
  const packed = spawnSync("npm", ["pack", pkg, "--pack-destination", dir, "--silent"], { cwd: dir, encoding: "utf8" });
  if (packed.status !== 0) throw new Error(`npm pack ${pkg} failed: ${packed.stderr}`);
  const tgz = join(dir, packed.stdout.trim().split("\n").pop());
  if (run("tar", ["xzf", tgz, "-C", dir]) !== 0) throw new Error(`could not unpack ${tgz}`);
  rmSync(tgz);
  return bin;
}

if (!args.includes("--no-build") && run("npm", ["run", "build", "--silent"]) !== 0) process.exit(1);
const results = [];
for (const major of VERSIONS) {
  const node = nodeOf(major);
  const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
  process.stderr.write(`\n== Node ${version}\n`);
  // NODE_EXTRA_CA_CERTS only slows every process down; nothing here leaves this computer.
  const { NODE_EXTRA_CA_CERTS: _certs, ...env } = process.env;
  const status = run(node, [join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...TESTS], { env });
  results.push(`Node ${version}: ${status === 0 ? "passed" : "FAILED"}`);
}
process.stdout.write(`\n${results.join("\n")}\n`);
process.exit(results.every((r) => r.endsWith("passed")) ? 0 : 1);
