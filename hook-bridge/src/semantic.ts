/**
 * What the prompt hook needs only with semantic recall on: asking for the prompt's vector and
 * searching the cards' vectors. Its own file in the build (vault-memory-semantic.cjs), loaded on
 * first use, so that with semantic recall off a prompt loads none of it (the secret patterns the
 * prompt is cleaned with are most of it).
 */

import { embedTexts, type EmbedResult } from "../../src/core/embed/client";
import { closeVectors, openVectors, searchOpen, vectorsPathOf, type OpenVectors } from "../../src/core/embed/vectors";
import { sanitize } from "../../src/core/privacy/redact";
import { isAcknowledgement } from "../../src/core/text/chitchat";
import { ENGLISH_STOP_WORDS } from "../../src/core/text/stopwords";
import { beginRecall as begin, type Early } from "./early";

// Where the prompt goes is this machine's setting, never the snapshot's (see embed/settings.ts).
export { trustedSemantic } from "../../src/core/embed/settings";

/** The entry's first steps with semantic recall on (see early.ts). */
export function beginRecall(argv: readonly string[]): Early | undefined {
  return begin(argv, askEarly);
}
import type { SemanticRules } from "../../src/core/recall/rules";

/**
 * askVector for the entry, before recall's code loads: `semantic` is the rules of the snapshot's
 * checked header, their shape checked again here. Nothing is asked for an acknowledgement ("ok
 * continue") or a prompt with no word to look for ("what is this", "？？"), as recall itself
 * would not ask.
 */
export function askEarly(prompt: string, semantic: unknown): { asked: Promise<EmbedResult>; sent: Promise<void> } | undefined {
  const rules = semanticRulesShape(semantic);
  if (!rules || isAcknowledgement(prompt) || !hasSearchWord(prompt)) return undefined;
  return askVector(prompt, rules);
}

/**
 * Whether the prompt has a word recall would look for: an English word of two or more letters or
 * digits that is not a stop word, or a letter of another script (CJK, kana, Hangul, Cyrillic,
 * accented Latin…). A loop rather than the tokenizer, which is recall's code, and rather than a
 * Unicode class, which is compiled on first use; punctuation, symbols and emoji are not words.
 */
export function hasSearchWord(text: string): boolean {
  let word = "";
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x20;
    const lower = c | 0x20;
    if ((c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x7a)) {
      word += String.fromCharCode(c >= 0x41 && c <= 0x5a ? lower : c);
      continue;
    }
    if (word.length >= 2 && !ENGLISH_STOP_WORDS.has(word)) return true;
    word = "";
    const symbol = c < 0xc0 || (c >= 0x2000 && c <= 0x2bff) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xd800 && c <= 0xdfff) || (c >= 0xfe00 && c <= 0xfe6f) || (c >= 0xff00 && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65) || c === 0xd7 || c === 0xf7;
    if (!symbol) return true;
  }
  return false;
}

function semanticRulesShape(v: unknown): SemanticRules | undefined {
  const r = v as Partial<SemanticRules> | null;
  if (!r || typeof r !== "object") return undefined;
  const ok = (r.provider === "ollama" || r.provider === "openai") && typeof r.url === "string" && typeof r.model === "string" && typeof r.allowRemote === "boolean" && [r.budgetMs, r.floor, r.weight].every((n) => typeof n === "number" && Number.isFinite(n));
  return ok ? (r as SemanticRules) : undefined;
}

/**
 * The prompt's vector, the prompt cleaned first as everything that leaves the vault is; `sent`
 * resolves once the request is on its way.
 */
export function askVector(prompt: string, semantic: SemanticRules): { asked: Promise<EmbedResult>; sent: Promise<void> } {
  let flushed: () => void = () => {};
  const sent = new Promise<void>((resolve) => (flushed = resolve));
  return { asked: embedTexts(semantic, [sanitize(prompt)], semantic.budgetMs, { sent: () => flushed(), deferDeadline: true }), sent };
}

/** The cards' vectors beside the snapshot at `snapshotPath`, read while the server works (see embed/vectors.ts). */
export function openCards(snapshotPath: string, base: string, model: string): OpenVectors {
  return openVectors(vectorsPathOf(snapshotPath), base, model);
}

export function closeCards(cards: OpenVectors): void {
  closeVectors(cards);
}

/** Cosine by card id, at least `floor`; closes what openCards opened. */
export function searchCards(cards: OpenVectors, query: Float32Array, floor: number): Map<number, number> {
  try {
    return searchOpen(cards, query, floor);
  } finally {
    closeVectors(cards);
  }
}
