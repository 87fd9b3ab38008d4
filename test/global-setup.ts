/** Says once per run, not once per test file, which tests are skipped and why. */

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FETCH_HINT, findClaude } from "./e2e/claude-bin";

// What the run finds in the system's temporary folder, by name: whatever of ours ("vm-…") is there
// when it ends and was not before is something a test left outside the run's folder.
function oursIn(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir).filter((n) => n.startsWith("vm-") && !n.startsWith("vm-run-")));
  } catch {
    return new Set();
  }
}

export default function setup(): () => void {
  const system = process.env.VM_TEST_RUN_DIR ? dirname(process.env.VM_TEST_RUN_DIR) : "";
  const before = system ? oursIn(system) : new Set<string>();
  const corpus = resolve(fileURLToPath(new URL("..", import.meta.url)), "..", "shared", "corpora", "obsidian-help");
  if (!existsSync(corpus))
    console.warn(
      `${corpus} is missing (the shared corpus of real vaults): corpus-scale tests are skipped; all others run on the sample vault and generated vaults`,
    );
  if (!findClaude().ok) console.warn(FETCH_HINT);
  // The run's temporary folder (vitest.config.ts), removed whole when the run ends; a file system
  // a test mounted inside it and could not unmount is unmounted first, so that nothing stays.
  return () => {
    const run = process.env.VM_TEST_RUN_DIR;
    if (!run || !run.includes("vm-run-")) return;
    if (existsSync("/proc/mounts")) {
      for (const line of readFileSync("/proc/mounts", "utf8").split("\n")) {
        const at = line.split(" ")[1] ?? "";
        if (at.startsWith(`${run}/`)) spawnSync("umount", [at]);
      }
    }
    rmSync(run, { recursive: true, force: true });
    const left = [...oursIn(system)].filter((n) => !before.has(n));
    if (left.length > 0) {
      // A failure, though every test passed: vitest does not fail a run whose teardown throws.
      console.error(
        `the run left ${left.length} ${left.length === 1 ? "entry" : "entries"} in ${system}, outside its own folder: ${left.slice(0, 5).join(", ")}`,
      );
      process.exitCode = 1;
    }
  };
}
