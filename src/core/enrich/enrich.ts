/** Enrich: asks the LLM, in batches, for the questions each card answers, and writes them as soon as they come. */

import { parseCard, type Card } from "../card/card";
import { hintFields } from "../card/hint-fields";
import { hintState } from "../card/hints";
import type { VaultMemoryConfig } from "../config";
import { extractJson } from "../llm/answer";
import { callFailed, classifyFailure, endsRun, failureReason } from "../llm/llm";
import { GENERATED_MARK, RULES_NOTE } from "../card/schema";
import type { CommandResult } from "../llm/run-command";
import { validateEnrichAnswer } from "./answer";
import { buildEnrichPrompt } from "./prompt";
import type { CardStore } from "./store";

export interface EnrichOptions {
  store: CardStore;
  config: VaultMemoryConfig;
  /** One LLM call: the prompt on stdin, under the run's deadline. */
  ask: (prompt: string) => Promise<CommandResult>;
  /** At most this many calls. */
  maxCalls: number;
  /** At most this many cards. */
  limit?: number;
  dryRun?: boolean;
  onProgress?: (line: string) => void;
}

export interface EnrichReport {
  /** False when the run stopped early: quota, authentication, no LLM binary, another run holding the lock. */
  ok: boolean;
  error?: string;
  dryRun: boolean;
  calls: number;
  /** Cards given hints (or that would be, on a dry run). */
  written: { path: string; questions: string[] }[];
  /** Cards that were due but got none this run, and why; they are tried again next run. */
  skipped: { path: string; reason: string }[];
  /** Cards still due after this run. */
  left: number;
}

interface Due {
  path: string;
  text: string;
  card: Card;
}

/** Cards in the store whose hints are missing, or were written for an older version of the card. */
/** `notRead`: what could not be read at all (a FIFO or a huge file at a card's name); not counted as due. */
export async function dueCards(
  store: CardStore,
  config: VaultMemoryConfig,
): Promise<{ due: Due[]; unreadable: { path: string; reason: string }[]; notRead: { path: string; reason: string }[] }> {
  const property = config.index.hintsProperty;
  const due: Due[] = [];
  const unreadable: { path: string; reason: string }[] = [];
  const notRead: { path: string; reason: string }[] = [];
  for (const path of await store.list()) {
    // The rules note is settings, and generated pages are rewritten every night: hints on them
    // would be lost, or asked for again, each time.
    if (path === RULES_NOTE) continue;
    let text: string;
    try {
      text = await store.read(path);
    } catch (err) {
      notRead.push({ path, reason: err instanceof Error ? err.message : String(err) });
      continue;
    }
    if (text.includes(GENERATED_MARK)) continue;
    const card = parseCard(path, text);
    const state = hintState(card, property);
    if (state !== "missing" && state !== "stale") continue;
    if (card.frontmatterError) unreadable.push({ path, reason: `its frontmatter cannot be read (${card.frontmatterError})` });
    else due.push({ path, text, card });
  }
  return { due, unreadable, notRead };
}

export async function enrichCards(opts: EnrichOptions): Promise<EnrichReport> {
  const say = opts.onProgress ?? (() => {});
  const settings = opts.config.enrich;
  const property = opts.config.index.hintsProperty;
  const { due, unreadable, notRead } = await dueCards(opts.store, opts.config);
  const report: EnrichReport = {
    ok: true,
    dryRun: !!opts.dryRun,
    calls: 0,
    written: [],
    skipped: [...notRead, ...unreadable],
    left: due.length + unreadable.length,
  };
  const todo = due.slice(0, opts.limit ?? Infinity);
  const batches = Math.ceil(todo.length / settings.batchSize);
  for (let i = 0; i < todo.length; i += settings.batchSize) {
    if (report.calls >= opts.maxCalls) {
      say(`stopped at the budget of ${opts.maxCalls} calls`);
      break;
    }
    const batch = todo.slice(i, i + settings.batchSize);
    say(`enriching ${batch.length} cards (batch ${i / settings.batchSize + 1} of ${batches})`);
    report.calls++;
    const prompt = buildEnrichPrompt(
      batch.map((d) => ({ path: d.path, name: d.card.name, description: d.card.description, body: d.card.body })),
      settings.questionsPerCard,
      settings.alsoLanguage,
    );
    const r = await opts.ask(prompt);
    if (callFailed(r)) {
      const reason = failureReason(r, opts.config.digest.timeoutSec);
      for (const d of batch) report.skipped.push({ path: d.path, reason });
      say(`  failed: ${reason}`);
      if (endsRun(classifyFailure(r))) {
        report.ok = false;
        report.error = `stopped: ${reason}`;
        break;
      }
      continue;
    }
    let answer;
    try {
      answer = validateEnrichAnswer(
        extractJson(r.stdout),
        batch.map((d) => d.path),
      );
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      for (const d of batch) report.skipped.push({ path: d.path, reason });
      say(`  answer refused: ${reason}`);
      continue;
    }
    for (const x of answer.rejected) say(`  left out ${x.path}: ${x.reason}`);
    for (const d of batch) {
      const questions = answer.cards.get(d.path);
      if (!questions) {
        report.skipped.push({ path: d.path, reason: answer.rejected.find((x) => x.path === d.path)?.reason ?? "no questions in the answer" });
        continue;
      }
      try {
        // Each card is written as soon as its batch is answered: a run that stops leaves it done.
        const outcome = opts.dryRun ? "written" : await opts.store.setProperties(d.path, d.text, hintFields(d.path, d.text, property, questions));
        if (outcome === "changed") {
          report.skipped.push({ path: d.path, reason: "changed while the LLM answered; left for the next run" });
          continue;
        }
        report.written.push({ path: d.path, questions });
        report.left--;
        say(opts.dryRun ? `  would write ${d.path}: ${questions.join(" | ")}` : `  wrote ${questions.length} questions to ${d.path}`);
      } catch (err) {
        report.skipped.push({ path: d.path, reason: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return report;
}
