/** How config.json's `queue` is read (see settings-schema.ts); the rules are capture.ts's. */

import * as z from "zod/mini";
import { nonNegative, setting, textList } from "../settings-schema";
import { DEFAULT_QUEUE_RULES, type QueueRules } from "./capture";

export const QUEUE_SCHEMA = z.object({
  minPrompts: setting(nonNegative, DEFAULT_QUEUE_RULES.minPrompts, "a non-negative number"),
  minChars: setting(nonNegative, DEFAULT_QUEUE_RULES.minChars, "a non-negative number"),
  excludeProjects: setting(textList, DEFAULT_QUEUE_RULES.excludeProjects, "a list of strings"),
}) satisfies z.ZodMiniType<QueueRules, unknown>;
