/** Every command of the bridge, behind one dispatcher that turns errors into exit codes. */

import { existsSync, realpathSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "./args";
import { indexCommand } from "./commands/index";
import { digestCommand } from "./commands/digest";
import { embedCommand } from "./commands/embed";
import { enrichCommand } from "./commands/enrich";
import { installCommand } from "./commands/install";
import { lintCommand } from "./commands/lint";
import { queueCommand } from "./commands/queue";
import { recallCommand } from "./commands/recall";
import { remindCommand } from "./commands/remind";
import { trustCommand } from "./commands/trust";
import { UsageError, whereToSetVault, type VaultLookup } from "./vault";
import { hookJson, logWithoutVault } from "./no-vault";
import { readStdinSync } from "./stdin";
import { loadVaultConfig } from "../../src/core/config";
import { captureSession } from "../../src/core/queue/capture";

export const USAGE = `usage: vault-memory <command> --vault DIR [options]

commands:
  index    build the recall snapshot from the vault's notes
  recall   UserPromptSubmit hook: read hook JSON on stdin, print matched cards
           [--max-cards N] [--min-score N] [--max-chars N] [--deadline-ms N]
  queue    Stop hook: queue the session for the digest when it is worth keeping
  remember queue the session now, marked as wanted (for "remember this")
  remind   SessionStart hook: one line when conversations wait in the queue
  lint     check the vault's health [--json]; exits 1 when there are errors
  digest   turn the queue into cards with the LLM command, then tidy, commit and report
           [--dry-run] [--limit N] [--only ID,ID] [--json] [--config -]
  enrich   write recall hints (the questions each card answers) with the LLM command, for
           cards that have none or changed since [--dry-run] [--limit N]
  embed    semantic recall: embed the cards that changed, for the snapshot on disk [--config -]
  trust    use on this computer the program and server the vault's config.json names:
           shows them, copies them to the per-user settings file with --yes
  install  connect the hooks in ~/.claude/settings.json [--settings FILE] [--yes]
  uninstall remove exactly those hooks again [--settings FILE] [--yes]
  mcp      MCP server over stdio: search_memory, read_card, remember (runs until stdin closes)

Settings that run a program or name a server come from this computer only:
  ~/.config/vault-memory/config.json (or $XDG_CONFIG_HOME/vault-memory/config.json), or --config FILE.
`;

// Hooks must never fail a prompt, so their errors become exit 0.
const HOOKS = new Set(["recall", "queue", "remember", "remind"]);

export async function runCli(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  try {
    switch (args.command) {
      case "recall":
        return recallCommand(args, { recallWithoutVault, rememberReply, rememberSession });
      case "index":
        return await indexCommand(args);
      case "queue":
        return queueCommand(args);
      case "remember":
        return queueCommand(args, true);
      case "remind":
        return remindCommand(args);
      case "lint":
        return lintCommand(args);
      case "digest":
        return await digestCommand(args);
      case "enrich":
        return await enrichCommand(args);
      case "embed":
        return await embedCommand(args);
      case "mcp":
        return await mcpCommand(argv);
      case "trust":
        return trustCommand(args);
      case "install":
      case "uninstall":
        return installCommand(args, args.command);
      case "":
      case "help":
      case "--help":
        writeSync(1, USAGE);
        return 0;
      default:
        writeSync(2, `unknown command "${args.command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (HOOKS.has(args.command)) return 0;
    const message = err instanceof Error ? err.message : String(err);
    writeSync(2, err instanceof UsageError ? `${message}\n\n${USAGE}` : `vault-memory ${args.command}: ${message}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

/** The bundle the MCP server is built into, beside this one; its name is shared with the build. */
export const MCP_BUNDLE = "vault-memory-mcp.cjs";

/**
 * The server lives in its own bundle so that the MCP SDK adds nothing to the file every prompt's
 * hook parses. It is CommonJS because this code is compiled from a string, where import() is not
 * available on Node 20.
 */
async function mcpCommand(argv: readonly string[]): Promise<number> {
  const here = process.argv[1] ? dirname(realpathSync(process.argv[1])) : "";
  const bundle = join(here, MCP_BUNDLE);
  if (!here || !existsSync(bundle)) {
    writeSync(2, `vault-memory mcp: ${bundle} is missing; it is built beside this bridge by \`npm run build\`\n`);
    return 1;
  }
  const server = createRequire(bundle)(bundle) as { runMcp(argv: readonly string[]): Promise<number> };
  return server.runMcp(argv);
}

/**
 * "Remember this": queue the session now, marked as wanted. Called from the prompt hook, which
 * sees the /remember command as it is typed and knows the session's transcript.
 */
export function rememberSession(vault: string, sessionId: string, transcriptPath: string, cwd: string): string {
  const config = loadVaultConfig(vault).config;
  const r = captureSession(vault, { sessionId, transcriptPath, cwd, stopHookActive: false }, config.queue, { wanted: true });
  return r.queued ? "queued" : r.reason;
}

/**
 * The prompt hook with no usable vault: silent (a prompt must never fail for it), logged, except
 * for "remember this", where silence would let Claude confirm a keep that did not happen.
 * `stdin`: the payload, when the entry has read it already.
 */
export function recallWithoutVault(found: Exclude<VaultLookup, { vault: string }>, remember: RegExp, stdin?: string): number {
  logWithoutVault("recall", found);
  let prompt = "";
  try {
    const p = JSON.parse(stdin ?? readStdinSync()) as { prompt?: unknown } | null;
    if (p && typeof p.prompt === "string") prompt = p.prompt;
  } catch {
    /* not a payload: nothing to answer */
  }
  if (remember.test(prompt)) writeSync(1, rememberReply("", `${found.why}; to keep anything, ${whereToSetVault()}`));
  return 0;
}

/** What the prompt hook prints for "remember this": the recalled cards, and whether the keep happened. */
export function rememberReply(recallText: string, outcome: string): string {
  const kept = outcome === "queued";
  const status = kept
    ? "Vault Memory queued this conversation for the nightly digest, marked as wanted: it will become a card and will not be skipped. No card is written yet."
    : `Vault Memory did not keep this conversation, nothing was queued: ${outcome}.`;
  return hookJson("UserPromptSubmit", kept ? "" : status, recallText + status) + "\n";
}
