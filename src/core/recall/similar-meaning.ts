/**
 * Similar cards with meaning fused in, for the queue sidebar and the nightly digest: the words'
 * suggestions, the server's vector of what a conversation opens with, and the cards' vectors
 * beside the snapshot. Its own module so that recall's code, which the prompt hook loads, does
 * not carry the vectors' reader.
 */

import { isVaultPage } from "../card/schema";
import { embedTexts } from "../embed/client";
import { PATIENT_EMBED_MS, semanticRulesOf, type EmbedSettings } from "../embed/settings";
import { searchVectors, vectorsPathOf } from "../embed/vectors";
import type { PostingSource } from "../index/postings";
import { vaultFiles } from "../paths";
import { sanitize } from "../privacy/redact";
import { SnapshotReader } from "../snapshot/read";
import { effectiveMinScore } from "./recall";
import type { RecallRules } from "./rules";
import { fuseSimilar, similarCards, type SimilarCard } from "./similar";

/**
 * Stand-out by card path (see embed/calibration.ts), of the nearest live cards and of the cards at
 * `paths`, from the vectors beside the vault's snapshot on disk, with each card's description and
 * type; throws with the reason when they cannot be read.
 */
export function standOutByPath(
  vault: string,
  model: string,
  query: Float32Array,
  paths: Iterable<string> = [],
): Map<string, { standOut: number; description: string; type: string }> {
  const snapshot = vaultFiles.snapshot(vault);
  const reader = SnapshotReader.open(snapshot);
  try {
    const out = new Map<string, { standOut: number; description: string; type: string }>();
    const wanted = [...paths];
    const live = wanted.length > 0 ? reader.layout().live : new Map<string, number>();
    const also = wanted.map((p) => live.get(p)).filter((id): id is number => id !== undefined);
    for (const [id, standOut] of searchVectors(vectorsPathOf(snapshot), reader.header.headerSum ?? "", model, query, also)) {
      // A card deleted or changed since the base has no doc under its old id.
      const info = reader.doc(id);
      if (info) out.set(info.path, { standOut, description: info.description, type: info.type });
    }
    return out;
  } finally {
    reader.close();
  }
}

/**
 * The one card a text means as no other: the card whose likeness stands out at least as far as
 * `alone` (the level where semantic recall shows a card on meaning alone), and no other card's
 * does. For the check before creating: words find a card repeated, this one reworded. Undefined
 * when semantic recall is off, the server fails, or no card or several stand out.
 */
export async function meaningTwin(vault: string, embed: EmbedSettings, text: string): Promise<string | undefined> {
  const semantic = semanticRulesOf(embed);
  if (!semantic || text.trim() === "") return undefined;
  const r = await embedTexts(semantic, [sanitize(text)], Math.max(semantic.budgetMs, PATIENT_EMBED_MS));
  if ("error" in r) return undefined;
  let found;
  try {
    found = standOutByPath(vault, semantic.model, r.vectors[0]);
  } catch {
    return undefined;
  }
  const over = [...found].filter(([, s]) => s.standOut >= semantic.alone && !isVaultPage(s.type));
  return over.length === 1 ? over[0][0] : undefined;
}

export interface SimilarAsk {
  vault: string;
  /** A VaultMemoryConfig will do; this room does not import config.ts, which is above it. */
  config: { recall: RecallRules; embed: EmbedSettings };
  /** The cards' words: the live index. Cards the vectors name that it does not know (deleted or renamed since the snapshot) are left out. */
  source: PostingSource & { docByPath(path: string): { type: string } | undefined | null };
  /** What the words are matched on: the conversation's start and its candidates (entrySubject). */
  text: string;
  /** What meaning is asked of: the opening question, which says what a conversation is about (a whole transcript's vector is diluted by everything else said in it). */
  meaning: string;
  limit: number;
}

/**
 * The `limit` cards most like a conversation, words and meaning fused as recall fuses them.
 * Undefined when semantic recall is off or there is nothing to ask; the reason when the server
 * or the vectors cannot be used, and the caller keeps the words' suggestions.
 */
export async function similarWithMeaning(a: SimilarAsk): Promise<SimilarCard[] | { error: string } | undefined> {
  const semantic = semanticRulesOf(a.config.embed);
  if (!semantic || a.meaning.trim() === "") return undefined;
  const r = await embedTexts(semantic, [sanitize(a.meaning)], Math.max(semantic.budgetMs, PATIENT_EMBED_MS));
  if ("error" in r) return { error: r.error };
  let found;
  try {
    found = standOutByPath(a.vault, semantic.model, r.vectors[0]);
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
  for (const path of [...found.keys()]) {
    const info = a.source.docByPath(path);
    if (info === undefined || info === null || isVaultPage(info.type)) found.delete(path);
  }
  // More word suggestions than are kept, so that a card meaning lifts can pass one it does not.
  const words = similarCards(a.text, a.source, a.limit * 3, a.config.recall.scoring.hintBonus);
  const scale = effectiveMinScore(a.config.recall, a.source.docCount, a.text);
  return fuseSimilar(words, found, { gate: semantic.gate, alone: semantic.alone, weight: semantic.weight, scale }, a.limit);
}
