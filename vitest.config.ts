import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Every temporary folder of a run (the tests', the bridges' and CLIs' they start, the browser's)
// inside one of its own, which the global setup removes when the run ends: a run leaves nothing in
// the system's temporary folder. Set before anything else asks for tmpdir(), and inherited by the
// test workers and every process they start.
if (!process.env.VM_TEST_RUN_DIR) {
  process.env.VM_TEST_RUN_DIR = mkdtempSync(join(tmpdir(), "vm-run-"));
  process.env.TMPDIR = process.env.VM_TEST_RUN_DIR;
}
import { watModuleSource } from "./scripts/wat.mjs";

export default defineConfig({
  // WebAssembly text assembled as the build does it (esbuild.config.mjs).
  plugins: [{ name: "wasm-from-text", load: (id) => (id.endsWith(".wat") ? watModuleSource(id) : undefined) }],
  resolve: {
    // The obsidian package ships types only; tests run against a faithful fake of the API we use.
    alias: [
      { find: "obsidian", replacement: fileURLToPath(new URL("./test/fakes/obsidian.ts", import.meta.url)) },
      // The plugin embeds the built bridge at build time; tests embed the same file.
      { find: /^\.\/bridge-source$/, replacement: fileURLToPath(new URL("./test/fakes/bridge-source.ts", import.meta.url)) },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/claude-config.ts"],
    // The person's own per-user settings and caches must not leak into a test, nor a test's into
    // theirs: every bridge the tests run finds empty folders of its own (tests that need a file
    // there write one).
    env: {
      XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "vm-test-config-")),
      XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), "vm-test-cache-")),
      XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "vm-test-data-")),
      // Every hook a test runs recalls in its own process and starts no resident server that would
      // outlive the test; the server's own tests turn it on, each with a cache folder of its own.
      VAULT_MEMORY_RESIDENT: "off",
    },
    // Only a hang should meet these: tests wait for events, never for a clock (see test/wait.ts),
    // and two shared cores running the whole suite make a test many times slower than alone.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
