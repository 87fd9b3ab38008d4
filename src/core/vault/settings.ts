/** Which notes are the vault's memory: the settings' schema (see settings-schema.ts); the type is scan.ts's. */

import * as z from "zod/mini";
import { setting, text, textList } from "../settings-schema";
import type { ScopeRules } from "./scan";

export const DEFAULT_SCOPE: ScopeRules = { memoryFolder: "", excludeFolders: ["meta/digest"] };

/** The top level of config.json, beside the rooms. */
export const SCOPE_SCHEMA = z.object({
  memoryFolder: setting(text, DEFAULT_SCOPE.memoryFolder, 'a folder of the vault, or "" for the whole vault'),
  excludeFolders: setting(textList, [...DEFAULT_SCOPE.excludeFolders], "a list of strings"),
}) satisfies z.ZodMiniType<ScopeRules, unknown>;
