/**
 * What the prompt hook's two halves hand each other (ask.ts, then answer.ts), and what the
 * caller hands the first: kept apart from both so that neither half imports the other.
 */

import type { Args } from "../args";
import type { VaultLookup } from "../vault";
import type { MeaningCode } from "./meaning";
import type { MachineEmbed } from "../../../src/core/embed/settings";
import type { EmbedResult } from "../../../src/core/embed/client";

/**
 * What the prompt hook needs from the rest of the bridge, handed in by whoever calls it: the
 * entry passes loaders of the bridge's other files (entry.ts), the dispatcher its own functions
 * (cli.ts). The hook importing them itself would put them in every prompt's code.
 */
export interface PromptHookDeps {
  recallWithoutVault: (found: Exclude<VaultLookup, { vault: string }>, remember: RegExp, io: { stdin?: () => string; write: (text: string) => void }) => number;
  rememberReply: (recallText: string, outcome: string) => string;
  rememberSession: (vault: string, hook: { sessionId: string; transcriptPath: string; cwd: string; prompt: string }) => string;
  /** Semantic recall's code, asked for only when this machine turns it on (meaning.ts). */
  meaning: () => MeaningCode;
  /** The answer's code, asked for once the request for the prompt's vector, if any, has left (answer.ts). */
  answer: () => AnswerCode;
  /** Told once a prompt has been scored against a snapshot: the run took the common path. */
  scored?: () => void;
  /** The payload, when the caller has read it (the resident recall server); else stdin is read. Throws what reading threw. */
  stdin?: () => string;
  /** Where the answer goes; standard output unless the caller (the resident recall server) takes it. */
  write?: (text: string) => void;
  /** The caller is the resident recall server: the recall log says so. */
  resident?: boolean;
  /** Why the resident recall server did not answer, told to the vault's log. */
  missed?: string;
}

/** answer.ts as the first half is handed it. */
export interface AnswerCode {
  recallFor(p: Prompted): number | Promise<number>;
}

export interface Payload {
  /** The prompt; for a failed command, the words recall looks for in its error (failureQuery). */
  prompt: string;
  /** A command Claude ran that failed (PostToolUseFailure), not a prompt: the answer goes as JSON context. */
  failure?: boolean;
  sessionId: string;
  cwd: string;
  transcriptPath: string;
}

/** A "remember this" already kept or refused; `tell` says which to Claude, once. */
export interface Keep {
  tell(recallText?: string): void;
}

/** The prompt's vector, asked for: the code that asked, this machine's server, the answer to come. */
export interface Asking {
  code: MeaningCode;
  machine: MachineEmbed;
  asked: Promise<EmbedResult>;
  sent: Promise<void>;
  /** When it was asked (msSinceStart): the snapshot's budget for the answer counts from here. */
  at: number;
}

/** What the first half hands the answer: the vault found and the payload read once, and the request, or why there is none. */
export interface Prompted {
  args: Args;
  vault: string;
  payload: Payload;
  keep?: Keep;
  /** Prints the answer (PromptHookDeps.write). */
  write: (text: string) => void;
  resident?: boolean;
  /** Milliseconds since the process started past which nothing is printed (--deadline-ms). */
  deadline: number;
  /** The request for the prompt's vector; or why none was sent, told to the log if the snapshot asks for one; or nothing, for an acknowledgement. */
  meaning?: Asking | string;
  /** Whether the prompt is an acknowledgement, when the first half has already asked. */
  ack?: boolean;
  scored?: () => void;
}
