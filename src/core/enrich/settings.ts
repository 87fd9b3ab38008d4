/** The enrich step's settings, their defaults and their schema. */

import * as z from "zod/mini";
import { setting } from "../settings-schema";

/** Recall hints per card and per hint: a list longer than this is not questions but noise. */
export const MAX_QUESTIONS = 8;
export const MAX_QUESTION_CHARS = 200;

/** A BCP 47 language tag such as "en" or "zh-TW", or "" for none. */
export const LANGUAGE_TAG = /^(?:|[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)$/;

export interface EnrichSettings {
  /** At most this many cards enriched by each nightly digest, after its queue. */
  perNight: number;
  /** Cards per LLM call. */
  batchSize: number;
  /** Questions asked for per card. */
  questionsPerCard: number;
  /** A language the person also asks in (a BCP 47 tag such as "en"), besides each card's own; "" for none. */
  alsoLanguage: string;
}

export const DEFAULT_ENRICH: EnrichSettings = { perNight: 20, batchSize: 6, questionsPerCard: 6, alsoLanguage: "" };

/** How config.json's `enrich` is read (see settings-schema.ts). */
export const ENRICH_SCHEMA = z.object({
  // A whole number of cards: the part of a card past the last would ask for nothing useful.
  perNight: setting(z.pipe(z.number().check(z.minimum(0)), z.transform(Math.floor)), DEFAULT_ENRICH.perNight, "a non-negative number"),
  batchSize: setting(z.int().check(z.minimum(1), z.maximum(20)), DEFAULT_ENRICH.batchSize, "a whole number from 1 to 20"),
  questionsPerCard: setting(
    z.int().check(z.minimum(1), z.maximum(MAX_QUESTIONS)),
    DEFAULT_ENRICH.questionsPerCard,
    `a whole number from 1 to ${MAX_QUESTIONS}`,
  ),
  alsoLanguage: setting(z.string().check(z.trim(), z.regex(LANGUAGE_TAG)), DEFAULT_ENRICH.alsoLanguage, 'a language tag such as "en" or "zh-TW", or ""'),
}) satisfies z.ZodMiniType<EnrichSettings, unknown>;
