/** Turns a prompt into the lines Claude sees: score, apply thresholds, format under a hard cap. */

import { join } from "node:path";
import type { PostingSource } from "../index/postings";
import { applyThresholds, passesFloor, scoreDocs } from "../index/scorer";
import { uniqueTerms } from "../text/tokenizer";
import type { RecallRules } from "../snapshot/format";

export interface RecalledCard {
  /** Vault-relative path. */
  path: string;
  description: string;
  score: number;
}

export interface Recall {
  cards: RecalledCard[];
  /** What the hook prints; "" when nothing matched. */
  text: string;
}

// A pasted log can hold thousands of distinct words; each costs a segment read, and the first few
// dozen already say what the prompt is about.
const MAX_QUERY_TERMS = 64;
const MAX_DESCRIPTION_CHARS = 200;

export const RECALL_HEADER =
  "Vault Memory matched these notes from the user's vault to this prompt, best first. " +
  "Read the ones that bear on it before answering; ignore the rest.";

export function recall(prompt: string, source: PostingSource, rules: RecallRules, vaultRoot: string): Recall {
  const terms = uniqueTerms(prompt).slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return { cards: [], text: "" };
  const picked = applyThresholds(scoreDocs(terms, source, passesFloor(rules.thresholds)), rules.thresholds);
  const cards: RecalledCard[] = [];
  for (const s of picked) {
    const info = source.doc(s.doc);
    if (info) cards.push({ path: info.path, description: info.description, score: s.score });
  }
  return { cards, text: formatRecall(cards, vaultRoot, rules.maxChars) };
}

/** Header plus one line per card, never longer than `maxChars`: cards that do not fit are dropped whole. */
export function formatRecall(cards: readonly RecalledCard[], vaultRoot: string, maxChars: number): string {
  const lines = [RECALL_HEADER];
  // Each line costs its length plus the newline that ends it.
  let used = RECALL_HEADER.length + 1;
  for (const card of cards) {
    const abs = join(vaultRoot, card.path);
    const description = clip(card.description.replace(/\s+/g, " ").trim(), MAX_DESCRIPTION_CHARS);
    let line = description ? `- ${abs} — ${description}` : `- ${abs}`;
    if (used + line.length + 1 > maxChars) {
      // The best card is worth printing with a shorter description rather than not at all.
      const room = maxChars - used - `- ${abs} — `.length - 1;
      if (lines.length > 1 || room < 20) break;
      line = `- ${abs} — ${clip(description, room)}`;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.length === 1 ? "" : lines.join("\n") + "\n";
}

function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "…";
}
