/** The vault's settings for a command, with every problem in them reported where that command reports. */

import { writeSync } from "node:fs";
import { loadConfig, mergeConfig, type VaultMemoryConfig } from "../../src/core/config";
import { stringFlag, type Args } from "./args";
import { readStdinSync } from "./stdin";
import { vaultFiles } from "../../src/core/paths";

/**
 * Reads `<vault>/.vault-memory/config.json`. A wrong value falls back to its default and is
 * reported, never fatal: a typo in one setting must not stop the command. Terminal commands warn
 * on stderr; hooks, which must print nothing, pass their log instead.
 */
export function vaultConfig(vault: string, report: (problem: string) => void = (p) => writeSync(2, `warning: ${p}; using defaults for it\n`)): VaultMemoryConfig {
  const problems: string[] = [];
  const config = loadConfig(vaultFiles.config(vault), problems);
  for (const p of problems) report(p);
  return config;
}

/**
 * The settings a command runs with: those on stdin with `--config -` (Obsidian hands over what it
 * has now, which may be newer than config.json), else the vault's config.json.
 */
export function configOf(args: Args, vault: string, warn: (problem: string) => void): VaultMemoryConfig {
  if (stringFlag(args, "config") !== "-") return vaultConfig(vault, (p) => warn(`${p}; using defaults for it`));
  let raw: unknown;
  try {
    raw = JSON.parse(readStdinSync());
  } catch (err) {
    throw new Error(`--config -: stdin is not the settings as JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const problems: string[] = [];
  const config = mergeConfig(raw, problems);
  for (const p of problems) warn(`${p}; using defaults for it`);
  return config;
}
