/** What the hooks do when no usable vault is set: say so once to the person, and log why wherever they can. */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendLog } from "../../src/core/io/log";
import { vaultFiles } from "../../src/core/paths";
import type { Args } from "./args";
import { findVault, vaultAdvice, type VaultLookup } from "./vault";

type Problem = Exclude<VaultLookup, { vault: string }>;

/**
 * With no vault there is no vault log; a plugin has a data folder of its own (CLAUDE_PLUGIN_DATA)
 * that outlives updates. Outside a plugin there is nowhere that is ours, and stderr is not silent,
 * so only the session-start line says it.
 */
export function logWithoutVault(command: string, found: Problem, env: NodeJS.ProcessEnv = process.env): void {
  if (env.CLAUDE_PLUGIN_DATA) appendLog(join(env.CLAUDE_PLUGIN_DATA, "vault-memory.log"), command, found.message);
}

/**
 * JSON a hook prints for the person (systemMessage, never shown to Claude), and optionally context
 * for Claude. One document on one line: several lines of JSON would count as plain text.
 */
export function hookJson(event: "SessionStart" | "UserPromptSubmit", forPerson: string, forClaude?: string): string {
  return JSON.stringify({
    ...(forPerson ? { systemMessage: forPerson } : {}),
    ...(forClaude ? { hookSpecificOutput: { hookEventName: event, additionalContext: forClaude } } : {}),
  });
}

export { vaultAdvice as adviceFor };

/**
 * A hook given a command line it does not take (a flag mistyped in settings.json) fails open: it
 * does nothing and prints nothing, and says why in the vault's log, or where logWithoutVault can.
 */
export function logRefusedHook(args: Args, bad: string): void {
  const found = findVault(args);
  if (!("vault" in found)) return logWithoutVault(args.command, { ...found, message: `${bad}; did nothing` });
  appendLog(vaultFiles.log(found.vault), args.command, `${bad}; did nothing`);
  // For the next session start to tell the person once (see remind's refusedNotice). A plain
  // write: a torn one only garbles a notice, and the hook loads no more code for it.
  try {
    writeFileSync(vaultFiles.refusedHook(found.vault), `${args.command}: ${bad}`.slice(0, 500));
  } catch {
    /* the log has it */
  }
}
