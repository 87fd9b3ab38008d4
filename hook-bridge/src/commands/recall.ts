/** `recall`: the UserPromptSubmit hook. Prints matched cards, or nothing; always exits 0. */

import { writeSync } from "node:fs";
import { numberFlag, stringFlag, type Args } from "../args";
import { parseHookInput, str } from "../hook-input";
import { readStdinSync } from "../stdin";
import { findVault, type VaultLookup } from "../vault";
import type { SemanticCode } from "../semantic";
import { appendLog } from "../../../src/core/io/log";
import { msSinceStart } from "../../../src/core/io/clock";
import { vaultFiles } from "../../../src/core/paths";
import { DeadlineExceeded } from "../../../src/core/index/scorer";
import { recall, recallWithMeaning, wantsRecall, type Recall, type RecallContext } from "../../../src/core/recall/recall";
import { SnapshotError, SnapshotReader } from "../../../src/core/snapshot/read";
import { noteSnapshotDamage } from "../../../src/core/snapshot/damage";
import { resolveProject } from "../../../src/core/project";
import { noteExists } from "../../../src/core/vault/scan";
import { loadSeen, rememberSeen } from "../../../src/core/recall/session-store";
import { appendUsage, promptHash } from "../../../src/core/recall/usage-log";
import type { RecallRules } from "../../../src/core/recall/rules";
import type { EmbedResult } from "../../../src/core/embed/client";
import type { SemanticRules } from "../../../src/core/embed/settings";

// Far inside Claude Code's hook timeout (we register 10 s; its default is 30 s). Every step is
// synchronous, so the deadline is checked between steps rather than by a timer.
const DEFAULT_DEADLINE_MS = 2000;

/**
 * What recall needs from the rest of the bridge, handed in by whoever calls it: the prompt hook's
 * recall entry passes loaders of the bridge's other files (recall-entry.ts), the dispatcher its
 * own functions. Recall importing them itself would put them in every prompt's code.
 */
export interface RecallDeps {
  recallWithoutVault: (found: Exclude<VaultLookup, { vault: string }>, remember: RegExp) => number;
  rememberReply: (recallText: string, outcome: string) => string;
  rememberSession: (vault: string, hook: { sessionId: string; transcriptPath: string; cwd: string; prompt: string }) => string;
  /** Semantic recall's code, asked for only when the snapshot's rules turn it on (see semantic.ts). */
  semantic: () => SemanticCode;
  /** Told once a prompt has been scored against a snapshot: the run took the common path. */
  scored?: () => void;
}

/** One run's way to fail open: the reason in the vault's log, exit 0, a "remember this" still told. */
interface Run {
  vault: string;
  keep?: Keep;
  failOpen: (reason: string) => number;
  failed: (err: unknown) => number;
}

function newRun(): Run {
  const run: Run = {
    vault: "",
    failOpen: (reason) => {
      if (run.vault) appendLog(vaultFiles.log(run.vault), "recall", reason);
      return 0;
    },
    failed: (err) => {
      run.keep?.tell();
      if (err instanceof DeadlineExceeded) return run.failOpen(`gave up: scoring ran ${err.message}`);
      // Silence now, a rebuild at the next session start: printing from a damaged file could name
      // cards that do not exist.
      if (err instanceof SnapshotError && err.problem === "corrupt" && run.vault) noteSnapshotDamage(run.vault, vaultFiles.snapshot(run.vault), err.message);
      return run.failOpen(err instanceof Error ? err.message : String(err));
    },
  };
  return run;
}

export function recallCommand(args: Args, deps: RecallDeps): number | Promise<number> {
  const run = newRun();
  try {
    const found = findVault(args);
    // Rare, so handled by the code loaded on demand: the common prompt parses none of it.
    if ("problem" in found) return deps.recallWithoutVault(found, REMEMBER);
    const vault = (run.vault = found.vault);
    const deadline = numberFlag(args, "deadline-ms") ?? DEFAULT_DEADLINE_MS;
    const payload = payloadOf(readStdinSync());
    if (payload === undefined) return run.failOpen("stdin is not a UserPromptSubmit hook payload");
    // "Remember this", kept before recall runs: no failure of recall may lose it, nor leave
    // Claude without the line that says whether it was kept.
    if (REMEMBER.test(payload.prompt)) run.keep = keepFirst(vault, payload, deps, (why) => void run.failOpen(why));

    const started = msSinceStart();
    const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
    const rules = withOverrides(reader.header.rules, args);
    // The prompt's vector is asked for before anything else is read, so the server works meanwhile.
    const asking = askFirst(payload.prompt, reader, rules, stringFlag(args, "config"), deps, run);
    const sessions = vaultFiles.sessions(vault);
    // The rest of what scoring needs, read once the request has left: the server works meanwhile.
    const rest = (): { ctx: RecallContext; answer: (result: Recall) => number } => {
      const seen = loadSeen(sessions, payload.sessionId);
      const ctx = { project: resolveProject(payload.cwd), seen, deadline, exists: (path: string) => noteExists(vault, path) };
      const answer = (result: Recall): number => {
        deps.scored?.();
        return answerWith(result, run, { payload, sessions, seen, started, deadline });
      };
      return { ctx, answer };
    };
    if (asking) {
      return Promise.race([asking.sent, asking.asked])
        .then(() => {
          const { ctx, answer } = rest();
          return withMeaning(payload.prompt, reader, rules, ctx, asking, run).then(answer);
        })
        .catch(run.failed);
    }
    const { ctx, answer } = rest();
    let result;
    try {
      result = recall(payload.prompt, reader, rules, vault, ctx);
    } finally {
      reader.close();
    }
    return answer(result);
  } catch (err) {
    return run.failed(err);
  }
}

/** The prompt's vector, asked for: the code that asked, the rules it asked with, the answer to come. */
interface Asking {
  code: SemanticCode;
  semantic: SemanticRules;
  asked: Promise<EmbedResult>;
  sent: Promise<void>;
}

/**
 * Asks this machine's embedding server for the prompt's vector when the snapshot's rules turn
 * semantic recall on and the prompt is one recall searches for (never "ok continue"); otherwise,
 * or when there is no server to ask, nothing, and the log says why.
 */
function askFirst(prompt: string, reader: SnapshotReader, rules: RecallRules, configFlag: string | undefined, deps: RecallDeps, run: Run): Asking | undefined {
  if (!rules.semantic || !wantsRecall(prompt, reader)) return undefined;
  let code: SemanticCode;
  try {
    code = deps.semantic();
  } catch (err) {
    run.failOpen(`semantic recall: its code could not be loaded (${err instanceof Error ? err.message : String(err)}); answered from words alone`);
    return undefined;
  }
  // Where the prompt goes is this machine's setting, never the snapshot's (see embed/settings.ts).
  const semantic = code.trustedSemantic(rules.semantic, run.vault, configFlag);
  if (typeof semantic === "string") {
    run.failOpen(`semantic recall: ${semantic}; answered from words alone`);
    return undefined;
  }
  return { code, semantic, ...code.askVector(prompt, semantic) };
}

interface Answering {
  payload: Payload;
  sessions: string;
  seen: ReturnType<typeof loadSeen>;
  started: number;
  deadline: number;
}

/** Prints the answer unless it is late, then records what was recalled. */
function answerWith(result: Recall, run: Run, { payload, sessions, seen, started, deadline }: Answering): number {
  // Printing late is worse than printing nothing: Claude Code may already have moved on.
  const elapsed = msSinceStart();
  if (elapsed > deadline) {
    run.keep?.tell();
    return run.failOpen(`gave up: ${Math.round(elapsed)} ms since the hook started, over the ${deadline} ms deadline`);
  }
  if (run.keep) run.keep.tell(result.text);
  else if (result.text) writeSync(1, result.text);
  // Bookkeeping after the answer is out, and never at the answer's expense.
  try {
    rememberSeen(sessions, payload.sessionId, seen, result.cards.map((c) => c.path));
    appendUsage(vaultFiles.usageLog(run.vault), {
      t: new Date().toISOString(),
      session: payload.sessionId,
      prompt: promptHash(payload.prompt),
      cards: result.cards.map((c) => ({ path: c.path, score: Math.round(c.score * 10) / 10 })),
      ms: Math.round((msSinceStart() - started) * 10) / 10,
    });
  } catch (err) {
    run.failOpen(`could not record the recall: ${err instanceof Error ? err.message : String(err)}`);
  }
  return 0;
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
 * Scores the words while the server works, reads the cards' vectors meanwhile, then fuses the
 * two. Past the budget, or on any error, the words alone answer and the log says why.
 */
function withMeaning(prompt: string, reader: SnapshotReader, rules: RecallRules, ctx: RecallContext, { code, semantic, asked, sent }: Asking, run: Run): Promise<Recall> {
  return recallWithMeaning(prompt, reader, rules, run.vault, ctx, semantic, {
    asked,
    sent,
    // The request still out when this fails ends with the process, which exits once the answer is printed.
    prepare: () => code.openCards(vaultFiles.snapshot(run.vault), reader.header.headerSum ?? "", semantic.model),
    search: (vector, cards) => {
      const found = code.searchCards(cards!, vector, semantic.floor);
      code.used?.();
      return found;
    },
    release: code.closeCards,
    fellBack: (reason) => void run.failOpen(`semantic recall: ${reason}; answered from words alone`),
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
