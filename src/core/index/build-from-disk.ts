/** Builds the live index from a vault folder on disk, for the bridge's `index` command and benchmarks. */

import { readFileSync } from "node:fs";
import { parseCard } from "../card/card";
import { listNotes, type ScopeRules } from "../vault/scan";
import { MemoryIndex } from "./memory-index";
import type { ScoringRules } from "./scorer";

export interface BuildProgress {
  done: number;
  total: number;
}

export interface BuildResult {
  index: MemoryIndex;
  /** Notes that could not be read; the rest are indexed regardless. */
  failed: { path: string; reason: string }[];
}

export function buildIndexFromDisk(
  vault: string,
  scope: ScopeRules,
  rules: ScoringRules,
  onProgress?: (p: BuildProgress) => void,
): BuildResult {
  const files = listNotes(vault, scope);
  const index = new MemoryIndex(rules);
  const failed: BuildResult["failed"] = [];
  files.forEach((f, i) => {
    try {
      index.upsert(parseCard(f.path, readFileSync(f.abs, "utf8"), f.mtime));
    } catch (err) {
      failed.push({ path: f.path, reason: err instanceof Error ? err.message : String(err) });
    }
    if (onProgress && (i % 100 === 0 || i === files.length - 1)) onProgress({ done: i + 1, total: files.length });
  });
  return { index, failed };
}
