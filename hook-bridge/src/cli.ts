/** Every command of the bridge, behind one dispatcher that turns errors into exit codes. */

import { existsSync, realpathSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { flagsOf, readCommandLine } from "./args";
import { USAGE, commandUsage } from "./usage";
import { indexCommand } from "./commands/index";
import { digestCommand } from "./commands/digest";
import { embedCommand } from "./commands/embed";
import { enrichCommand } from "./commands/enrich";
import { installCommand } from "./commands/install";
import { lintCommand } from "./commands/lint";
import { queueCommand } from "./commands/queue";
import { recallCommand } from "./prompt-hook/ask";
import * as meaningCode from "./prompt-hook/meaning";
import * as answerCode from "./prompt-hook/answer";
import { remindCommand } from "./commands/remind";
import { trustCommand } from "./commands/trust";
import { scheduleCommand } from "./commands/schedule";
import { syncCommand } from "./commands/sync";
import { importCommand } from "./commands/import";
import { statusCommand } from "./commands/status";
import { restoreCommand } from "./commands/restore";
import { consolidateCommand } from "./commands/consolidate";
import { UsageError, whereToSetVault, type VaultLookup } from "./vault";
import { hookJson, logRefusedHook, logWithoutVault } from "./no-vault";
import { readStdinSync } from "./stdin";
import { loadVaultConfig } from "../../src/core/config";
import { captureSession } from "../../src/core/queue/capture";

export { serveRecall } from "./resident/server";

// Hooks must never fail a prompt, so their errors become exit 0.
const HOOKS = new Set(["recall", "queue", "remember", "remind"]);

export async function runCli(argv: readonly string[]): Promise<number> {
  const { args, bad } = readCommandLine(argv);
  if (flagsOf(args.command)) {
    if (args.flags.has("help")) {
      writeSync(1, commandUsage(args.command));
      return 0;
    }
    if (bad) {
      // A hook fails open: nothing printed, nothing done, the reason in the log.
      if (HOOKS.has(args.command)) {
        logRefusedHook(args, bad);
        return 0;
      }
      writeSync(2, `vault-memory ${args.command}: ${bad}\n\n${commandUsage(args.command)}`);
      return 2;
    }
  }
  try {
    switch (args.command) {
      case "recall":
        return recallCommand(args, { recallWithoutVault, rememberReply, rememberSession, meaning: () => meaningCode, answer: () => answerCode });
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
      case "schedule":
        return scheduleCommand(args);
      case "sync":
        return syncCommand(args);
      case "import":
        return importCommand(args);
      case "status":
        return statusCommand(args);
      case "restore":
        return await restoreCommand(args);
      case "consolidate":
        return await consolidateCommand(args);
      case "install":
      case "uninstall":
        return await installCommand(args, args.command);
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
    writeSync(
      2,
      err instanceof UsageError ? `${message}\n\n${flagsOf(args.command) ? commandUsage(args.command) : USAGE}` : `vault-memory ${args.command}: ${message}\n`,
    );
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
 * sees the /remember command as it is typed and knows the session's transcript. Claude Code
 * writes the prompt to the transcript only after this hook (and the first prompt's file not at
 * all before it), so the prompt goes in from the payload, and the Stop hook adds the reply.
 */
export function rememberSession(vault: string, hook: { sessionId: string; transcriptPath: string; cwd: string; prompt: string }): string {
  const config = loadVaultConfig(vault).config;
  const r = captureSession(vault, { sessionId: hook.sessionId, transcriptPath: hook.transcriptPath, cwd: hook.cwd, stopHookActive: false }, config.queue, {
    wanted: true,
    prompt: hook.prompt,
    midTurn: true,
  });
  return r.queued ? "queued" : r.reason;
}

/**
 * The prompt hook with no usable vault: silent (a prompt must never fail for it), logged, except
 * for "remember this", where silence would let Claude confirm a keep that did not happen.
 */
export function recallWithoutVault(found: Exclude<VaultLookup, { vault: string }>, remember: RegExp, io: HookIo = {}): number {
  logWithoutVault("recall", found);
  let prompt = "";
  try {
    const p = JSON.parse(io.stdin ? io.stdin() : readStdinSync()) as { prompt?: unknown } | null;
    if (p && typeof p.prompt === "string") prompt = p.prompt;
  } catch {
    /* not a payload: nothing to answer */
  }
  const reply = (): string => rememberReply("", `${found.why}; to keep anything, ${whereToSetVault()}`);
  if (remember.test(prompt)) (io.write ?? ((text: string) => void writeSync(1, text)))(reply());
  return 0;
}

/** Where a hook reads its payload and prints its answer, when not stdin and stdout (the resident recall server). */
export interface HookIo {
  stdin?: () => string;
  write?: (text: string) => void;
}

/** What the prompt hook prints for "remember this": the recalled cards, and whether the keep happened. */
export function rememberReply(recallText: string, outcome: string): string {
  const kept = outcome === "queued";
  const status = kept
    ? "Vault Memory queued this conversation for the nightly digest, marked as wanted: it will become a card and will not be skipped. No card is written yet."
    : `Vault Memory did not keep this conversation, nothing was queued: ${outcome}.`;
  return hookJson("UserPromptSubmit", kept ? "" : status, recallText + status) + "\n";
}
