/**
 * Where the end-to-end tests find the real Claude Code CLI. It is no dependency of the project
 * (a 400 MB binary `npm ci` would download for everyone): `npm run fetch-claude` keeps the pinned
 * version in a cache outside the repository, and CLAUDE_BIN names another binary.
 */

import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Not from ../helpers: the global setup reads this file too, outside any test. A path, not a URL:
// a test in a DOM environment has the DOM's URL, which node:fs does not take.
export const CLAUDE_PIN = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "scripts", "claude-cli.json"), "utf8")) as {
  package: string;
  version: string;
  integrity: string;
};

/** The one line a run without the CLI prints (test/global-setup.ts). */
export const FETCH_HINT = `the Claude Code CLI tests are skipped: the CLI is not fetched; run \`npm run fetch-claude\` (Linux x64, about 100 MB once) or set CLAUDE_BIN to a claude ${CLAUDE_PIN.version} binary`;

/** The cached copy's path; the same as scripts/fetch-claude.mjs writes. */
export function cachedClaude(home = homedir()): string {
  return join(home, ".cache", "vault-memory-dev", `claude-${CLAUDE_PIN.version}`, "claude");
}

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The binary to drive and whether it is there: CLAUDE_BIN when set (and nothing else), else the cached copy. */
export function findClaude(env: NodeJS.ProcessEnv = process.env, home = homedir()): { bin: string; ok: boolean } {
  const bin = env.CLAUDE_BIN || cachedClaude(home);
  return { bin, ok: executable(bin) };
}
