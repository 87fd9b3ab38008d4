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
import { beginRecall as begin, type Early } from "./early";

/** The entry's first steps with semantic recall on (see early.ts). */
export function beginRecall(argv: readonly string[]): Early | undefined {
  return begin(argv, askEarly);
}
import type { SemanticRules } from "../../src/core/recall/rules";

/**
 * askVector for the entry, before recall's code loads: `semantic` is the snapshot's rules as its
 * first line gave them, not yet checked, so they are checked here. Nothing is asked for an
 * acknowledgement ("ok continue") or a prompt without a letter or digit; recall then decides
 * as ever whether the prompt has words to look for.
 */
export function askEarly(prompt: string, semantic: unknown): { semantic: SemanticRules; asked: Promise<EmbedResult>; sent: Promise<void> } | undefined {
  const rules = semanticRulesShape(semantic);
  if (!rules || isAcknowledgement(prompt) || !hasWordCharacter(prompt)) return undefined;
  let flushed: () => void = () => {};
  const sent = new Promise<void>((resolve) => (flushed = resolve));
  return { semantic: rules, asked: askVector(prompt, rules, () => flushed()), sent };
}

/** An ASCII letter or digit, or any character past ASCII: a loop, where a Unicode class would be compiled first. */
function hasWordCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const lower = c | 0x20;
    if ((c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x7a) || c > 0x7f) return true;
  }
  return false;
}

function semanticRulesShape(v: unknown): SemanticRules | undefined {
  const r = v as Partial<SemanticRules> | null;
  if (!r || typeof r !== "object") return undefined;
  const ok = (r.provider === "ollama" || r.provider === "openai") && typeof r.url === "string" && typeof r.model === "string" && typeof r.allowRemote === "boolean" && [r.budgetMs, r.floor, r.weight].every((n) => typeof n === "number" && Number.isFinite(n));
  return ok ? (r as SemanticRules) : undefined;
}

/** The prompt's vector, the prompt cleaned first as everything that leaves the vault is. */
export function askVector(prompt: string, semantic: SemanticRules, sent: () => void): Promise<EmbedResult> {
  return embedTexts(semantic, [sanitize(prompt)], semantic.budgetMs, { sent, direct: true });
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
