/** The notes the lint report last read, kept so that a re-lint after an edit reads only what changed. */

import type { TFile } from "obsidian";
import { parseCard, type Card, type NoteMetadata } from "../core/card/card";
import { scanForSecrets, type SecretScan } from "../core/lint/secrets";
import { yieldToUi } from "./yield-to-ui";

interface Held {
  mtime: number;
  size: number;
  text: string;
  card: Card;
  scan: SecretScan;
}

export interface LintNotesState {
  cards: Card[];
  text: Map<string, string>;
  scans: Map<string, SecretScan>;
}

const NOTES_PER_SLICE = 50;

export class LintNotes {
  private readonly held = new Map<string, Held>();
  /** Notes read and parsed by the last update: for tests. */
  lastReads = 0;

  /** Brings the held notes up to `files`: new or changed ones read, gone ones dropped. */
  async update(
    files: readonly TFile[],
    read: (f: TFile) => Promise<string>,
    meta: (f: TFile) => NoteMetadata | undefined = () => undefined,
  ): Promise<LintNotesState> {
    this.lastReads = 0;
    const seen = new Set<string>();
    for (const f of files) {
      seen.add(f.path);
      const h = this.held.get(f.path);
      if (h && h.mtime === f.stat.mtime && h.size === f.stat.size) continue;
      const text = await read(f);
      this.lastReads++;
      this.held.set(f.path, { mtime: f.stat.mtime, size: f.stat.size, text, card: parseCard(f.path, text, f.stat.mtime, meta(f)), scan: scanForSecrets(text) });
      // A read from Obsidian's cache resolves at once: without a pause, the first lint of a large
      // vault would parse every note in one stretch of the window's time.
      if (this.lastReads % NOTES_PER_SLICE === 0) await yieldToUi();
    }
    for (const path of [...this.held.keys()]) if (!seen.has(path)) this.held.delete(path);
    const state: LintNotesState = { cards: [], text: new Map(), scans: new Map() };
    for (const [path, h] of [...this.held.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      state.cards.push(h.card);
      state.text.set(path, h.text);
      state.scans.set(path, h.scan);
    }
    return state;
  }
}
