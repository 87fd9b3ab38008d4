/** Recall's and the session brief's settings: their defaults and their schemas. */

import * as z from "zod/mini";
import { nonNegative, setting, table, trueOrFalse } from "../settings-schema";
import { DEFAULT_SCORING, DEFAULT_THRESHOLDS, type ScoringRules, type ThresholdRules } from "../index/scorer";
import type { RecallRules } from "./rules";
import { DEFAULT_SIGNALS } from "./signals";

/** The cap on the characters recall prints. */
export const DEFAULT_MAX_CHARS = 2000;

/** The session brief (see brief.ts). */
export interface BriefSettings {
  /** Whether a session starts with the brief in Claude's context. */
  enabled: boolean;
  /** Its cap in characters, header included. */
  maxChars: number;
}

export const DEFAULT_BRIEF: BriefSettings = { enabled: true, maxChars: 1500 };

const NON_NEGATIVE = "a non-negative number";

/** Every key of `defaults` a non-negative number, defaulting to its value there. */
function numbers<T extends object>(defaults: T): z.ZodMiniObject<{ [K in keyof T]: z.ZodMiniDefault<z.ZodMiniNumber> }> {
  const shape = Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, setting(nonNegative, v as number, NON_NEGATIVE)]));
  return z.object(shape) as unknown as z.ZodMiniObject<{ [K in keyof T]: z.ZodMiniDefault<z.ZodMiniNumber> }>;
}

/** How config.json's `recall` is read (see settings-schema.ts). */
export const RECALL_SCHEMA = z.object({
  scoring: numbers<ScoringRules>(DEFAULT_SCORING),
  thresholds: numbers<ThresholdRules>(DEFAULT_THRESHOLDS),
  maxChars: setting(z.number().check(z.positive()), DEFAULT_MAX_CHARS, "a positive number"),
  signals: z.object({
    // Replaced whole: the person's table is the table, so removing a type removes its weight.
    typeWeights: setting(
      table(z.string().check(z.toLowerCase()), nonNegative, NON_NEGATIVE),
      DEFAULT_SIGNALS.typeWeights,
      "a table of note types and their weights",
    ),
    recencyHalfLifeDays: setting(nonNegative, DEFAULT_SIGNALS.recencyHalfLifeDays, NON_NEGATIVE),
    recencyBoost: setting(nonNegative, DEFAULT_SIGNALS.recencyBoost, NON_NEGATIVE),
    linkBoost: setting(nonNegative, DEFAULT_SIGNALS.linkBoost, NON_NEGATIVE),
  }),
}) satisfies z.ZodMiniType<RecallRules, unknown>;

/** How config.json's `brief` is read. */
export const BRIEF_SCHEMA = z.object({
  enabled: setting(trueOrFalse, DEFAULT_BRIEF.enabled, "true or false"),
  // Claude Code shows a hook's output whole up to 10,000 characters; past that, a preview.
  maxChars: setting(z.int().check(z.minimum(200), z.maximum(10_000)), DEFAULT_BRIEF.maxChars, "a whole number from 200 to 10000"),
}) satisfies z.ZodMiniType<BriefSettings, unknown>;
