/** The vault's settings for a command, with every problem in them reported where that command reports. */

import { writeSync } from "node:fs";
import { ignoredMessage, loadVaultConfig, type LoadedSettings, type SettingsSources, type VaultMemoryConfig } from "../../src/core/config";
import { stringFlag, type Args } from "./args";
import { readStdinSync } from "./stdin";

/**
 * A command's settings: the vault's config.json for what the vault may decide, this machine's
 * per-user file (or `--config FILE`) for what runs and where text goes. A wrong value falls back
 * to its default and is reported, never fatal: a typo in one setting must not stop the command.
 * Terminal commands warn on stderr; hooks, which must print nothing, pass their log instead.
 */
export function vaultConfig(vault: string, report: (problem: string) => void = (p) => writeSync(2, `warning: ${p}\n`)): VaultMemoryConfig {
  return loadSettings(vault, undefined, report, false).config;
}

/**
 * The settings a command runs with: those on stdin with `--config -` (Obsidian hands over what it
 * has now, from its per-device storage and the vault), else the vault's and this machine's files.
 */
export function configOf(args: Args, vault: string, warn: (problem: string) => void): VaultMemoryConfig {
  return loadSettings(vault, args, warn).config;
}

/**
 * As configOf, with where the settings came from and what of the vault's was left unused;
 * `mentionIgnored`: whether to warn of that (commands that run a program or send text do).
 */
export function loadSettings(vault: string, args: Args | undefined, warn: (problem: string) => void, mentionIgnored = true): LoadedSettings {
  const flag = args ? stringFlag(args, "config") : undefined;
  const sources: SettingsSources = {};
  if (flag === "-") {
    let raw: unknown;
    try {
      raw = JSON.parse(readStdinSync());
    } catch (err) {
      throw new Error(`--config -: stdin is not the settings as JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("--config -: stdin is not a JSON object");
    sources.given = raw as Record<string, unknown>;
  } else if (flag !== undefined) sources.userFile = flag;
  const problems: string[] = [];
  const loaded = loadVaultConfig(vault, sources, problems);
  // Each says what is used instead ("...; using 30", "...; its settings are not used").
  for (const p of problems) warn(p);
  const ignored = mentionIgnored ? ignoredMessage(vault, loaded) : "";
  if (ignored) warn(ignored);
  return loaded;
}
