/** Resolves the vault a command works on and reports usage mistakes clearly. */

import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { stringFlag, type Args } from "./args";

export class UsageError extends Error {}

/** The vault, or why there is none: "unset" when nothing names one, "unusable" when the folder named cannot be used. */
export type VaultLookup = { vault: string } | { problem: "unset" | "unusable"; message: string };

/**
 * The plugin's `vault` option reaches hooks as CLAUDE_PLUGIN_OPTION_VAULT (Claude Code refuses
 * `${user_config.*}` in shell-form hook commands); VAULT_MEMORY_VAULT is the older, hand-set way.
 */
export function findVault(args: Args, env: NodeJS.ProcessEnv = process.env): VaultLookup {
  const v = stringFlag(args, "vault") || env.CLAUDE_PLUGIN_OPTION_VAULT || env.VAULT_MEMORY_VAULT;
  if (!v) return { problem: "unset", message: "--vault DIR is required (or set VAULT_MEMORY_VAULT)" };
  const abs = resolve(v);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir) return { problem: "unusable", message: `vault folder not found: ${abs}` };
  try {
    // The hooks list, read and write the vault's hidden folder: a folder they cannot enter is as good as none.
    accessSync(abs, constants.R_OK | constants.X_OK);
  } catch {
    return { problem: "unusable", message: `vault folder cannot be read: ${abs}` };
  }
  return { vault: abs };
}

export function vaultFlag(args: Args): string {
  const found = findVault(args);
  if ("problem" in found) throw new UsageError(found.message);
  return found.vault;
}

/**
 * One line for the person: what is wrong with the vault setting and where to set it. Inside the
 * plugin that is its `vault` option; otherwise the hook's own command line.
 */
export function vaultAdvice(found: Exclude<VaultLookup, { vault: string }>, env: NodeJS.ProcessEnv = process.env): string {
  const where = env.CLAUDE_PLUGIN_ROOT
    ? "set the plugin's vault option (in /plugin, choose vault-memory and configure it, or run `claude plugin configure vault-memory@vault-memory`)"
    : "pass --vault DIR to the hook commands in ~/.claude/settings.json";
  const what = found.problem === "unset" ? "no vault is set" : found.message.replace(/^vault folder/, "the vault folder");
  return `Vault Memory: ${what}, so nothing is recalled or kept; ${where}.`;
}
