/**
 * How config.json's `embed` is read (see settings-schema.ts). Apart from settings.ts because the
 * prompt hook's semantic code loads that file, and must not carry zod.
 */

import * as z from "zod/mini";
import { nonNegative, setting, trueOrFalse } from "../settings-schema";
import { DEFAULT_EMBED, type EmbedSettings } from "./settings";

export const EMBED_SCHEMA = z.object({
  enabled: setting(trueOrFalse, DEFAULT_EMBED.enabled, "true or false"),
  provider: setting(z.enum(["ollama", "openai"]), DEFAULT_EMBED.provider, '"ollama" or "openai"'),
  url: setting(z.string().check(z.trim(), z.minLength(1)), DEFAULT_EMBED.url, "a non-empty string"),
  model: setting(z.string().check(z.trim(), z.minLength(1)), DEFAULT_EMBED.model, "a non-empty string"),
  budgetMs: setting(z.number().check(z.minimum(10), z.maximum(5000)), DEFAULT_EMBED.budgetMs, "a number of milliseconds from 10 to 5000"),
  allowRemote: setting(trueOrFalse, DEFAULT_EMBED.allowRemote, "true or false"),
  batchSize: setting(z.int().check(z.minimum(1), z.maximum(256)), DEFAULT_EMBED.batchSize, "a whole number from 1 to 256"),
  runBudgetSec: setting(z.number().check(z.minimum(1), z.maximum(86_400)), DEFAULT_EMBED.runBudgetSec, "a number of seconds from 1 to 86400"),
  gate: setting(z.number().check(z.minimum(0), z.maximum(20)), DEFAULT_EMBED.gate, "a number from 0 to 20"),
  alone: setting(z.number().check(z.minimum(0), z.maximum(20)), DEFAULT_EMBED.alone, "a number from 0 to 20"),
  weight: setting(nonNegative, DEFAULT_EMBED.weight, "a non-negative number"),
  queryPrefix: setting(z.string().check(z.maxLength(64)), DEFAULT_EMBED.queryPrefix, '"auto" or a string of at most 64 characters'),
  passagePrefix: setting(z.string().check(z.maxLength(64)), DEFAULT_EMBED.passagePrefix, '"auto" or a string of at most 64 characters'),
  inputType: setting(z.enum(["auto", "send", "omit"]), DEFAULT_EMBED.inputType, '"auto", "send" or "omit"'),
}) satisfies z.ZodMiniType<EmbedSettings, unknown>;
