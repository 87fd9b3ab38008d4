/** Resolves the vault a command works on and reports usage mistakes clearly. */

import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { stringFlag, UsageError, type Args } from "./args";
import { homeDir } from "../../src/core/io/home";

export { UsageError } from "./args";

/** The vault, or why there is none: "unset" when nothing names one, "unusable" when the folder named cannot be used. */
export type VaultLookup = { vault: string } | { problem: "unset" | "unusable"; message: string; why: string };

/**
 * The plugin's `vault` option reaches hooks as CLAUDE_PLUGIN_OPTION_VAULT (Claude Code refuses
 * `${user_config.*}` in shell-form hook commands); VAULT_MEMORY_VAULT is the older, hand-set way.
 */
export function findVault(args: Args, env: NodeJS.ProcessEnv = process.env): VaultLookup {
  const flag = stringFlag(args, "vault");
  const v = flag || env.CLAUDE_PLUGIN_OPTION_VAULT || env.VAULT_MEMORY_VAULT;
  if (!v) return { problem: "unset", message: "--vault DIR is required (or set VAULT_MEMORY_VAULT)", why: "no vault is set" };
  const path = withHome(v, env);
  // A setting is read by hooks that run in whatever folder a session started in: a relative path
  // would name a different folder in each. Typed on the command line, it is the shell's folder.
  if (!flag && !isAbsolute(path))
    return {
      problem: "unusable",
      message: `the vault setting "${v}" is a relative path; give the vault's full path`,
      why: `the vault setting "${v}" is not a full path`,
    };
  const abs = resolve(path);
  let st;
  try {
    st = statSync(abs);
  } catch {
    /* reported below */
  }
  if (st && !st.isDirectory()) return { problem: "unusable", message: `${abs} is a file, not a vault folder`, why: `the vault ${abs} is a file, not a folder` };
  if (!st) return { problem: "unusable", message: `vault folder not found: ${abs}`, why: `the vault folder ${abs} does not exist` };
  try {
    // The hooks list, read and write the vault's hidden folder: a folder they cannot enter is as good as none.
    accessSync(abs, constants.R_OK | constants.X_OK);
  } catch {
    return { problem: "unusable", message: `vault folder cannot be read: ${abs}`, why: `the vault folder ${abs} cannot be read` };
  }
  return { vault: abs };
}

export function vaultFlag(args: Args): string {
  const found = findVault(args);
  if ("problem" in found) throw new UsageError(found.message);
  return found.vault;
}

/** Where the person sets the vault: the plugin's `vault` option inside the plugin, else the hook's command line. */
export function whereToSetVault(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_PLUGIN_ROOT
    ? "set the plugin's vault option (/plugin, then vault-memory, then configure; or `claude plugin configure vault-memory@vault-memory`)"
    : "pass --vault DIR to the hook commands in ~/.claude/settings.json";
}

/** One line for the person: what is wrong with the vault setting and where to set it. */
export function vaultAdvice(found: Exclude<VaultLookup, { vault: string }>, env: NodeJS.ProcessEnv = process.env): string {
  return `Vault Memory: ${found.why}, so nothing is recalled or kept; ${whereToSetVault(env)}.`;
}

/** `~` and `~/x` as the shell reads them: a path pasted into a setting is rarely expanded first. */
export function withHome(path: string, env: NodeJS.ProcessEnv = process.env): string {
  if (path !== "~" && !path.startsWith("~/")) return path;
  return join(homeDir(env), path.slice(1));
}
