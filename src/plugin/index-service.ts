/** Keeps the live index in step with the vault and writes the snapshot the hook bridge reads. */

import { TFile, debounce, type App, type Debouncer, type TAbstractFile } from "obsidian";
import { parseCard } from "../core/card/card";
import { metadataOf } from "./note-metadata";
import { indexOptionsOf, isCard, recallRulesOf, type VaultMemoryConfig } from "../core/config";
import { MemoryIndex } from "../core/index/memory-index";
import type { PostingSource } from "../core/index/postings";
import { vaultFiles } from "../core/paths";
import { recall, recallWithMeaning, wantsRecall, type Recall } from "../core/recall/recall";
import type { SimilarCard } from "../core/recall/similar";
import { similarWithMeaning, standOutByPath } from "../core/recall/similar-meaning";
import { embedTexts } from "../core/embed/client";
import { PATIENT_EMBED_MS, semanticRulesOf } from "../core/embed/settings";
import { sanitize } from "../core/privacy/redact";
import { EDIT_QUIET_MS, SnapshotWriter } from "../core/snapshot/write";
import { yieldToUi } from "./yield-to-ui";

export interface IndexProgress {
  done: number;
  total: number;
}

// Let Obsidian paint between batches so a large first build does not freeze the window.
const BATCH = 200;
// The snapshot is written in slices this long, with a pause between them: serialising a vault of
// thousands of notes takes a second or more, which in one piece would freeze typing and scrolling.
const WRITE_SLICE_MS = 12;

export class IndexService {
  private index: MemoryIndex;
  private readonly writer: SnapshotWriter;
  private readonly changed = new Set<string>();
  private readonly removed = new Set<string>();
  private ready = false;
  private pendingRebuild = false;
  private flushTimer: Debouncer<[], void> | null = null;
  // The index must not change while a sliced write reads it, so rebuilds and flushes take turns.
  private busy: Promise<void> = Promise.resolve();

  /** How the work gives Obsidian its turn between slices; tests count the turns. */
  pause: () => Promise<void> = yieldToUi;

  constructor(
    private readonly app: App,
    /** Absolute path of the vault folder, where the snapshot and log live. */
    private readonly vaultPath: string,
    private readonly config: () => VaultMemoryConfig,
    private readonly onError: (message: string) => void = () => {},
    /** Told after each full write, which gives the snapshot new card ids (semantic recall's vectors follow them). */
    private readonly onFullWrite: () => void = () => {},
  ) {
    this.index = new MemoryIndex(config().recall.scoring, indexOptionsOf(config().index, undefined));
    this.writer = new SnapshotWriter(vaultFiles.snapshot(vaultPath));
  }

  /** The live index, for suggestions scored as recall scores: replaced whole by a rebuild, so read it each time. */
  get source(): PostingSource {
    return this.index;
  }

  get cardCount(): number {
    return this.index.docCount;
  }

  /** Reads every card from scratch and writes a fresh snapshot. */
  rebuild(onProgress?: (p: IndexProgress) => void): Promise<void> {
    return this.exclusive(() => this.rebuildNow(onProgress));
  }

  /** Applies pending changes now and rewrites the snapshot if anything changed. */
  flush(): Promise<void> {
    return this.exclusive(() => this.flushNow());
  }

  /** Resolves once every rebuild and flush asked for so far is done. */
  idle(): Promise<void> {
    return this.busy;
  }

  private exclusive(task: () => Promise<void>): Promise<void> {
    const run = this.busy.then(task, task);
    this.busy = run.catch(() => undefined);
    return run;
  }

  private async rebuildNow(onProgress?: (p: IndexProgress) => void): Promise<void> {
    // Edits from here on are read again after the rebuild: the rebuild may read a file before them.
    const changed = [...this.changed];
    const removed = [...this.removed];
    this.changed.clear();
    this.removed.clear();
    this.pendingRebuild = false;
    let index: MemoryIndex;
    let files: TFile[];
    try {
      const cfg = this.config();
      files = this.app.vault.getMarkdownFiles().filter((f) => isCard(f.path, cfg));
      const synonyms = this.app.vault.getAbstractFileByPath(cfg.index.synonymsNote);
      const synonymsText = synonyms instanceof TFile ? await this.app.vault.cachedRead(synonyms) : undefined;
      index = new MemoryIndex(cfg.recall.scoring, indexOptionsOf(cfg.index, synonymsText));
      for (let i = 0; i < files.length; i++) {
        await this.add(index, files[i]);
        if ((i + 1) % BATCH === 0) {
          onProgress?.({ done: i + 1, total: files.length });
          await this.pause();
        }
      }
    } catch (err) {
      // Nothing is lost: what was pending stays pending, and the rebuild is asked for again.
      for (const p of changed) this.changed.add(p);
      for (const p of removed) this.removed.add(p);
      this.pendingRebuild = true;
      this.onError(`could not rebuild the index: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    onProgress?.({ done: files.length, total: files.length });
    index.trim();
    this.index = index;
    this.ready = true;
    await this.writeSnapshot(true);
    if (this.changed.size > 0 || this.removed.size > 0 || this.pendingRebuild) this.flushSoon();
  }

  /** Schedules a flush once edits have been quiet for a while; repeated calls push it back. */
  flushSoon(): void {
    if (!this.flushTimer) {
      this.flushTimer = debounce(() => void this.flush().catch((err: unknown) => this.onError(String(err))), EDIT_QUIET_MS, true);
    }
    this.flushTimer();
  }

  onCreateOrModify(file: TAbstractFile): void {
    if (!(file instanceof TFile)) return;
    if (this.isSynonymsNote(file.path)) return this.rebuildSoon();
    this.changed.add(file.path);
    this.removed.delete(file.path);
    this.flushSoon();
  }

  onDelete(file: TAbstractFile): void {
    if (this.isSynonymsNote(file.path)) return this.rebuildSoon();
    this.removed.add(file.path);
    this.changed.delete(file.path);
    this.flushSoon();
  }

  onRename(file: TAbstractFile, oldPath: string): void {
    this.onDelete({ path: oldPath } as TAbstractFile);
    this.onCreateOrModify(file);
  }

  // Synonyms are folded into every card's terms, so a change to their note rebuilds the index.
  private isSynonymsNote(path: string): boolean {
    return path === this.config().index.synonymsNote;
  }

  private rebuildSoon(): void {
    this.pendingRebuild = true;
    this.flushSoon();
  }

  private async flushNow(): Promise<void> {
    // A rebuild asked for again (after a failed one, or a synonyms edit) comes first, ready or not.
    if (this.pendingRebuild) return this.rebuildNow();
    if (!this.ready) return;
    if (this.changed.size === 0 && this.removed.size === 0) return;
    const cfg = this.config();
    const removed = [...this.removed];
    const changed = [...this.changed];
    this.removed.clear();
    this.changed.clear();
    for (const path of removed) {
      this.index.remove(path);
      this.writer.changed(path);
    }
    for (const path of changed) {
      const file = this.app.vault.getAbstractFileByPath(path);
      if (file instanceof TFile && isCard(file.path, cfg)) await this.add(this.index, file);
      else this.index.remove(path);
      this.writer.changed(path);
    }
    await this.writeSnapshot(false);
  }

  /** A card's description, to use as a test prompt that should find something. */
  sampleDescription(): string | undefined {
    for (const doc of this.index.docs()) if (doc.description.length > 20) return doc.description;
    return undefined;
  }

  /** What the prompt hook would print for `prompt`, from the same scorer and thresholds. */
  preview(prompt: string): Recall {
    return recall(prompt, this.index, this.config().recall, this.vaultPath);
  }

  /**
   * Similar cards for the queue sidebar with meaning fused in, when semantic recall is on and the
   * server answers; undefined otherwise (the sidebar keeps the word suggestions it shows). Words
   * are matched on `text`, meaning asked of `meaning`.
   */
  async similarWithMeaning(text: string, meaning: string, limit: number): Promise<SimilarCard[] | undefined> {
    const fused = await similarWithMeaning({ vault: this.vaultPath, config: this.config(), source: this.index, text, meaning, limit });
    return Array.isArray(fused) ? fused : undefined;
  }

  /**
   * preview(), with semantic recall's meaning fused in when it is on: the prompt's vector from the
   * server, the cards' from the vectors beside the snapshot on disk (numbered as that snapshot
   * numbers its cards, so matched to the live index by path). Words alone, with the reason, when
   * either cannot be had.
   */
  async previewWithMeaning(prompt: string): Promise<{ recall: Recall; semantic: string }> {
    const config = this.config();
    const semantic = semanticRulesOf(config.embed);
    if (!semantic || !wantsRecall(prompt, this.index)) return { recall: this.preview(prompt), semantic: semantic ? "" : "off" };
    let why = "";
    const result = await recallWithMeaning(prompt, this.index, config.recall, this.vaultPath, {}, semantic, {
      asked: embedTexts(semantic, [sanitize(prompt)], Math.max(semantic.budgetMs, PATIENT_EMBED_MS)),
      // The snapshot on disk numbers its cards otherwise than the live index: matched by path.
      search: (vector, _, words) => {
        const sims = new Map<number, number>();
        const paths = words.map((id) => this.index.doc(id)?.path).filter((p): p is string => p !== undefined);
        for (const [path, { standOut }] of standOutByPath(this.vaultPath, semantic.model, vector, paths)) {
          const live = this.index.docByPath(path);
          if (live) sims.set(live.id, standOut);
        }
        return sims;
      },
      fellBack: (reason) => (why = reason),
    });
    return { recall: result, semantic: why };
  }

  private async add(index: MemoryIndex, file: TFile): Promise<void> {
    try {
      index.upsert(parseCard(file.path, await this.app.vault.cachedRead(file), file.stat.mtime, metadataOf(this.app, file)));
    } catch (err) {
      this.onError(`could not index ${file.path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async writeSnapshot(full: boolean): Promise<void> {
    try {
      const pause = (): Promise<void> => this.pause();
      const rules = recallRulesOf(this.config());
      const written = await (full
        ? this.writer.writeFull(this.index, rules, pause, WRITE_SLICE_MS)
        : this.writer.write(this.index, rules, pause, WRITE_SLICE_MS));
      if (written.kind === "full") this.onFullWrite();
    } catch (err) {
      this.onError(`could not write the snapshot: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
