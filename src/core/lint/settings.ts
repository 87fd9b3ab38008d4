/** How config.json's `lint` is read (see settings-schema.ts); the type is types.ts's. */

import * as z from "zod/mini";
import { nonNegative, setting, textList } from "../settings-schema";
import { DEFAULT_LINT_SETTINGS, type LintSettings } from "./types";

export const LINT_SCHEMA = z.object({
  disabled: setting(textList, DEFAULT_LINT_SETTINGS.disabled, "a list of strings"),
  excludeFolders: setting(textList, DEFAULT_LINT_SETTINGS.excludeFolders, "a list of strings"),
  maxSectionChars: setting(nonNegative, DEFAULT_LINT_SETTINGS.maxSectionChars, "a non-negative number"),
  unusedDays: setting(nonNegative, DEFAULT_LINT_SETTINGS.unusedDays, "a non-negative number"),
}) satisfies z.ZodMiniType<LintSettings, unknown>;
