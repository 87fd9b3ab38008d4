/** Index time: each card's text to vectors, through the cache, in batches, with progress. */

import type { Card } from "../card/card";
import { hintsOf } from "../card/hints";
import { sanitize } from "../privacy/redact";
import { cosine, quantize, textKey, type Quantized, type VectorCache } from "./cache";
import { BACKGROUND_PROMPTS } from "./calibration";
import { profileOf, type EmbedRole } from "./profile";
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
 * A text asked for at the start of every run that asks the server anything, kept in the cache
 * beside the cards' (a key no card's text has): when the server's vector for it is not the one
 * kept, the model answering is not the one that made the cache, whatever its name (a tag moved to
 * new weights, another server on the same address), and every card is embedded again.
 */
export const PROBE_TEXT = "Vault Memory's probe text: is this still the model that embedded these cards? 这还是同一个模型吗？";
const PROBE_KEY = textKey(`\u0000${PROBE_TEXT}`);
// Two runs of one model give one vector, give or take the int8 rounding.
const SAME_MODEL_COSINE = 0.995;

/**
 * The texts a card is embedded as: its title, description and recall hints with the start of its
 * body, then the next pieces of the body. Private blocks and secrets are taken out first, as for
 * everything that leaves the vault.
 */
export function cardTexts(card: Card, hintsProperty: string): string[] {
  const head = headLines(card, hintsProperty).join("\n");
  const body = sanitize(card.body)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  // The body is cut at fixed places, whatever the head holds, so that a new description changes the
  // first piece only and the rest are not embedded again.
  const chunks = [`${sanitize(head)}\n\n${body.slice(0, CHUNK_CHARS)}`.trim()];
  for (let at = CHUNK_CHARS; at < body.length && chunks.length < MAX_CHUNKS; at += CHUNK_CHARS) chunks.push(body.slice(at, at + CHUNK_CHARS));
  return chunks.filter((c) => c.trim() !== "");
}

/** The lines a card's first piece starts with: its name, description and recall hints (each one line). */
function headLines(card: Card, hintsProperty: string): string[] {
  return [card.name, card.description, ...hintsOf(card, hintsProperty)].filter((s) => s.trim() !== "");
}

/**
 * A card's recall hints, embedded as questions (with the model's query mark): a prompt is likened
 * to the questions a card answers as well as to its text. A small model separates "asks what this
 * card answers" from "is about the same things" better question to question than question to
 * passage (docs/semantic-recall.md). Cards without hints have none.
 *
 * The hints are cleaned as the first piece is, in one text with the name and the description: a
 * private passage or a secret that runs from one line into the next is taken out whole, not line
 * by line (a `<private>` opened in one hint and closed in the next would otherwise leave the
 * second's words). When that took lines out, which hint is which is no longer known, and none is
 * asked for; the card is still found by its text.
 */
export function cardQuestions(card: Card, hintsProperty: string): string[] {
  const hints = hintsOf(card, hintsProperty).length;
  if (hints === 0) return [];
  // The hints are a line each (hintsOf folds their white space); a description may be several.
  const head = headLines(card, hintsProperty).join("\n");
  const clean = sanitize(head).split("\n");
  if (clean.length !== head.split("\n").length) return [];
  return clean
    .slice(clean.length - hints)
    .map((h) => h.trim())
    .filter((h) => h !== "");
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
  /** Each card's hints' vectors (asked for as questions) by path, for the cards with hints that have all of theirs. */
  questions: Map<string, Quantized[]>;
  /** Cards a vector was refused for (all zeros, not finite, another dimension), and why; none of it is cached. */
  refused: { path: string; reason: string }[];
  /** Cards whose text has its vectors but a hint's was refused: they are judged by their text alone. */
  refusedHints: { path: string; reason: string }[];
  /** The model answered otherwise than when the cache was made: the cache was dropped and every card asked for again. */
  modelChanged?: boolean;
  /** The background prompts' vectors, asked for as questions (see calibration.ts); empty when not all could be had. */
  background: Quantized[];
}

/**
 * The cache's keys of the background prompts: by how a question is marked too, since they are
 * asked for as questions, and a key no card's text has.
 */
function backgroundKeys(settings: EmbedSettings): string[] {
  return BACKGROUND_PROMPTS.map((t) => questionKey(settings, "\u0001", t));
}

/** The cache's key of a text asked for as a question: by how a question is marked, and apart from any passage's key. */
function questionKey(settings: EmbedSettings, kind: string, text: string): string {
  const p = profileOf(settings);
  return textKey(`${kind}${JSON.stringify({ query: p.queryPrefix, inputType: p.inputType })}\u0000${text}`);
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
export async function embedCards(
  cards: readonly Card[],
  settings: EmbedSettings,
  hintsProperty: string,
  cache: VectorCache,
  opts: EmbedCardsOptions = {},
): Promise<EmbedReport> {
  const { onProgress, offline = false } = opts;
  const deadline = opts.budgetMs === undefined ? Infinity : msSinceStart() + opts.budgetMs;
  const { texts, perCard } = keysOfCards(cards, settings, hintsProperty);
  const bgKeys = backgroundKeys(settings);
  cache.keepOnly(new Set([...texts.keys(), PROBE_KEY, ...bgKeys]));
  // The model is asked about first; a server that cannot answer leaves the cache as the vectors
  // there are, as a run with no server does.
  const before = offline ? [] : [...texts.keys()].filter((k) => cache.peek(k) === undefined);
  onProgress?.(0, before.length);
  const probe = !offline && texts.size > 0 ? await checkModel(settings, cache, deadline, opts.budgetMs, before.length) : false;
  const asking = !offline && typeof probe !== "string";
  const missing = asking ? [...texts.keys()].filter((k) => cache.get(k) === undefined) : [];
  // Another model: everything is to be asked for, not what the count above said.
  if (probe === true) onProgress?.(0, missing.length);
  const report: EmbedReport = {
    ok: typeof probe !== "string",
    ...(typeof probe === "string" ? { error: probe } : {}),
    embedded: 0,
    reused: asking ? texts.size - missing.length : [...texts.keys()].filter((k) => cache.peek(k) !== undefined).length,
    vectors: new Map(),
    questions: new Map(),
    refused: [],
    refusedHints: [],
    ...(probe === true ? { modelChanged: true } : {}),
    background: [],
  };
  // The background first: a few short questions, which calibration needs however many cards this
  // run's budget leaves without vectors.
  report.background = await embedBackground(settings, cache, bgKeys, asking ? deadline : -Infinity);
  const refused = new Map<string, string>();
  for (let i = 0; i < missing.length;) {
    const left = deadline - msSinceStart();
    const seconds = `${Math.round((opts.budgetMs ?? 0) / 1000)} s`;
    if (left <= 0) {
      report.ok = false;
      report.error = `the ${seconds} budget ran out with ${i} of ${missing.length} texts asked for`;
      break;
    }
    // One side per request: a batch ends where the passages give way to the questions.
    const role = texts.get(missing[i])!.role;
    let end = i + 1;
    while (end < missing.length && end - i < settings.batchSize && texts.get(missing[end])!.role === role) end++;
    const batch = missing.slice(i, end);
    const byBudget = left < BATCH_TIMEOUT_MS;
    const r = await embedEach(
      settings,
      batch.map((k) => texts.get(k)!.text),
      Math.max(1, Math.min(BATCH_TIMEOUT_MS, left)),
      { role },
    );
    if ("error" in r) {
      report.ok = false;
      report.error = byBudget ? overBudget(r.error, seconds, i, missing.length) : r.error;
      break;
    }
    r.each.forEach((v, j) => {
      if (typeof v === "string") refused.set(batch[j], `the server's vector is ${v}`);
      else if (!cache.set(batch[j], v)) refused.set(batch[j], `the server answered ${v.length} dimensions where ${cache.dim} were stored for ${cache.model}`);
      else report.embedded++;
    });
    i = end;
    onProgress?.(i, missing.length);
  }
  collectVectors(report, perCard, refused, cache);
  if (report.refused.length > 0) report.ok = false;
  return report;
}

/**
 * Each card's vectors from the cache into the report: its text's when all its pieces have one, its
 * hints' too when all of them have one. A card whose text was refused is reported; a refused hint
 * leaves the card its text, as it was before hints counted, and is reported apart.
 */
function collectVectors(
  report: EmbedReport,
  perCard: readonly { path: string; keys: string[]; questions: string[] }[],
  refused: ReadonlyMap<string, string>,
  cache: VectorCache,
): void {
  const whyNot = (ks: readonly string[]): string | undefined => ks.map((k) => refused.get(k)).find((r) => r !== undefined);
  for (const { path, keys, questions: asked } of perCard) {
    const why = whyNot(keys);
    if (why !== undefined) {
      report.refused.push({ path, reason: why });
      continue;
    }
    const vs = keys.map((k) => cache.peek(k)).filter((v): v is Quantized => v !== undefined);
    if (vs.length > 0 && vs.length === keys.length) report.vectors.set(path, vs);
    // A hint the server could not embed leaves the card its text, as it was before hints counted.
    const hintWhy = whyNot(asked);
    if (hintWhy !== undefined) {
      report.refusedHints.push({ path, reason: hintWhy });
      continue;
    }
    const qs = asked.map((k) => cache.peek(k)).filter((v): v is Quantized => v !== undefined);
    if (qs.length > 0 && qs.length === asked.length && report.vectors.has(path)) report.questions.set(path, qs);
  }
}

/**
 * Each card's texts and hints by their keys in the cache, and each text by its key with the side
 * it is asked for on: the passages first, then the questions, so that a run the budget cuts short
 * leaves cards with their text before it adds their hints.
 */
function keysOfCards(
  cards: readonly Card[],
  settings: EmbedSettings,
  hintsProperty: string,
): { texts: Map<string, { text: string; role: EmbedRole }>; perCard: { path: string; keys: string[]; questions: string[] }[] } {
  const texts = new Map<string, { text: string; role: EmbedRole }>();
  const keysOf = (list: string[], role: EmbedRole, key: (t: string) => string): string[] =>
    list.map((t) => {
      const k = key(t);
      texts.set(k, { text: t, role });
      return k;
    });
  const passages = cards.map((c) => keysOf(cardTexts(c, hintsProperty), "passage", textKey));
  const perCard = cards.map((c, i) => ({
    path: c.path,
    keys: passages[i],
    questions: keysOf(cardQuestions(c, hintsProperty), "query", (t) => questionKey(settings, "\u0002", t)),
  }));
  return { texts, perCard };
}

/** The background prompts' vectors, asked for what the cache lacks before `deadline`; none unless all are there. */
async function embedBackground(settings: EmbedSettings, cache: VectorCache, bgKeys: readonly string[], deadline: number): Promise<Quantized[]> {
  const left = deadline - msSinceStart();
  if (left > 0 && bgKeys.some((k) => cache.get(k) === undefined)) {
    const r = await embedEach(settings, [...BACKGROUND_PROMPTS], Math.max(1, Math.min(BATCH_TIMEOUT_MS, left)), { role: "query" });
    if (!("error" in r)) r.each.forEach((v, j) => typeof v !== "string" && cache.set(bgKeys[j], v));
  }
  const background = bgKeys.map((k) => cache.peek(k)).filter((v): v is Quantized => v !== undefined);
  return background.length === bgKeys.length ? background : [];
}

/**
 * Asks for the probe's vector and holds it against the one kept: true when the model changed (the
 * cache is emptied then, and the probe's new vector kept), false when it is the same or nothing
 * was kept yet; a string saying why when the server did not answer usably.
 */
async function checkModel(
  settings: EmbedSettings,
  cache: VectorCache,
  deadline: number,
  budgetMs: number | undefined,
  texts: number,
): Promise<boolean | string> {
  const left = deadline - msSinceStart();
  const seconds = `${Math.round((budgetMs ?? 0) / 1000)} s`;
  if (left <= 0) return `the ${seconds} budget ran out with 0 of ${texts} texts asked for`;
  const r = await embedEach(settings, [PROBE_TEXT], Math.max(1, Math.min(BATCH_TIMEOUT_MS, left)), { role: "passage" });
  if ("error" in r) return left < BATCH_TIMEOUT_MS ? overBudget(r.error, seconds, 0, texts) : r.error;
  const v = r.each[0];
  if (typeof v === "string") return `the server's vector for a plain sentence is ${v}`;
  const kept = cache.peek(PROBE_KEY);
  const fresh = quantize(v);
  // Each side's rounding taken out: the same vector compares at exactly 1.
  const same = (a: Quantized, b: Quantized): number => cosine(a, b) / Math.sqrt(cosine(a, a) * cosine(b, b));
  const changed = kept !== undefined && (kept.values.length !== v.length || same(kept, fresh) < SAME_MODEL_COSINE);
  if (changed || (kept === undefined && cache.dim !== 0 && cache.dim !== v.length)) {
    cache.clear(v.length);
    cache.set(PROBE_KEY, v);
    return true;
  }
  cache.set(PROBE_KEY, v);
  return false;
}

/** A request's error when the run's budget, not the request's own time, cut it short: said as the budget. */
function overBudget(error: string, seconds: string, asked: number, total: number): string {
  return error.startsWith("no answer within") ? `no answer within the ${seconds} budget, with ${asked} of ${total} texts asked for` : error;
}
