/** How config.json's `index` is read (see settings-schema.ts); the type is index-options.ts's. */

import * as z from "zod/mini";
import { DEFAULT_HINTS_PROPERTY } from "../card/hints";
import { setting, text, trueOrFalse } from "../settings-schema";
import type { IndexSettings } from "./index-options";

export const DEFAULT_INDEX: IndexSettings = {
  stem: true,
  foldChinese: true,
  splitKana: true,
  prefixLength: 5,
  synonymsNote: "meta/synonyms.md",
  hintsProperty: DEFAULT_HINTS_PROPERTY,
};

export const INDEX_SCHEMA = z.object({
  stem: setting(trueOrFalse, DEFAULT_INDEX.stem, "true or false"),
  foldChinese: setting(trueOrFalse, DEFAULT_INDEX.foldChinese, "true or false"),
  splitKana: setting(trueOrFalse, DEFAULT_INDEX.splitKana, "true or false"),
  prefixLength: setting(z.int().check(z.minimum(0)), DEFAULT_INDEX.prefixLength, "a whole number, 0 for no prefix matching"),
  synonymsNote: setting(text, DEFAULT_INDEX.synonymsNote, 'a vault-relative path, or "" for none'),
  // A property name, not a path: YAML keys with spaces or colons would need quoting everywhere.
  hintsProperty: setting(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,40}$/)), DEFAULT_INDEX.hintsProperty, "a property name of letters, digits, - or _"),
}) satisfies z.ZodMiniType<IndexSettings, unknown>;
