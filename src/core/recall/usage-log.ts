/** The recall log: one JSON line per prompt, for "most used" statistics and for finding unused cards. */

import { statSync } from "node:fs";
import { dirname } from "node:path";
import { fnv1aString } from "../io/hash";
import { writeCreatingDir } from "../io/create-dir";
import { moveAsidePast } from "../io/log";
import { readTextIfAny } from "../io/read-file";

export interface UsageEntry {
  /** ISO time. */
  t: string;
  session: string;
  /** A hash of the prompt, never the prompt: the log must not become a copy of the conversation. */
  prompt: string;
  cards: { path: string; score: number }[];
  ms: number;
  /** Answered by the resident recall server (hook-bridge/src/resident), not in the hook's own process. */
  resident?: true;
}

/**
 * Past this the log is moved to its older generation (olderUsageLog), replacing the one before,
 * and a new log begins: a line a prompt grows it without end, in a folder a sync may carry. What
 * reads it reads each generation whole, so it always has at least the history one reading of the
 * log, at most this much, gave before the log was ever moved (lint.ts).
 */
export const USAGE_LOG_ROTATE_BYTES = 48 << 20;

export function promptHash(prompt: string): string {
  return fnv1aString(prompt).toString(16).padStart(8, "0");
}

/** The recall log's older generation: `recall-log.1.jsonl` beside `recall-log.jsonl`. */
export function olderUsageLog(path: string): string {
  return path.replace(/(\.jsonl)?$/, ".1$1");
}

/**
 * Appends one line; a line under the pipe buffer size is written whole even with parallel hooks.
 * A log past `rotateAt` is moved to its older generation first (see USAGE_LOG_ROTATE_BYTES), one
 * process at a time (moveAsidePast).
 */
export function appendUsage(path: string, entry: UsageEntry, rotateAt = USAGE_LOG_ROTATE_BYTES): void {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    /* no log yet */
  }
  if (size >= rotateAt) moveAsidePast(path, olderUsageLog(path), rotateAt);
  writeCreatingDir(dirname(path), path, JSON.stringify(entry) + "\n", true);
}

/**
 * The log's last `maxBytes` (at most), reaching into the older generation when the log is shorter,
 * as a log moved aside a moment ago is: the recent use the session brief weighs cards by. The
 * first line may be cut; the reader skips what does not parse.
 */
export function recentUsageText(path: string, maxBytes: number): string {
  const current = readTextIfAny(path, { maxBytes, tail: true }) ?? "";
  const left = maxBytes - Buffer.byteLength(current);
  if (left <= 0) return current;
  return (readTextIfAny(olderUsageLog(path), { maxBytes: left, tail: true }) ?? "") + current;
}
