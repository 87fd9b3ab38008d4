// Fetches the Claude Code CLI that the end-to-end tests drive, pinned by version and checksum, into
// a cache outside the repository (~/.cache/vault-memory-dev/claude-<version>/claude), and prints
// its path. It is a 400 MB binary that only those tests need: as a dependency, `npm ci` downloaded
// it for everyone. Run again, it only checks the cached copy.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** The package, version and npm integrity the tests were written against. */
export const PIN = JSON.parse(readFileSync(new URL("./claude-cli.json", import.meta.url), "utf8"));

/** Where the binary is kept; `npm ci` empties node_modules, so not there. */
export function cachedClaude(home = homedir()) {
  return join(home, ".cache", "vault-memory-dev", `claude-${PIN.version}`, "claude");
}

/** A file's npm integrity string (sha512, base64), read as a stream: the tarball is over 100 MB. */
export function integrityOf(file) {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha512");
    createReadStream(file)
      .on("data", (d) => hash.update(d))
      .on("error", reject)
      .on("end", () => resolve(`sha512-${hash.digest("base64")}`));
  });
}

/** Throws unless `file` is the pinned tarball: the registry's copy is checked, not trusted. */
export async function checkTarball(file, expected = PIN.integrity) {
  const got = await integrityOf(file);
  if (got !== expected) throw new Error(`${file} is not the pinned ${PIN.package}@${PIN.version}: its checksum is ${got}, expected ${expected}`);
}

/** Whether `bin` runs and says it is the pinned version. */
export function runsAsPinned(bin) {
  if (!existsSync(bin)) return false;
  const r = spawnSync(bin, ["--version"], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
  });
  return r.status === 0 && r.stdout.trim().startsWith(`${PIN.version} `);
}

function run(command, args, opts = {}) {
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 16 << 20, ...opts });
  if (r.status !== 0)
    throw new Error(
      `${command} ${args.join(" ")} failed (${r.error ? r.error.message : `exit ${r.status}`}): ${(r.stderr || r.stdout || "").trim().slice(0, 500)}`,
    );
  return r.stdout;
}

async function fetchClaude() {
  const bin = cachedClaude();
  if (runsAsPinned(bin)) return bin;
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(
      `${PIN.package} runs on linux-x64 only (this is ${process.platform}-${process.arch}); set CLAUDE_BIN to a Claude Code ${PIN.version} binary instead`,
    );
  const dir = dirname(bin);
  mkdirSync(dirname(dir), { recursive: true });
  // Unpacked beside its final place and renamed there whole, so a fetch that stops half-way
  // leaves nothing the tests would take for the binary.
  const work = mkdtempSync(join(dirname(dir), ".fetch-"));
  try {
    const packed = JSON.parse(run("npm", ["pack", `${PIN.package}@${PIN.version}`, "--pack-destination", work, "--json", "--silent"]));
    const tarball = join(work, packed[0].filename);
    await checkTarball(tarball);
    run("tar", ["-xzf", tarball, "-C", work]);
    chmodSync(join(work, "package", "claude"), 0o755);
    if (!runsAsPinned(join(work, "package", "claude"))) throw new Error(`the fetched binary does not run, or is not version ${PIN.version}`);
    if (existsSync(dir)) renameSync(dir, `${dir}.broken-${Date.now()}`);
    renameSync(join(work, "package"), dir);
  } finally {
    // Only what this run downloaded: the tarball and its temporary folder.
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  fetchClaude().then(
    (bin) => console.log(bin),
    (err) => {
      console.error(`fetch-claude: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
