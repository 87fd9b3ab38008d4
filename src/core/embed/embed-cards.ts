/** Index time: each card's text to vectors, through the cache, in batches, with progress. */

import type { Card } from "../card/card";
import { hintsOf } from "../card/hints";
import { sanitize } from "../privacy/redact";
import { textKey, type Quantized, type VectorCache } from "./cache";
import { embedEach } from "./client";
import { msSinceStart } from "../io/clock";
import type { EmbedSettings } from "./settings";

// What one vector stands for: a long note is cut into a few pieces, and its best piece counts.
export const CHUNK_CHARS = 1200;
export const MAX_CHUNKS = 3;
// A batch's whole request, including the server loading its model the first time; within the
// run's budget, which bounds them all.
const BATCH_TIMEOUT_MS = 120_000;

/**
 * The texts a card is embedded as: its title, description and recall hints with the start of its
 * body, then the next pieces of the body. Private blocks and secrets are taken out first, as for
 * everything that leaves the vault.
 */
export function cardTexts(card: Card, hintsProperty: string): string[] {
  const head = [card.name, card.description, ...hintsOf(card, hintsProperty)].filter((s) => s.trim() !== "").join("\n");
  const body = sanitize(card.body).replace(/\n{3,}/g, "\n\n").trim();
  // The body is cut at fixed places, whatever the head holds, so that a new description changes the
  // first piece only and the rest are not embedded again.
  const chunks = [`${sanitize(head)}\n\n${body.slice(0, CHUNK_CHARS)}`.trim()];
  for (let at = CHUNK_CHARS; at < body.length && chunks.length < MAX_CHUNKS; at += CHUNK_CHARS) chunks.push(body.slice(at, at + CHUNK_CHARS));
  return chunks.filter((c) => c.trim() !== "");
}

export interface EmbedReport {
  ok: boolean;
  /** Why the run stopped before every text was asked for: the server failed, or the budget ran out. */
  error?: string;
  /** Texts sent to the server, and texts the cache already had. */
  embedded: number;
  reused: number;
  /** Each card's vectors by path, for the cards that have all of theirs. */
  vectors: Map<string, Quantized[]>;
  /** Cards a vector was refused for (all zeros, not finite, another dimension), and why; none of it is cached. */
  refused: { path: string; reason: string }[];
}

export interface EmbedCardsOptions {
  onProgress?: (done: number, total: number) => void;
  /** From the cache alone, asking nothing. */
  offline?: boolean;
  /** The most the whole run may take, in ms; each request gets what is left of it. */
  budgetMs?: number;
}

/**
 * Vectors for every card: from the cache when a text is unchanged, from the server in batches
 * otherwise (`offline`: from the cache alone). Stops at the first failed batch (the server is
 * down, slow, or answers garbage) or when the budget runs out, and says why; what was embedded
 * before it is kept in the cache. A vector that cannot stand for its text is refused on its own,
 * and its card reported.
 */
export async function embedCards(cards: readonly Card[], settings: EmbedSettings, hintsProperty: string, cache: VectorCache, opts: EmbedCardsOptions = {}): Promise<EmbedReport> {
  const { onProgress, offline = false } = opts;
  const deadline = opts.budgetMs === undefined ? Infinity : msSinceStart() + opts.budgetMs;
  const texts = new Map<string, string>();
  const perCard = cards.map((c) => {
    const keys = cardTexts(c, hintsProperty).map((t) => {
      const k = textKey(t);
      texts.set(k, t);
      return k;
    });
    return { path: c.path, keys };
  });
  cache.keepOnly(new Set(texts.keys()));
  const missing = offline ? [] : [...texts.keys()].filter((k) => cache.get(k) === undefined);
  const report: EmbedReport = { ok: true, embedded: 0, reused: offline ? [...texts.keys()].filter((k) => cache.peek(k) !== undefined).length : texts.size - missing.length, vectors: new Map(), refused: [] };
  const refused = new Map<string, string>();
  onProgress?.(0, missing.length);
  for (let i = 0; i < missing.length; i += settings.batchSize) {
    const left = deadline - msSinceStart();
    const seconds = `${Math.round((opts.budgetMs ?? 0) / 1000)} s`;
    if (left <= 0) {
      report.ok = false;
      report.error = `the ${seconds} budget ran out with ${i} of ${missing.length} texts asked for`;
      break;
    }
    const batch = missing.slice(i, i + settings.batchSize);
    const byBudget = left < BATCH_TIMEOUT_MS;
    const r = await embedEach(settings, batch.map((k) => texts.get(k)!), Math.max(1, Math.min(BATCH_TIMEOUT_MS, left)), { role: "passage" });
    if ("error" in r) {
      report.ok = false;
      report.error = byBudget && r.error.startsWith("no answer within") ? `no answer within the ${seconds} budget, with ${i} of ${missing.length} texts asked for` : r.error;
      break;
    }
    r.each.forEach((v, j) => {
      if (typeof v === "string") refused.set(batch[j], `the server's vector is ${v}`);
      else if (!cache.set(batch[j], v)) refused.set(batch[j], `the server answered ${v.length} dimensions where ${cache.dim} were stored for ${cache.model}`);
      else report.embedded++;
    });
    onProgress?.(Math.min(i + batch.length, missing.length), missing.length);
  }
  for (const { path, keys } of perCard) {
    const why = keys.map((k) => refused.get(k)).find((r) => r !== undefined);
    if (why !== undefined) {
      report.refused.push({ path, reason: why });
      continue;
    }
    const vs = keys.map((k) => cache.peek(k)).filter((v): v is Quantized => v !== undefined);
    if (vs.length > 0 && vs.length === keys.length) report.vectors.set(path, vs);
  }
  if (report.refused.length > 0) report.ok = false;
  return report;
}
