/** The digest's settings, their defaults and their schema. */

import * as z from "zod/mini";
import { nonNegative, setting, text } from "../settings-schema";
import { TIME_OF_DAY } from "./schedule";

export interface DigestSettings {
  /** HH:MM, local time. */
  time: string;
  /** The LLM command and its flags; the prompt goes to its stdin. */
  command: string[];
  /** An absolute path to the LLM binary, when it is not on the login shell's PATH. */
  binary: string;
  model: string;
  maxEntries: number;
  maxCalls: number;
  timeoutSec: number;
  /** A shell command the report is piped to (e.g. `mail -s "Vault Memory" me@example.com`); "" for none. */
  reportCommand: string;
}

export const DEFAULT_DIGEST: DigestSettings = {
  time: "03:00",
  command: ["claude", "-p", "--output-format", "json"],
  binary: "",
  model: "",
  maxEntries: 20,
  maxCalls: 30,
  timeoutSec: 300,
  reportCommand: "",
};

/** How config.json's `digest` is read (see settings-schema.ts). */
export const DIGEST_SCHEMA = z.object({
  time: setting(z.string().check(z.trim(), z.regex(TIME_OF_DAY)), DEFAULT_DIGEST.time, "a time of day such as 03:00"),
  command: setting(z.array(z.string()).check(z.minLength(1)), DEFAULT_DIGEST.command, "a non-empty list of strings"),
  binary: setting(text, DEFAULT_DIGEST.binary, "a string"),
  model: setting(text, DEFAULT_DIGEST.model, "a string"),
  maxEntries: setting(nonNegative, DEFAULT_DIGEST.maxEntries, "a non-negative number"),
  maxCalls: setting(nonNegative, DEFAULT_DIGEST.maxCalls, "a non-negative number"),
  timeoutSec: setting(nonNegative, DEFAULT_DIGEST.timeoutSec, "a non-negative number"),
  reportCommand: setting(text, DEFAULT_DIGEST.reportCommand, "a string"),
}) satisfies z.ZodMiniType<DigestSettings, unknown>;
