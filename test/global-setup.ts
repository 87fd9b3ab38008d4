/** Says once per run, not once per test file, which tests are skipped and why. */

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FETCH_HINT, findClaude } from "./e2e/claude-bin";

export default function setup(): void {
  const corpus = resolve(fileURLToPath(new URL("..", import.meta.url)), "..", "shared", "corpora", "obsidian-help");
  if (!existsSync(corpus)) console.warn(`${corpus} is missing (the shared corpus of real vaults): corpus-scale tests are skipped; all others run on the sample vault and generated vaults`);
  if (!findClaude().ok) console.warn(FETCH_HINT);
}
