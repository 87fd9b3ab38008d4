/**
 * The prompt hook's first file (vault-memory-recall.cjs), which the bridge's entry runs through
 * its code cache: the command line, the vault, the payload and, when this machine turns semantic
 * recall on, the request for the prompt's vector (ask.ts). The bridge's other files are loaded
 * through `load`, which the entry hands in, when a prompt needs them: the answer
 * (vault-memory-scoring.cjs, answer.ts) once the request has left, so that it loads while the
 * server works; semantic recall's (vault-memory-semantic.cjs, meaning.ts) when this machine turns
 * it on; every other command's (vault-memory-commands.cjs) when no vault is set or "remember
 * this" is asked.
 */

import { writeSync } from "node:fs";
import { readCommandLine } from "../args";
import { logRefusedHook } from "../no-vault";
import { commandUsage } from "../usage";
import { recallCommand } from "./ask";
import type { MeaningCode } from "./meaning";
import type { AnswerCode } from "./prompted";

/** A file of the bridge, loaded; `complete` tells its code cache that the run used it all (see code-cache.ts). */
export interface LoadedFile {
  exports: unknown;
  complete: () => void;
}

/** What the entry hands recall: how to load another file of the bridge, and how to say the run was a full one. */
export interface RecallHook {
  load: (file: string) => LoadedFile;
  scored: () => void;
  /** The payload already read, and where the answer goes, when not stdin and stdout (the resident recall server). */
  stdin?: () => string;
  write?: (text: string) => void;
  resident?: boolean;
  /** Why the resident recall server did not answer this hook, for the vault's log. */
  missed?: string;
}

/** The dispatcher's functions recall uses when there is no vault, or to keep a conversation (cli.ts). */
type Commands = Pick<typeof import("../cli"), "recallWithoutVault" | "rememberReply" | "rememberSession">;

export function recall(argv: readonly string[], hook: RecallHook): number | Promise<number> {
  // The entry runs this for argv[0] === "recall": the command line's command is recall.
  const { args, bad } = readCommandLine(argv);
  if (args.flags.has("help")) {
    (hook.write ?? ((text: string) => void writeSync(1, text)))(commandUsage("recall"));
    return 0;
  }
  if (bad) {
    logRefusedHook(args, bad);
    return 0;
  }
  const commands = (): Commands => hook.load("vault-memory-commands.cjs").exports as Commands;
  return recallCommand(args, {
    recallWithoutVault: (found, remember, io) => commands().recallWithoutVault(found, remember, io),
    rememberReply: (text, outcome) => commands().rememberReply(text, outcome),
    rememberSession: (vault, payload) => commands().rememberSession(vault, payload),
    meaning: () => {
      const file = hook.load("vault-memory-semantic.cjs");
      return { ...(file.exports as MeaningCode), used: file.complete };
    },
    answer: () => hook.load("vault-memory-scoring.cjs").exports as AnswerCode,
    stdin: hook.stdin,
    write: hook.write,
    resident: hook.resident,
    missed: hook.missed,
    scored: () => {
      hook.scored();
      hook.load("vault-memory-scoring.cjs").complete();
    },
  });
}
