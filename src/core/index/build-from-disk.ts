/** Builds the live index from a vault folder on disk, for the bridge's `index` command and benchmarks. */

import { join } from "node:path";
import { parseCard } from "../card/card";
import { indexOptionsOf, type IndexSettings } from "./index-options";
import type { ScoringRules } from "./scorer";
import { isCard, listMarkdown, readNote, type NoteFile, type ScanInfo, type ScopeRules, type SkippedNote } from "../vault/scan";
import { MemoryIndex } from "./memory-index";
import type { NoteCache } from "../vault/note-cache";

/** The settings a build reads: a VaultMemoryConfig is one (this room does not import config.ts, which is above it). */
export interface BuildSettings extends ScopeRules {
  recall: { scoring: ScoringRules };
  index: IndexSettings;
}

export interface BuildProgress {
  done: number;
  total: number;
}

export interface BuildResult {
  index: MemoryIndex;
  /** Notes that could not be read, or that are named like notes and are not (a FIFO, a link, a huge file); the rest are indexed regardless. */
  failed: SkippedNote[];
  /** When the card files were listed, and how many: for the snapshot's header. */
  scan: ScanInfo;
}

/** `notes`: a run's cache of the vault (the digest's), so the notes it has read are not read again. */
export function buildIndexFromDisk(vault: string, config: BuildSettings, onProgress?: (p: BuildProgress) => void, notes?: NoteCache): BuildResult {
  const failed: BuildResult["failed"] = [];
  const card = (path: string): boolean => isCard(path, config);
  const listedAt = Date.now();
  const files = notes ? notes.list(card) : cardFiles(vault, config, (s) => failed.push(s));
  if (notes) failed.push(...notes.skipped.filter((s) => card(s.path)));
  const index = new MemoryIndex(config.recall.scoring, indexOptionsOf(config.index, readSynonymsNote(vault, config, failed)));
  files.forEach((f, i) => {
    try {
      index.upsert(notes ? notes.card(f) : parseCard(f.path, readNote(f.abs), f.mtime));
    } catch (err) {
      failed.push({ path: f.path, reason: err instanceof Error ? err.message : String(err) });
    }
    if (onProgress && (i % 100 === 0 || i === files.length - 1)) onProgress({ done: i + 1, total: files.length });
  });
  index.trim();
  return { index, failed, scan: { at: notes ? notes.listedAt : listedAt, notes: files.length } };
}

/** The card files of the vault, in path order; what is named like one and cannot be read goes to `onSkip`. */
export function cardFiles(vault: string, config: ScopeRules & { index: { synonymsNote: string } }, onSkip?: (s: SkippedNote) => void): NoteFile[] {
  return listMarkdown(vault, (path) => isCard(path, config), onSkip);
}

/** The synonyms note's text; none when it is missing, and a line in `failed` when it cannot be read. */
function readSynonymsNote(vault: string, config: BuildSettings, failed: SkippedNote[]): string | undefined {
  const path = config.index.synonymsNote;
  if (!path) return undefined;
  try {
    return readNote(join(vault, path));
  } catch (err) {
    if ((err as { why?: string }).why !== "missing") failed.push({ path, reason: `synonyms not used: ${err instanceof Error ? err.message : String(err)}` });
    return undefined;
  }
}
