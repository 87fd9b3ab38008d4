/** The enrich step's settings and their defaults. */

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
