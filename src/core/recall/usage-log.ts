/** The recall log: one JSON line per prompt, for "most used" statistics and for finding unused cards. */

import { dirname } from "node:path";
import { fnv1aString } from "../io/hash";
import { writeCreatingDir } from "../io/create-dir";

export interface UsageEntry {
  /** ISO time. */
  t: string;
  session: string;
  /** A hash of the prompt, never the prompt: the log must not become a copy of the conversation. */
  prompt: string;
  cards: { path: string; score: number }[];
  ms: number;
}

export function promptHash(prompt: string): string {
  return fnv1aString(prompt).toString(16).padStart(8, "0");
}

/** Appends one line; a line under the pipe buffer size is written whole even with parallel hooks. */
export function appendUsage(path: string, entry: UsageEntry): void {
  writeCreatingDir(dirname(path), path, JSON.stringify(entry) + "\n", true);
}
