/** Builds the live index from a vault folder on disk, for the bridge's `index` command and benchmarks. */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCard } from "../card/card";
import type { VaultMemoryConfig } from "../config";
import { indexOptionsOf } from "./index-options";
import { isCard, listNotes } from "../vault/scan";
import { MemoryIndex } from "./memory-index";
import type { NoteCache } from "../vault/note-cache";

export interface BuildProgress {
  done: number;
  total: number;
}

export interface BuildResult {
  index: MemoryIndex;
  /** Notes that could not be read; the rest are indexed regardless. */
  failed: { path: string; reason: string }[];
}

/** `notes`: a run's cache of the vault (the digest's), so the notes it has read are not read again. */
export function buildIndexFromDisk(vault: string, config: VaultMemoryConfig, onProgress?: (p: BuildProgress) => void, notes?: NoteCache): BuildResult {
  const files = notes ? notes.list((p) => isCard(p, config)) : listNotes(vault, config).filter((f) => isCard(f.path, config));
  const index = new MemoryIndex(config.recall.scoring, indexOptionsOf(config.index, readSynonymsNote(vault, config)));
  const failed: BuildResult["failed"] = [];
  files.forEach((f, i) => {
    try {
      index.upsert(notes ? notes.card(f) : parseCard(f.path, readFileSync(f.abs, "utf8"), f.mtime));
    } catch (err) {
      failed.push({ path: f.path, reason: err instanceof Error ? err.message : String(err) });
    }
    if (onProgress && (i % 100 === 0 || i === files.length - 1)) onProgress({ done: i + 1, total: files.length });
  });
  index.trim();
  return { index, failed };
}

function readSynonymsNote(vault: string, config: VaultMemoryConfig): string | undefined {
  if (!config.index.synonymsNote) return undefined;
  try {
    return readFileSync(join(vault, config.index.synonymsNote), "utf8");
  } catch {
    return undefined;
  }
}
