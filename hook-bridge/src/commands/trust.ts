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
      lines.push(`  ${room}.${key} = ${escapeControl(JSON.stringify(value))}${own[key] === undefined ? "" : ` (now ${escapeControl(JSON.stringify(own[key]))})`}`);
    }
  }
  return { settings, lines };
}

export function trustCommand(args: Args): number {
  const vault = vaultFlag(args);
  const userFile = userFileOf(stringFlag(args, "config"));
  const { settings, lines } = planTrust(vault, userFile);
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
