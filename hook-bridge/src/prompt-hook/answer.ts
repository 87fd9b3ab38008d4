/**
 * The prompt hook's second half, its answer: the snapshot opened, the prompt's words scored
 * (while the embedding server works, when it was asked), meaning fused in, the cards printed and
 * recorded. Its own file in the build (vault-memory-scoring.cjs), loaded by the first half
 * (ask.ts) once the request for the prompt's vector has left, so that its loading is part of the
 * server's wait rather than before it.
 */

// Node's timers, named: this is a Node process, with no window whose timers the linter asks for.
import { clearTimeout, setTimeout } from "node:timers";
import { numberFlag, type Args } from "../args";
import type { Asking, Prompted } from "./prompted";
import { appendLog } from "../../../src/core/io/log";
import { msSinceStart } from "../../../src/core/io/clock";
import { vaultFiles } from "../../../src/core/paths";
import { DeadlineExceeded } from "../../../src/core/index/scorer";
import { readPrompt, recall, recallWithMeaning, wantsRecall, type ReadPrompt, type Recall, type RecallContext } from "../../../src/core/recall/recall";
import { SnapshotError, SnapshotReader } from "../../../src/core/snapshot/read";
import { noteSnapshotDamage } from "../../../src/core/snapshot/damage";
import { resolveProject } from "../../../src/core/project";
import { noteExists } from "../../../src/core/vault/scan";
import { loadSeen, rememberSeen } from "../../../src/core/recall/session-store";
import { appendUsage, promptHash } from "../../../src/core/recall/usage-log";
import type { RecallRules } from "../../../src/core/recall/rules";
import { failureRules } from "../../../src/core/recall/failure";
import { FAILURE_HEADER } from "../../../src/core/text/recall-header";
import type { EmbedResult } from "../../../src/core/embed/client";
import { semanticOn, type SemanticRules } from "../../../src/core/embed/settings";

/** One run's way to fail open: the reason in the vault's log, exit 0, a "remember this" still told. */
interface Run {
  vault: string;
  failOpen: (reason: string) => number;
  failed: (err: unknown) => number;
}

function newRun({ vault, keep }: Prompted): Run {
  const failOpen = (reason: string): number => {
    appendLog(vaultFiles.log(vault), "recall", reason);
    return 0;
  };
  return {
    vault,
    failOpen,
    failed: (err) => {
      keep?.tell();
      if (err instanceof DeadlineExceeded) return failOpen(`gave up: scoring ran ${err.message}`);
      // Silence now, a rebuild at the next session start: printing from a damaged file could name
      // cards that do not exist.
      if (err instanceof SnapshotError && err.problem === "corrupt") noteSnapshotDamage(vault, vaultFiles.snapshot(vault), err.message);
      return failOpen(err instanceof Error ? err.message : String(err));
    },
  };
}

/** Recall for a prompt the first half has read: prints the cards, or nothing, and records them. */
export function recallFor(p: Prompted): number | Promise<number> {
  const run = newRun(p);
  const { args, vault, payload, deadline } = p;
  try {
    const started = msSinceStart();
    const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
    const rules = withOverrides(payload.failure ? failureRules(reader.header.rules) : reader.header.rules, args);
    const sessions = vaultFiles.sessions(vault);
    const seen = loadSeen(sessions, payload.sessionId);
    const ctx: RecallContext = {
      project: resolveProject(payload.cwd),
      seen,
      deadline,
      exists: (path: string) => noteExists(vault, path),
      ...(payload.failure ? { header: FAILURE_HEADER, printed: true } : {}),
    };
    const answer = (result: Recall): number => {
      p.scored?.();
      return answerWith(result, run, p, { sessions, seen, started, deadline });
    };
    // Read once: whether it is an acknowledgement, and its words, serve every step below.
    const prompt = readPrompt(payload.prompt, reader, p.ack);
    const meaning = meaningFor(p, prompt, reader, rules, run);
    if (meaning) return withMeaning(prompt, reader, rules, ctx, meaning, run).then(answer).catch(run.failed);
    let result;
    try {
      result = recall(prompt, reader, rules, vault, ctx);
    } finally {
      reader.close();
    }
    return answer(result);
  } catch (err) {
    return run.failed(err);
  }
}

/**
 * The request to use, with the snapshot's rules for it, when the snapshot has vectors of the
 * model this machine asked with and recall searches for the prompt; otherwise nothing, and the
 * log says why when one of the two asks for meaning and the other cannot give it.
 */
function meaningFor(
  { meaning }: Prompted,
  prompt: ReadPrompt,
  reader: SnapshotReader,
  rules: RecallRules,
  run: Run,
): { asking: Asking; semantic: SemanticRules } | undefined {
  // Most prompts, with semantic recall off: no rules and a reason, and nothing more to look at.
  if (meaning === undefined || (!rules.semantic && typeof meaning === "string")) return undefined;
  if (!rules.semantic) {
    // Turned on since the last index: the next one writes the cards' vectors.
    run.failOpen("semantic recall: this computer's settings turn it on, but the snapshot has no vectors yet (run index); answered from words alone");
    return undefined;
  }
  if (!wantsRecall(prompt, reader)) return undefined;
  const semantic = semanticOn(rules.semantic, typeof meaning === "string" ? meaning : meaning.machine);
  if (typeof semantic === "string") {
    run.failOpen(`semantic recall: ${semantic}; answered from words alone`);
    return undefined;
  }
  // semanticOn passes on why none was asked, so a rule here means a request is out.
  return typeof meaning === "string" ? undefined : { asking: meaning, semantic };
}

interface Answering {
  sessions: string;
  seen: ReturnType<typeof loadSeen>;
  started: number;
  deadline: number;
}

/** Prints the answer unless it is late, then records what was recalled. */
function answerWith(
  result: Recall,
  run: Run,
  { payload, keep, write, resident }: Pick<Prompted, "payload" | "keep" | "write" | "resident">,
  { sessions, seen, started, deadline }: Answering,
): number {
  // Printing late is worse than printing nothing: Claude Code may already have moved on.
  const elapsed = msSinceStart();
  if (elapsed > deadline) {
    keep?.tell();
    return run.failOpen(`gave up: ${Math.round(elapsed)} ms since the hook started, over the ${deadline} ms deadline`);
  }
  if (keep) keep.tell(result.text);
  // A failed command's cards reach Claude as the hook's context, which only JSON carries there.
  else if (result.text && payload.failure)
    write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: result.text } }) + "\n");
  else if (result.text) write(result.text);
  // Bookkeeping after the answer is out, and never at the answer's expense.
  try {
    rememberSeen(
      sessions,
      payload.sessionId,
      seen,
      result.cards.map((c) => c.path),
    );
    appendUsage(vaultFiles.usageLog(run.vault), {
      t: new Date().toISOString(),
      session: payload.sessionId,
      prompt: promptHash(payload.prompt),
      cards: result.cards.map((c) => ({ path: c.path, score: Math.round(c.score * 10) / 10 })),
      ms: Math.round((msSinceStart() - started) * 10) / 10,
      ...(resident ? { resident: true as const } : {}),
    });
  } catch (err) {
    run.failOpen(`could not record the recall: ${err instanceof Error ? err.message : String(err)}`);
  }
  return 0;
}

/** The answer within the snapshot's budget, counted from when it was asked; past it, why not. */
function withinBudget({ asked, at }: Asking, budgetMs: number): Promise<EmbedResult> {
  const left = budgetMs - (msSinceStart() - at);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<EmbedResult>((resolve) => {
    timer = setTimeout(() => resolve({ error: `no answer within ${budgetMs} ms`, ms: budgetMs }), Math.max(0, left));
  });
  return Promise.race([asked, late]).finally(() => clearTimeout(timer));
}

/**
 * Scores the words while the server works, reads the cards' vectors meanwhile, then fuses the
 * two. Past the budget, or on any error, the words alone answer and the log says why.
 */
function withMeaning(
  prompt: ReadPrompt,
  reader: SnapshotReader,
  rules: RecallRules,
  ctx: RecallContext,
  { asking, semantic }: { asking: Asking; semantic: SemanticRules },
  run: Run,
): Promise<Recall> {
  const { code } = asking;
  return recallWithMeaning(prompt, reader, rules, run.vault, ctx, semantic, {
    asked: withinBudget(asking, semantic.budgetMs),
    // The request still out when this fails ends with the process, which exits once the answer is printed.
    prepare: () => code.openCards(vaultFiles.snapshot(run.vault), reader.header.headerSum ?? "", semantic.model),
    search: (vector, cards, words) => {
      const found = code.searchCards(cards!, vector, words);
      code.used?.();
      return found;
    },
    release: code.closeCards,
    fellBack: (reason) => void run.failOpen(`semantic recall: ${reason}; answered from words alone`),
  }).finally(() => reader.close());
}

function withOverrides(rules: RecallRules, args: Args): RecallRules {
  const t = { ...rules.thresholds };
  t.maxCards = numberFlag(args, "max-cards") ?? t.maxCards;
  t.minScore = numberFlag(args, "min-score") ?? t.minScore;
  return { ...rules, thresholds: t, maxChars: numberFlag(args, "max-chars") ?? rules.maxChars };
}
