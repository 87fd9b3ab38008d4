/**
 * `trust`: use on this computer the settings that a vault's config.json names for what runs and
 * where text goes (see machine-config.ts). Shows them first; copies them into the per-user file
 * only with --yes, so a vault copied from elsewhere runs nothing until its reader has looked.
 */

import { writeSync } from "node:fs";
import { stringFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { machineKeysOf, readSettingsFile, saveUserSettings, userFileOf, userSettingsFor } from "../../../src/core/machine-config";
import { vaultFiles } from "../../../src/core/paths";
import { escapeControl } from "../../../src/core/text/visible";
import { commandProblem, insideVaultProblem, shellWords } from "../../../src/core/io/program-path";

/** What trusting the vault's settings would copy, and where; nothing when they are in use already. */
export function planTrust(vault: string, userFile: string): { settings: Record<string, unknown>; lines: string[] } {
  const vaultRaw = readSettingsFile(vaultFiles.config(vault)) ?? {};
  const mine = userSettingsFor(readSettingsFile(userFile), vault);
  const settings: Record<string, Record<string, unknown>> = {};
  const lines: string[] = [];
  for (const [room, keys] of Object.entries(machineKeysOf(vaultRaw))) {
    const own = (mine[room] ?? {}) as Record<string, unknown>;
    for (const [key, value] of Object.entries(keys as Record<string, unknown>)) {
      if (JSON.stringify(own[key]) === JSON.stringify(value)) continue;
      (settings[room] ??= {})[key] = value;
      // Shown escaped: a value holding bidirectional controls must not read as something else.
      lines.push(
        `  ${room}.${key} = ${escapeControl(JSON.stringify(value))}${own[key] === undefined ? "" : ` (now ${escapeControl(JSON.stringify(own[key]))})`}`,
      );
    }
  }
  return { settings, lines };
}

/**
 * Why the settings must not be trusted, one line each: a program, or a file a command names,
 * inside the vault or where another account can write it (see io/program-path.ts), or a per-user
 * file that is itself inside the vault.
 */
export function trustProblems(vault: string, userFile: string, settings: Record<string, unknown>): string[] {
  const out: string[] = [];
  const digest = (settings.digest ?? {}) as Record<string, unknown>;
  const programs: [string, string[]][] = [];
  if (typeof digest.binary === "string" && digest.binary.trim()) programs.push(["digest.binary", [digest.binary.trim()]]);
  if (Array.isArray(digest.command)) programs.push(["digest.command", digest.command.filter((w): w is string => typeof w === "string")]);
  if (typeof digest.reportCommand === "string" && digest.reportCommand.trim()) programs.push(["digest.reportCommand", shellWords(digest.reportCommand)]);
  for (const [key, words] of programs) {
    const why = commandProblem(words, vault);
    if (why) out.push(`  ${key}: ${escapeControl(why)}`);
  }
  const inVault = insideVaultProblem(userFile, vault);
  if (inVault) out.push(`  ${escapeControl(inVault)} (a link, or XDG_CONFIG_HOME, leads there): this computer's settings must live outside the vault`);
  return out;
}

export function trustCommand(args: Args): number {
  const vault = vaultFlag(args);
  const userFile = userFileOf(stringFlag(args, "config"));
  const { settings, lines } = planTrust(vault, userFile);
  const problems = lines.length > 0 ? trustProblems(vault, userFile, settings) : [];
  if (problems.length > 0) {
    writeSync(
      2,
      `trust: refused, nothing was written: a program Vault Memory runs as you must not be one that the vault's other writers (a sync, a teammate, git) or another account can change:\n${problems.join("\n")}\n` +
        `Move the program outside the vault, to a folder only you can write, and set its path in ${userFile} yourself.\n`,
    );
    return 1;
  }
  if (lines.length === 0) {
    writeSync(1, `${vaultFiles.config(vault)} names no program to run and no server to send text to that this computer does not use already; nothing to do.\n`);
    return 0;
  }
  writeSync(
    1,
    `${vaultFiles.config(vault)} sets what runs and where your text goes:\n${lines.join("\n")}\n` +
      `Vault Memory reads these only from ${userFile}, the settings of this computer: a program named here runs as you every night, and a server named here receives your prompts.\n`,
  );
  if (!args.flags.has("yes")) {
    writeSync(1, "Nothing was written. Run again with --yes to use them on this computer.\n");
    return 0;
  }
  saveUserSettings(userFile, vault, settings);
  writeSync(1, `Copied to ${userFile}, under this vault. The vault's copy is never used.\n`);
  return 0;
}
