/** `recall`: the UserPromptSubmit hook. Prints matched cards, or nothing; always exits 0. */

import { writeSync } from "node:fs";
import { numberFlag, stringFlag, type Args } from "../args";
import { parseHookInput, str } from "../hook-input";
import { readStdinSync } from "../stdin";
import { findVault, type VaultLookup } from "../vault";
import type { Early, EarlyAsk } from "../early";
import { appendLog } from "../../../src/core/io/log";
import { msSinceStart } from "../../../src/core/io/clock";
import { vaultFiles } from "../../../src/core/paths";
import { DeadlineExceeded } from "../../../src/core/index/scorer";
import { recall, recallWithMeaning, wantsRecall, type Recall, type RecallContext } from "../../../src/core/recall/recall";
import { askVector, closeCards, openCards, searchCards, semanticUsed, trustedSemantic } from "../semantic-cold";
import { SnapshotError, SnapshotReader } from "../../../src/core/snapshot/read";
import { noteSnapshotDamage } from "../../../src/core/snapshot/damage";
import { resolveProject } from "../../../src/core/project";
import { noteExists } from "../../../src/core/vault/scan";
import { loadSeen, rememberSeen } from "../../../src/core/recall/session-store";
import { appendUsage, promptHash } from "../../../src/core/recall/usage-log";
import type { RecallRules, SemanticRules } from "../../../src/core/recall/rules";

// Far inside Claude Code's hook timeout (we register 10 s; its default is 30 s). Every step is
// synchronous, so the deadline is checked between steps rather than by a timer.
const DEFAULT_DEADLINE_MS = 2000;

/**
 * What recall needs from the rest of the bridge, handed in by whoever calls it: the entry point
 * passes the loaders that compile the rest only when called, the dispatcher its own functions.
 * Recall importing them itself made a circle (recall → cold → cli → recall).
 */
export interface RecallDeps {
  recallWithoutVault: (found: Exclude<VaultLookup, { vault: string }>, remember: RegExp, stdin?: string) => number;
  rememberReply: (recallText: string, outcome: string) => string;
  rememberSession: (vault: string, hook: { sessionId: string; transcriptPath: string; cwd: string; prompt: string }) => string;
  /** Told once a prompt has been scored against a snapshot: the run took the common path. */
  scored?: () => void;
  /** The payload and vault the entry read, and the vector it asked for, before this code loaded. */
  early?: Early;
}

export function recallCommand(args: Args, deps: RecallDeps): number | Promise<number> {
  const { recallWithoutVault } = deps;
  let logPath = "";
  let vault = "";
  // "Remember this", kept before recall runs: no failure of recall may lose it, nor leave Claude
  // without the line that says whether it was kept.
  let keep: Keep | undefined;
  const failOpen = (reason: string): number => {
    if (logPath) appendLog(logPath, "recall", reason);
    return 0;
  };
  const failed = (err: unknown): number => {
    keep?.tell();
    if (err instanceof DeadlineExceeded) return failOpen(`gave up: scoring ran ${err.message}`);
    // Silence now, a rebuild at the next session start: printing from a damaged file could name
    // cards that do not exist.
    if (err instanceof SnapshotError && err.problem === "corrupt" && vault) noteSnapshotDamage(vault, vaultFiles.snapshot(vault), err.message);
    return failOpen(err instanceof Error ? err.message : String(err));
  };
  try {
    const early = deps.early;
    const found = early?.vault ?? findVault(args);
    // Rare, so handled by the code loaded on demand: the common prompt parses none of it.
    if ("problem" in found) return recallWithoutVault(found, REMEMBER, early?.stdin);
    vault = found.vault;
    logPath = vaultFiles.log(vault);
    const deadline = numberFlag(args, "deadline-ms") ?? DEFAULT_DEADLINE_MS;

    const payload = payloadOf(early?.stdin ?? readStdinSync());
    if (payload === undefined) return failOpen("stdin is not a UserPromptSubmit hook payload");
    if (REMEMBER.test(payload.prompt)) keep = keepFirst(vault, payload, deps, (why) => void failOpen(why));

    const started = msSinceStart();
    const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
    const sessions = vaultFiles.sessions(vault);
    const seen = loadSeen(sessions, payload.sessionId);
    const answer = (result: Recall): number => {
      // Printing late is worse than printing nothing: Claude Code may already have moved on.
      const elapsed = msSinceStart();
      if (elapsed > deadline) {
        keep?.tell();
        return failOpen(`gave up: ${Math.round(elapsed)} ms since the hook started, over the ${deadline} ms deadline`);
      }
      if (keep) keep.tell(result.text);
      else if (result.text) writeSync(1, result.text);
      // Bookkeeping after the answer is out, and never at the answer's expense.
      try {
        rememberSeen(sessions, payload.sessionId, seen, result.cards.map((c) => c.path));
        appendUsage(vaultFiles.usageLog(vault), {
          t: new Date().toISOString(),
          session: payload.sessionId,
          prompt: promptHash(payload.prompt),
          cards: result.cards.map((c) => ({ path: c.path, score: Math.round(c.score * 10) / 10 })),
          ms: Math.round((msSinceStart() - started) * 10) / 10,
        });
      } catch (err) {
        failOpen(`could not record the recall: ${err instanceof Error ? err.message : String(err)}`);
      }
      return 0;
    };
    const ctx = { project: resolveProject(payload.cwd), seen, deadline, exists: (path: string) => noteExists(vault, path) };
    const rules = withOverrides(reader.header.rules, args);
    if (rules.semantic && wantsRecall(payload.prompt, reader)) {
      // Only with semantic recall on, and never for "ok continue": the one path that waits.
      // The entry's request stands when it was made from this very snapshot's header (and so its rules).
      const asked = early?.ask?.headerSum === reader.header.headerSum ? early?.ask : undefined;
      // An early request was made only to this machine's own server; otherwise it is found here.
      const semantic = asked ? rules.semantic : trustedSemantic(rules.semantic, vault, stringFlag(args, "config"));
      if (typeof semantic !== "string") {
        return askWithMeaning(payload.prompt, reader, rules, semantic, vault, ctx, (why) => void failOpen(why), asked).then(
          (result) => {
            deps.scored?.();
            return answer(result);
          },
          (err: unknown) => failed(err),
        );
      }
      failOpen(`semantic recall: ${semantic}; answered from words alone`);
    }
    let result;
    try {
      result = recall(payload.prompt, reader, rules, vault, ctx);
      deps.scored?.();
    } finally {
      reader.close();
    }
    return answer(result);
  } catch (err) {
    return failed(err);
  }
}

/** A "remember this" already kept or refused; `tell` says which to Claude, once. */
interface Keep {
  tell(recallText?: string): void;
}

/** Queues the session for "remember this"; Claude is told the outcome, so /remember can never confirm a keep that failed. */
function keepFirst(vault: string, payload: Payload, deps: RecallDeps, log: (why: string) => void): Keep {
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
        writeSync(1, deps.rememberReply(recallText, outcome));
      } catch (err) {
        log(`could not print: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}

/**
 * Asks the person's embedding server for the prompt's vector, scores the words while it works,
 * reads the cards' vectors meanwhile, then fuses the two. Past the budget, or on any error, the
 * words alone answer and the log says why.
 */
function askWithMeaning(prompt: string, reader: SnapshotReader, rules: RecallRules, semantic: SemanticRules, vault: string, ctx: RecallContext, log: (why: string) => void, early?: Pick<EarlyAsk, "asked" | "sent">): Promise<Recall> {
  const { asked, sent } = early ?? askVector(prompt, semantic);
  return recallWithMeaning(prompt, reader, rules, vault, ctx, semantic, {
    asked,
    sent,
    // The request still out when this fails ends with the process, which exits once the answer is printed.
    prepare: () => openCards(vaultFiles.snapshot(vault), reader.header.headerSum ?? "", semantic.model),
    search: (vector, cards) => {
      const found = searchCards(cards!, vector, semantic.floor);
      semanticUsed();
      return found;
    },
    release: closeCards,
    fellBack: (reason) => log(`semantic recall: ${reason}; answered from words alone`),
  }).finally(() => reader.close());
}

interface Payload {
  prompt: string;
  sessionId: string;
  cwd: string;
  transcriptPath: string;
}

// The /remember command (arriving unexpanded, as typed) or the words themselves.
const REMEMBER = /^\s*(?:\/(?:vault-memory:)?remember\b|remember this\b|记住这个|記住這個)/i;

function payloadOf(stdin: string): Payload | undefined {
  const p = parseHookInput(stdin);
  if (!p || typeof p.prompt !== "string") return undefined;
  return { prompt: p.prompt, sessionId: str(p, "session_id"), cwd: str(p, "cwd"), transcriptPath: str(p, "transcript_path") };
}

function withOverrides(rules: RecallRules, args: Args): RecallRules {
  const t = { ...rules.thresholds };
  t.maxCards = numberFlag(args, "max-cards") ?? t.maxCards;
  t.minScore = numberFlag(args, "min-score") ?? t.minScore;
  return { ...rules, thresholds: t, maxChars: numberFlag(args, "max-chars") ?? rules.maxChars };
}
