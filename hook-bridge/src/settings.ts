/** The vault's settings for a command, with every problem in them reported where that command reports. */

import { writeSync } from "node:fs";
import { loadConfig, type VaultMemoryConfig } from "../../src/core/config";
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
