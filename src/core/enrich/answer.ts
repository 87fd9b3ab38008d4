/** The strict JSON an enrich call must answer in, checked card by card: output from an LLM is untrusted. */

import { AnswerError, UNSAFE_CHARS } from "../llm/answer";
import { findSecrets } from "../privacy/redact";
import { MAX_QUESTION_CHARS, MAX_QUESTIONS } from "./settings";

export interface EnrichAnswer {
  /** Questions for each card of the batch that got valid ones. */
  cards: Map<string, string[]>;
  /** Entries left out, and why; the rest of the batch is still written. */
  rejected: { path: string; reason: string }[];
}

// A batch is a handful of cards; an answer with far more entries is not an answer to it.
const MAX_ENTRIES = 100;

/** Throws when the answer as a whole is unusable; otherwise keeps each valid entry for a card of `batch`. */
export function validateEnrichAnswer(value: unknown, batch: readonly string[]): EnrichAnswer {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new AnswerError("the answer is not a JSON object");
  const list = (value as Record<string, unknown>).cards;
  if (!Array.isArray(list)) throw new AnswerError('the answer has no "cards" list');
  if (list.length > MAX_ENTRIES) throw new AnswerError(`the answer holds ${list.length} entries for a batch of ${batch.length} cards`);
  const wanted = new Set(batch);
  const out: EnrichAnswer = { cards: new Map(), rejected: [] };
  for (const entry of list) {
    const path = entry && typeof entry === "object" && typeof (entry as { path?: unknown }).path === "string" ? (entry as { path: string }).path : undefined;
    if (path === undefined) {
      out.rejected.push({ path: "?", reason: "an entry has no path" });
      continue;
    }
    // Only cards of this batch: a path the LLM made up, or one a card's text slipped in, is never written.
    if (!wanted.has(path)) {
      out.rejected.push({ path: shown(path), reason: "not a card of this batch" });
      continue;
    }
    if (out.cards.has(path)) {
      out.rejected.push({ path, reason: "answered twice; the first answer is kept" });
      continue;
    }
    try {
      const questions = validateQuestions((entry as { questions?: unknown }).questions);
      // An empty list would read as hints the person emptied on purpose, and never be written again.
      if (questions.length === 0) throw new AnswerError("no questions");
      out.cards.set(path, questions);
    } catch (err) {
      out.rejected.push({ path, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

const shown = (path: string): string => JSON.stringify(path.slice(0, 120));

/**
 * Recall hints as the LLM gave them: a list of one-line strings, each short, with nothing that
 * could break the frontmatter they are written into or hide from the person. Whitespace is
 * collapsed as recall reads it, so the version record's hash matches what is read back; repeats
 * are dropped. Anything else refuses the list whole: an answer this far off is not trusted in part.
 */
export function validateQuestions(v: unknown, max = MAX_QUESTIONS): string[] {
  if (!Array.isArray(v)) throw new AnswerError("questions must be a list of strings");
  if (v.length > max) throw new AnswerError(`questions holds ${v.length} entries, more than ${max}`);
  const out = new Map<string, string>();
  for (const q of v) {
    if (typeof q !== "string") throw new AnswerError("questions must be a list of strings");
    if (/[\r\n]/.test(q)) throw new AnswerError("a question spans several lines");
    if (UNSAFE_CHARS.test(q)) throw new AnswerError("a question holds control or invisible characters");
    const s = q.replace(/\s+/g, " ").trim();
    if (s.length > MAX_QUESTION_CHARS) throw new AnswerError(`a question is longer than ${MAX_QUESTION_CHARS} characters`);
    if (findSecrets(s).length > 0) throw new AnswerError("a question looks like it holds a secret");
    if (s !== "" && !out.has(s.toLowerCase())) out.set(s.toLowerCase(), s);
  }
  return [...out.values()];
}
