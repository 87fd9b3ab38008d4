/**
 * `recall`: the UserPromptSubmit hook. Prints matched cards, or nothing; always exits 0.
 *
 * This is its first half, all the prompt hook runs before the embedding request leaves: the vault,
 * the payload, "remember this", and, when this machine turns semantic recall on, the request for
 * the prompt's vector. The answer (the snapshot, the scoring, what is printed) is answer.ts, loaded
 * once the request is on its way, so the server works while it loads.
 */

import { writeSync } from "node:fs";
import { numberFlag, stringFlag, type Args } from "../args";
import { parseHookInput, str, type HookInput } from "../hook-input";
import { readStdinSync } from "../stdin";
import { findVault } from "../vault";
import type { MeaningCode } from "./meaning";
import type { Asking, Keep, Payload, Prompted, PromptHookDeps } from "./prompted";
import { appendLog } from "../../../src/core/io/log";
import { msSinceStart } from "../../../src/core/io/clock";
import { vaultFiles } from "../../../src/core/paths";
import { isAcknowledgement } from "../../../src/core/text/chitchat";
import { failureQuery, reportsResult } from "../../../src/core/recall/failure";
import { machineEmbed } from "../../../src/core/embed/settings";

// Far inside Claude Code's hook timeout (we register 10 s; its default is 30 s). Every step is
// synchronous, so the deadline is checked between steps rather than by a timer.
const DEFAULT_DEADLINE_MS = 2000;

export function recallCommand(args: Args, deps: PromptHookDeps): number | Promise<number> {
  let vault = "";
  let keep: Keep | undefined;
  const failOpen = (reason: string): number => {
    if (vault) appendLog(vaultFiles.log(vault), "recall", reason);
    return 0;
  };
  const failed = (err: unknown): number => {
    keep?.tell();
    return failOpen(err instanceof Error ? err.message : String(err));
  };
  const write = deps.write ?? ((text: string) => void writeSync(1, text));
  try {
    const found = findVault(args);
    // Rare, so handled by the code loaded on demand: the common prompt parses none of it.
    if ("problem" in found) return deps.recallWithoutVault(found, REMEMBER, { stdin: deps.stdin, write });
    vault = found.vault;
    if (deps.missed) failOpen(`resident recall server: ${deps.missed}; recalled in the hook's own process`);
    const payload = payloadOf(deps.stdin ? deps.stdin() : readStdinSync());
    if (payload === undefined) return failOpen("stdin is not a UserPromptSubmit or PostToolUseFailure hook payload");
    // A failed command holds Claude's turn up while the hook runs: it gets half the prompt's time.
    const deadline = numberFlag(args, "deadline-ms") ?? (payload.failure ? DEFAULT_DEADLINE_MS / 2 : DEFAULT_DEADLINE_MS);
    // "Remember this", kept before recall runs: no failure of recall may lose it, nor leave
    // Claude without the line that says whether it was kept.
    if (!payload.failure && REMEMBER.test(payload.prompt)) keep = keepFirst(vault, payload, deps, write, (why) => void failOpen(why));
    const prompted: Prompted = { args, vault, payload, keep, write, deadline, scored: deps.scored, resident: deps.resident };
    // A failure is looked up by its words alone, within its shorter time: no embedding request.
    if (!payload.failure) askFirst(prompted, deps);
    const score = (): number | Promise<number> => deps.answer().recallFor(prompted);
    // The request leaves once this turn yields (net connects on the next tick): recall's code
    // loads and the words are scored while the server works.
    if (typeof prompted.meaning === "object") return Promise.race([prompted.meaning.sent, prompted.meaning.asked]).then(score).catch(failed);
    return score();
  } catch (err) {
    return failed(err);
  }
}

/**
 * Asks this machine's embedding server for the prompt's vector when this machine turns semantic
 * recall on for the vault, before the snapshot is opened; whether the snapshot has vectors to
 * search is the answer's to see. Never for an acknowledgement ("ok continue"), which recall does
 * not search for. Otherwise `meaning` holds the reason none was asked, for the log.
 */
function askFirst(p: Prompted, deps: PromptHookDeps): void {
  // Where the prompt goes is this machine's setting, never the vault's (see embed/settings.ts).
  const machine = machineEmbed(p.vault, stringFlag(p.args, "config"));
  if (typeof machine === "string") {
    p.meaning = machine;
    return;
  }
  // Asked once a prompt: the answer reads the prompt with it (readPrompt).
  p.ack = isAcknowledgement(p.payload.prompt);
  if (p.ack) return;
  let code: MeaningCode;
  try {
    code = deps.meaning();
  } catch (err) {
    p.meaning = `its code could not be loaded (${err instanceof Error ? err.message : String(err)})`;
    return;
  }
  const at = msSinceStart();
  // The hook's own deadline bounds the request; the snapshot's budget for it is the answer's to apply.
  const asking: Asking = { code, machine, at, ...code.askVector(p.payload.prompt, machine, p.deadline) };
  p.meaning = asking;
}

/** Queues the session for "remember this"; Claude is told the outcome, so /remember can never confirm a keep that failed. */
function keepFirst(vault: string, payload: Payload, deps: PromptHookDeps, write: (text: string) => void, log: (why: string) => void): Keep {
  let outcome: string;
  try {
    outcome = deps.rememberSession(vault, payload);
  } catch (err) {
    outcome = `the queue could not be written (${err instanceof Error ? err.message : String(err)})`;
  }
  if (outcome !== "queued") log(`remember: not queued: ${outcome}`);
  let told = false;
  return {
    tell(recallText = "") {
      if (told) return;
      told = true;
      try {
        write(deps.rememberReply(recallText, outcome));
      } catch (err) {
        log(`could not print: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}

// The /remember command (arriving unexpanded, as typed) or the words themselves.
const REMEMBER = /^\s*(?:\/(?:vault-memory:)?remember\b|remember this\b|记住这个|記住這個)/i;

function payloadOf(stdin: string): Payload | undefined {
  const p = parseHookInput(stdin);
  if (!p) return undefined;
  const common = { sessionId: str(p, "session_id"), cwd: str(p, "cwd"), transcriptPath: str(p, "transcript_path") };
  if (p.hook_event_name === "PostToolUseFailure") {
    const error = str(p, "error");
    const input = p.tool_input;
    const command = input && typeof input === "object" && !Array.isArray(input) ? str(input as HookInput, "command") : "";
    // A command the person stopped did not fail, nor did a diff that found a difference or a grep
    // that found nothing: nothing to look up, nothing printed.
    if (!error || p.is_interrupt === true || reportsResult(command)) return { prompt: "", failure: true, ...common };
    return { prompt: failureQuery(error), failure: true, ...common };
  }
  if (typeof p.prompt !== "string") return undefined;
  return { prompt: p.prompt, ...common };
}
