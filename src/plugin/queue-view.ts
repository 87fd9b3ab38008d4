/** The queue review sidebar: read what was queued, tick candidates, and make or extend a card by hand. */

import { ItemView, Keymap, Notice, TFile, type WorkspaceLeaf } from "obsidian";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseCard } from "../core/card/card";
import { metadataOf } from "./note-metadata";
import { relatedHeading } from "../core/card/related-heading";
import { NearDuplicateIndex } from "../core/queue/near-duplicates";
import { listPending, markHandled, queueDirs, readInbox, type QueueEntry } from "../core/queue/queue-store";
import { proposalsDir } from "../core/digest/consolidate";
import { newestFirst } from "../core/queue/review";
import { similarCards, type SimilarCard } from "../core/recall/similar";
import { yieldToUi } from "./yield-to-ui";
import { escapeControl } from "../core/text/visible";
import type { CardIndexes, QueueContext, QueueListPart, QueueViewHost } from "./queue-context";
import { renderQueueEntry } from "./queue-entry";
import { renderQueueList } from "./queue-list";

export type { QueueViewHost } from "./queue-context";

export const QUEUE_VIEW_TYPE = "vault-memory-queue";

// Hooks write the queue from outside Obsidian, where no vault event fires; a cheap look at the
// folder every two seconds keeps the view current.
const POLL_MS = 2000;
// Reading every card for the duplicate check gives Obsidian its turn this often, so a vault of
// thousands of cards never freezes the window.
const CARDS_PER_SLICE = 50;

// Suggested for appending: a short list to choose from, all linked from a new card.
const SIMILAR_CARDS = 5;

export class QueueReviewView extends ItemView {
  private openSession: string | null = null;
  private ticked = new Set<string>();
  private signature = "";
  // Until the first read finishes, nothing is similar and nothing is a duplicate.
  private indexes: CardIndexes = { duplicates: new NearDuplicateIndex(), heading: relatedHeading("", []) };
  // Cards changed since the indexes were read: they are read again when an entry is next shown.
  private stale = true;
  private reloading: Promise<void> | null = null;
  private loadedOnce = false;
  // What the person typed into an entry's forms, so that a redraw (the entry grew, the indexes
  // were read again) never throws it away.
  private readonly drafts = new Map<string, Record<string, string>>();
  private banner = "";
  private readonly openParts = new Set<QueueListPart>();
  // Suggestions with meaning fused in, by entry, once the embedding server has answered.
  private readonly meaningful = new Map<string, SimilarCard[]>();
  // What the list, the entry and the actions are given of this view.
  private readonly context: QueueContext;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly vaultPath: string,
    private readonly host: QueueViewHost,
  ) {
    super(leaf);
    this.context = this.makeContext();
  }

  getViewType(): string {
    return QUEUE_VIEW_TYPE;
  }

  getDisplayText(): string {
    return "Memory queue";
  }

  getIcon(): string {
    return "inbox";
  }

  async onOpen(): Promise<void> {
    this.signature = this.queueSignature();
    this.registerInterval(window.setInterval(() => this.checkForChanges(), POLL_MS));
    // Card edits change what is a duplicate and which related heading the vault uses; they are
    // read again when needed, not on every autosave.
    const stale = (): void => {
      this.stale = true;
    };
    this.registerEvent(this.app.vault.on("modify", stale));
    this.registerEvent(this.app.vault.on("create", stale));
    this.registerEvent(this.app.vault.on("delete", stale));
    this.registerEvent(this.app.vault.on("rename", stale));
    this.render();
    await this.reloadIndexes();
  }

  /**
   * Reads every card through Obsidian's cache, in slices, and swaps the new indexes in whole; an
   * open entry is drawn again with them. The old ones serve meanwhile.
   */
  private reloadIndexes(): Promise<void> {
    if (this.reloading) return this.reloading;
    this.stale = false;
    this.reloading = (async () => {
      try {
        const files = this.app.vault.getMarkdownFiles().filter((f) => this.host.isCard(f.path));
        const duplicates = new NearDuplicateIndex();
        const bodies: string[] = [];
        for (let i = 0; i < files.length; i++) {
          try {
            const c = parseCard(files[i].path, await this.app.vault.cachedRead(files[i]), files[i].stat.mtime, metadataOf(this.app, files[i]));
            duplicates.add(c.path, c.body);
            bodies.push(c.body);
          } catch {
            // A card that cannot be read is left out of the duplicate check; lint reports it.
          }
          if ((i + 1) % CARDS_PER_SLICE === 0) await yieldToUi();
        }
        this.indexes = { duplicates, heading: relatedHeading(this.host.settings().cards.relatedHeading, bodies) };
        // Suggestions come from the live index, which reads the vault on its own; the first
        // redraw waits for it too, so it shows them.
        await this.host.indexed();
      } finally {
        this.reloading = null;
      }
      // An entry opened before the first read showed no suggestions: draw it again once. Later
      // reads wait for the next redraw, so an edit elsewhere never moves the person's cursor.
      if (!this.loadedOnce && this.openSession) this.render();
      this.loadedOnce = true;
    })();
    return this.reloading;
  }

  /** Re-renders if the queue changed on disk; keeps the open entry and its ticks where it can. */
  checkForChanges(): void {
    const now = this.queueSignature();
    if (now === this.signature) return;
    this.signature = now;
    if (this.openSession && !existsSync(join(queueDirs.pending(this.vaultPath), `${this.openSession}.json`))) {
      this.banner = "That conversation was handled elsewhere.";
      this.openSession = null;
    } else if (this.openSession) {
      this.banner = "This conversation grew since you opened it; its candidates were updated.";
    }
    this.render();
  }

  render(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass("vault-memory-queue");
    if (this.banner) {
      root.createDiv({ text: this.banner, cls: "vault-memory-banner" });
      this.banner = "";
    }
    const pending = listPending(this.vaultPath).sort(newestFirst);
    const entry = this.openSession ? pending.find((e) => e.sessionId === this.openSession) : undefined;
    if (entry) {
      renderQueueEntry(root, entry, pending, this.context);
    } else {
      this.openSession = null;
      renderQueueList(root, pending, this.context);
    }
  }

  open(sessionId: string): void {
    this.openSession = sessionId;
    this.ticked = new Set();
    this.render();
  }

  private makeContext(): QueueContext {
    return {
      app: this.app,
      vaultPath: this.vaultPath,
      host: this.host,
      refresh: () => {
        this.signature = this.queueSignature();
        this.render();
      },
      open: (sessionId) => this.open(sessionId),
      back: () => {
        this.openSession = null;
        this.render();
      },
      isOpen: (part) => this.openParts.has(part),
      showPart: (part, open) => {
        if (open) this.openParts.add(part);
        else this.openParts.delete(part);
        this.render();
      },
      isTicked: (key) => this.ticked.has(key),
      tick: (key, on) => {
        if (on) this.ticked.add(key);
        else this.ticked.delete(key);
      },
      inbox: (e) => this.inbox(e),
      cardIndexes: () => this.cardIndexes(),
      suggestions: (e, subject, firstPrompt) => this.suggestions(e, subject, firstPrompt),
      cardLink: (parent, path) => this.cardLink(parent, path),
      keepDraft: (e, key, field, initial) => this.keepDraft(e, key, field, initial),
      finish: (e, outcome) => this.finish(e, outcome),
    };
  }

  /**
   * Similar cards by words, then with meaning fused in once the embedding server answers (asked
   * once per open entry; the word suggestions stand until it does). Meaning is asked of the
   * opening question, which says what a conversation is about: a whole transcript's vector is
   * diluted by everything else said in it.
   */
  private suggestions(e: QueueEntry, subject: string, firstPrompt: string): SimilarCard[] {
    const suggestions =
      this.meaningful.get(e.sessionId) ?? similarCards(subject, this.host.index(), SIMILAR_CARDS, this.host.settings().recall.scoring.hintBonus);
    if (this.host.similarWithMeaning && !this.meaningful.has(e.sessionId) && this.host.settings().embed.enabled) {
      this.meaningful.set(e.sessionId, suggestions);
      this.host.similarWithMeaning(subject, firstPrompt || subject, SIMILAR_CARDS).then(
        (fused) => {
          if (!fused) return;
          this.meaningful.set(e.sessionId, fused);
          if (this.openSession === e.sessionId) this.render();
        },
        // The word suggestions stand; the server's trouble is said where semantic recall says it.
        () => {},
      );
    }
    return suggestions;
  }

  /** Fills a form field from what was typed before this redraw, and remembers what is typed now. */
  private keepDraft<T extends HTMLInputElement | HTMLSelectElement>(e: QueueEntry, key: string, field: T, initial: string): T {
    let draft = this.drafts.get(e.sessionId);
    if (!draft) this.drafts.set(e.sessionId, (draft = {}));
    const fields = draft;
    field.value = fields[key] ?? initial;
    // As an attribute too, for an input: a copy of the view's HTML (a screenshot, a test) shows it.
    if (field instanceof HTMLInputElement) field.setAttribute("value", field.value);
    field.addEventListener(field instanceof HTMLSelectElement ? "change" : "input", () => (fields[key] = field.value));
    return field;
  }

  private finish(e: QueueEntry, outcome: { action: string; detail: string }): void {
    this.drafts.delete(e.sessionId);
    markHandled(this.vaultPath, e.sessionId, outcome, new Date(), e);
    new Notice(outcome.action === "skipped" ? "Skipped; you can restore it from the handled list." : `Done: ${outcome.action} ${outcome.detail}.`);
    this.openSession = null;
    this.signature = this.queueSignature();
    this.render();
  }

  /** A card's path as Obsidian shows links: click opens it, Ctrl/Cmd-click in a new tab, hover previews it. */
  private cardLink(parent: HTMLElement, path: string): HTMLElement {
    // Shown escaped, on one line (a name may hold a line break or a bidi control); opened by the real path.
    const link = parent.createEl("a", { text: escapeControl(path), href: path, cls: "internal-link vault-memory-card-link", attr: { "data-href": path } });
    link.addEventListener("click", (evt) => {
      evt.preventDefault();
      const file = this.app.vault.getAbstractFileByPath(path);
      if (file instanceof TFile) void this.app.workspace.getLeaf(Keymap.isModEvent(evt)).openFile(file);
    });
    link.addEventListener("mouseover", (evt) => {
      this.app.workspace.trigger("hover-link", { event: evt, source: QUEUE_VIEW_TYPE, hoverParent: this, targetEl: link, linktext: path, sourcePath: "" });
    });
    return link;
  }

  private cardIndexes(): CardIndexes {
    if (this.stale) void this.reloadIndexes();
    return this.indexes;
  }

  private inbox(e: QueueEntry): string {
    try {
      return readInbox(this.vaultPath, e);
    } catch {
      return "";
    }
  }

  /** Names and modification times of the pending entries: changes when a hook writes. */
  private queueSignature(): string {
    // The merges proposed for review are shown here too: a night that writes one redraws the view.
    return [queueDirs.pending(this.vaultPath), proposalsDir(this.vaultPath)].map((d) => this.folderSignature(d)).join("#");
  }

  private folderSignature(dir: string): string {
    if (!existsSync(dir)) return "";
    return readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => {
        try {
          return `${f}:${statSync(join(dir, f)).mtimeMs}`;
        } catch {
          return f;
        }
      })
      .sort()
      .join("|");
  }
}
