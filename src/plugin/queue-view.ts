/** The queue review sidebar: read what was queued, tick candidates, and make or extend a card by hand. */

import { clip } from "../core/text/clip";
import { ItemView, Keymap, Notice, Setting, TFile, normalizePath, setIcon, type WorkspaceLeaf } from "obsidian";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseCard } from "../core/card/card";
import { metadataOf } from "./note-metadata";
import { relatedHeading } from "../core/card/related-heading";
import type { VaultMemoryConfig } from "../core/config";
import type { PostingSource } from "../core/index/postings";
import type { Candidate } from "../core/queue/extract";
import { NearDuplicateIndex } from "../core/queue/near-duplicates";
import { listHandled, listPending, markHandled, queueDirs, readInbox, restoreHandled, type QueueEntry } from "../core/queue/queue-store";
import { CARD_TYPES } from "../core/card/schema";
import { appendSection, CANDIDATE_KINDS, draftCard, entrySubject, mergeCandidates, newestFirst, summarize, type CardDraft } from "../core/queue/review";
import { similarCards, type SimilarCard } from "../core/recall/similar";
import { yieldToUi } from "./yield-to-ui";
import { iconButton } from "./lint-view";
import { escapeControl } from "../core/text/visible";
import { exactTime, plural, relativeTime } from "../core/text/wording";

export const QUEUE_VIEW_TYPE = "vault-memory-queue";

// Hooks write the queue from outside Obsidian, where no vault event fires; a cheap look at the
// folder every two seconds keeps the view current.
const POLL_MS = 2000;
// Reading every card for the duplicate check gives Obsidian its turn this often, so a vault of
// thousands of cards never freezes the window.
const CARDS_PER_SLICE = 50;

interface CardIndexes {
  duplicates: NearDuplicateIndex;
  /** The heading new related sections get (see relatedHeading). */
  heading: string;
}

/** What the sidebar needs from the plugin. */
export interface QueueViewHost {
  /** Which notes are cards: the index and settings notes are not worth appending to. */
  isCard: (path: string) => boolean;
  settings: () => VaultMemoryConfig;
  /** The live index, so similar cards are found as recall finds them. */
  index: () => PostingSource;
  /** Resolves once the live index has caught up with what was asked of it so far. */
  indexed: () => Promise<void>;
  /** The digest's LLM path for one entry. */
  digestOne?: (sessionId: string) => Promise<unknown>;
  /** With semantic recall on: similar cards with meaning fused in, or undefined to keep the word ones. */
  similarWithMeaning?: (text: string, meaning: string, limit: number) => Promise<SimilarCard[] | undefined>;
  /** Runs the installed hook as Claude Code would, and says whether it answered. */
  checkConnection?: () => void;
}

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
  private handledOpen = false;
  // Suggestions with meaning fused in, by entry, once the embedding server has answered.
  private readonly meaningful = new Map<string, SimilarCard[]>();

  constructor(
    leaf: WorkspaceLeaf,
    private readonly vaultPath: string,
    private readonly host: QueueViewHost,
  ) {
    super(leaf);
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
    if (entry) this.renderEntry(root, entry, pending);
    else this.renderList(root, pending);
  }

  open(sessionId: string): void {
    this.openSession = sessionId;
    this.ticked = new Set();
    this.render();
  }

  private renderList(root: HTMLElement, pending: QueueEntry[]): void {
    this.openSession = null;
    const buttons = root.createDiv({ cls: "nav-header" }).createDiv({ cls: "nav-buttons-container" });
    iconButton(buttons, "refresh-cw", "Check the queue again", () => {
      this.signature = this.queueSignature();
      this.render();
    });
    if (pending.length === 0) this.renderEmpty(root);
    else root.createDiv({ cls: "vault-memory-queue-summary", text: `${plural(pending.length, "conversation")} ${pending.length === 1 ? "waits" : "wait"} for review` });
    const shared = mergeCandidates(pending).filter((c) => c.sessions.length > 1);
    if (shared.length > 0) {
      const one = shared.length === 1;
      root.createDiv({ text: `${plural(shared.length, "candidate")} ${one ? "appears" : "appear"} in more than one conversation; ${one ? "it is" : "they are"} shown once.`, cls: "vault-memory-muted" });
    }
    const list = root.createDiv({ cls: "vault-memory-queue-list" });
    for (const e of pending) {
      const s = summarize(e, this.inbox(e));
      const item = list.createDiv({ cls: "tree-item-self is-clickable vault-memory-queue-item", attr: { tabindex: 0, role: "button" } });
      const inner = item.createDiv({ cls: "tree-item-inner" });
      const meta = inner.createDiv({ cls: "vault-memory-queue-meta" });
      meta.createSpan({ text: e.project || "(no project)", cls: "vault-memory-queue-project" });
      meta.appendText(" · ");
      timeSpan(meta, e.lastTimestamp || e.updatedAt);
      meta.appendText(` · ${plural(e.prompts, "prompt")}${e.wanted ? " · wanted" : ""}`);
      inner.createDiv({ text: clip(s.firstPrompt, 140), cls: "vault-memory-queue-first" });
      const counts = inner.createDiv({ cls: "vault-memory-queue-counts" });
      for (const kind of CANDIDATE_KINDS) {
        if (s.counts[kind] > 0) counts.createSpan({ text: `${kind} ${s.counts[kind]}`, cls: `vault-memory-kind mod-${kind}` });
      }
      const open = (): void => this.open(e.sessionId);
      item.addEventListener("click", open);
      item.addEventListener("keydown", (evt) => {
        if (evt.key === "Enter" || evt.key === " ") {
          evt.preventDefault();
          open();
        }
      });
    }
    const handled = listHandled(this.vaultPath);
    if (handled.length > 0) {
      const open = this.handledOpen;
      const tree = root.createDiv({ cls: `tree-item vault-memory-handled${open ? "" : " is-collapsed"}` });
      const self = tree.createDiv({ cls: "tree-item-self is-clickable mod-collapsible", attr: { role: "button", tabindex: 0, "aria-expanded": String(open) } });
      const icon = self.createDiv({ cls: `tree-item-icon collapse-icon${open ? "" : " is-collapsed"}` });
      setIcon(icon, "right-triangle");
      self.createDiv({ cls: "tree-item-inner", text: "Handled" });
      self.createDiv({ cls: "tree-item-flair-outer" }).createSpan({ cls: "tree-item-flair", text: String(handled.length) });
      self.addEventListener("click", () => {
        this.handledOpen = !open;
        this.render();
      });
      if (!open) return;
      const children = tree.createDiv({ cls: "tree-item-children" });
      for (const h of handled.slice(0, 50)) {
        const row = children.createDiv({ cls: "tree-item-self vault-memory-handled-item" });
        const inner = row.createDiv({ cls: "tree-item-inner" });
        inner.appendText(`${h.project || "(no project)"} · `);
        timeSpan(inner, h.handledAt);
        inner.appendText(` · ${h.outcome.action}${h.outcome.detail ? `: ${h.outcome.detail}` : ""}`);
        iconButton(row.createDiv({ cls: "tree-item-flair-outer" }), "rotate-ccw", "Restore to the queue", () => {
          restoreHandled(this.vaultPath, h.sessionId);
          this.signature = this.queueSignature();
          this.render();
        });
      }
    }
  }

  /** What an empty queue says: how conversations get here, and a way to check that they can. */
  private renderEmpty(root: HTMLElement): void {
    const q = this.host.settings().queue;
    const empty = root.createDiv({ cls: "pane-empty vault-memory-queue-empty" });
    empty.createDiv({ text: "Nothing waits in the queue.", cls: "vault-memory-queue-empty-title" });
    empty.createDiv({
      text: `A Claude Code conversation arrives here when it ends after at least ${plural(q.minPrompts, "prompt")} and ${plural(q.minChars, "character")} of replies, or at once when you tell Claude "remember this". The nightly digest turns what waits into cards; you can also review each one here.`,
    });
    if (this.host.checkConnection) {
      const check = empty.createEl("a", { text: "Check connection", href: "#", cls: "vault-memory-check-connection" });
      check.addEventListener("click", (evt) => {
        evt.preventDefault();
        this.host.checkConnection?.();
      });
    }
  }

  private renderEntry(root: HTMLElement, e: QueueEntry, pending: QueueEntry[]): void {
    const buttons = root.createDiv({ cls: "nav-header" }).createDiv({ cls: "nav-buttons-container" });
    iconButton(buttons, "arrow-left", "Back to the queue", () => {
      this.openSession = null;
      this.render();
    }).addClass("vault-memory-back");
    const inbox = this.inbox(e);
    const s = summarize(e, inbox);
    root.createEl("h4", { text: clip(s.firstPrompt, 100) || e.sessionId });
    const meta = root.createDiv({ cls: "vault-memory-muted" });
    meta.appendText(`${e.project || "(no project)"} · ${e.gitBranch || "no branch"} · ${plural(e.prompts, "prompt")} · `);
    if (e.firstTimestamp) {
      timeSpan(meta, e.firstTimestamp);
      meta.appendText(" to ");
    }
    timeSpan(meta, e.lastTimestamp || e.updatedAt);

    const { duplicates } = this.cardIndexes();
    const others = new Map(mergeCandidates(pending).map((c) => [`${c.kind}\u0000${c.text.trim()}`, c.sessions.length - 1]));
    root.createEl("h5", { text: "Candidates" });
    const list = root.createEl("ul", { cls: "vault-memory-candidates" });
    e.candidates.forEach((c) => {
      const key = candidateKey(c);
      const li = list.createEl("li", { cls: "vault-memory-candidate" });
      const label = li.createEl("label");
      const box = label.createEl("input", { type: "checkbox" });
      box.checked = this.ticked.has(key);
      box.addEventListener("change", () => (box.checked ? this.ticked.add(key) : this.ticked.delete(key)));
      label.createSpan({ text: c.kind, cls: `vault-memory-kind mod-${c.kind}` });
      if (c.kind === "code") label.createEl("pre", { text: c.text });
      else label.createSpan({ text: c.text, cls: "vault-memory-candidate-text" });
      const dup = duplicates.find(c.text);
      if (dup) {
        const note = li.createDiv({ cls: "vault-memory-duplicate" });
        note.appendText("Already in ");
        this.cardLink(note, dup.path);
        note.appendText(` (${Math.round(dup.containment * 100)}% the same)`);
      }
      const more = others.get(`${c.kind}\u0000${c.text.trim()}`) ?? 0;
      if (more > 0) li.createDiv({ text: `Also in ${more} other conversation${more === 1 ? "" : "s"}`, cls: "vault-memory-muted" });
    });

    const subject = entrySubject(e, inbox);
    const suggestions = this.meaningful.get(e.sessionId) ?? similarCards(subject, this.host.index(), SIMILAR_CARDS, this.host.settings().recall.scoring.hintBonus);
    if (this.host.similarWithMeaning && !this.meaningful.has(e.sessionId) && this.host.settings().embed.enabled) {
      // Asked once per open entry; the word suggestions stand until the server answers. Meaning
      // is asked of the opening question, which says what a conversation is about: a whole
      // transcript's vector is diluted by everything else said in it.
      this.meaningful.set(e.sessionId, suggestions);
      this.host.similarWithMeaning(subject, s.firstPrompt || subject, SIMILAR_CARDS).then(
        (fused) => {
          if (!fused) return;
          this.meaningful.set(e.sessionId, fused);
          if (this.openSession === e.sessionId) this.render();
        },
        // The word suggestions stand; the server's trouble is said where semantic recall says it.
        () => {},
      );
    }
    this.renderNewCard(root, e, s.firstPrompt, suggestions.map((x) => x.path));
    const ext = root.createDiv({ cls: "vault-memory-section" });
    ext.createEl("h5", { text: "Add to an existing card" });
    if (suggestions.length === 0) ext.createDiv({ text: "No similar cards found.", cls: "vault-memory-muted" });
    for (const sug of suggestions) {
      const row = ext.createDiv({ cls: "vault-memory-suggestion" });
      this.cardLink(row, sug.path);
      const b = row.createEl("button", { text: "Append" });
      b.addEventListener("click", () => void this.appendTo(e, sug.path));
    }
    if (this.host.digestOne) {
      const llm = root.createDiv({ cls: "vault-memory-section" });
      llm.createEl("h5", { text: "Let the digest decide" });
      const run = llm.createEl("button", { text: "Digest this one now" });
      run.addEventListener("click", () => {
        run.disabled = true;
        const digest = this.host.digestOne?.(e.sessionId) ?? Promise.resolve();
        digest
          .catch((err: unknown) => {
            // The entry stays queued; the button is there again to try once more.
            new Notice(`Vault Memory: the digest of this conversation failed: ${escapeControl(err instanceof Error ? err.message : String(err))}`);
          })
          .finally(() => {
            run.disabled = false;
            this.signature = this.queueSignature();
            this.render();
          });
      });
    }
    const skip = root.createDiv({ cls: "vault-memory-section" });
    skip.createEl("h5", { text: "Skip" });
    let reasonField!: HTMLInputElement;
    new Setting(skip)
      .setName("Reason")
      .setDesc("Optional: why this conversation holds nothing worth a card. Kept with the handled entry.")
      .addText((t) => {
        t.setPlaceholder("Reason (optional)");
        reasonField = t.inputEl;
      });
    const reason = this.keepDraft(e, "reason", reasonField, "");
    const sb = skip.createEl("button", { text: "Skip this conversation" });
    sb.addEventListener("click", () => this.finish(e, { action: "skipped", detail: reason.value.trim() }));

    const convo = root.createEl("details", { cls: "vault-memory-conversation" });
    convo.createEl("summary", { text: "Conversation" });
    convo.createEl("pre", { text: inbox });
  }

  private renderNewCard(root: HTMLElement, e: QueueEntry, firstPrompt: string, related: string[]): void {
    const box = root.createDiv({ cls: "vault-memory-section" });
    box.createEl("h5", { text: "New card" });
    // Labelled fields, as Obsidian's own forms are: a pre-filled value says nothing of what it is.
    const field = <T extends HTMLInputElement | HTMLSelectElement>(name: string, desc: string, make: (s: Setting) => T): T => make(new Setting(box).setName(name).setDesc(desc));
    const type = field("Type", "Which folder the card goes in.", (s) => {
      let select!: HTMLSelectElement;
      s.addDropdown((d) => {
        for (const t of CARD_TYPES) d.addOption(t, t);
        select = d.selectEl;
      });
      return select;
    });
    this.keepDraft(e, "type", type, e.candidates.some((c) => c.kind === "decision") ? "project" : "reference");
    const text = (s: Setting, placeholder: string): HTMLInputElement => {
      let input!: HTMLInputElement;
      s.addText((t) => {
        t.setPlaceholder(placeholder);
        input = t.inputEl;
      });
      return input;
    };
    const name = this.keepDraft(e, "name", field("Name", "The card's title, and its file name.", (s) => text(s, "Name")), clip(firstPrompt, 60));
    const description = this.keepDraft(e, "description", field("Description", "One line that says when this card helps: recall shows it to Claude.", (s) => text(s, "Description: one line that says when this card helps")), "");
    const tags = this.keepDraft(e, "tags", field("Tags", "Comma separated; the project's name to start with.", (s) => text(s, "Tags, comma separated")), e.project ? e.project.toLowerCase() : "");
    const warning = box.createDiv({ cls: "vault-memory-duplicate" });
    const create = box.createEl("button", { text: "Create card", cls: "mod-cta" });
    let confirmed = false;
    create.addEventListener("click", () => {
      const chosen = e.candidates.filter((c) => this.ticked.has(candidateKey(c)));
      const dup = chosen.map((c) => this.cardIndexes().duplicates.find(c.text)).find((d) => d !== undefined);
      if (dup && !confirmed) {
        warning.setText(`A ticked candidate is already in ${escapeControl(dup.path)}. Create the card anyway?`);
        create.setText("Create anyway");
        confirmed = true;
        return;
      }
      void this.createCard(e, {
        type: type.value,
        name: name.value.trim() || "Untitled card",
        description: description.value.trim(),
        tags: tags.value.split(/[,，]/).map((t) => t.trim()).filter(Boolean),
        project: e.project,
        sessionId: e.sessionId,
        candidates: chosen,
        related,
        heading: this.cardIndexes().heading,
      });
    });
  }

  private async createCard(e: QueueEntry, draft: CardDraft): Promise<void> {
    const vault = this.app.vault;
    const card = draftCard(draft, today(), vault.getMarkdownFiles().map((f) => f.path), (p) => vault.getAbstractFileByPath(normalizePath(p)) !== null);
    const target = normalizePath(card.path);
    const folder = target.slice(0, target.lastIndexOf("/"));
    if (folder && !vault.getAbstractFileByPath(folder)) await vault.createFolder(folder);
    const file = await vault.create(target, card.text);
    // Each related card links back, as the digest's do, so the new card is no orphan in the graph.
    for (const back of card.linkBacks) {
      const related = vault.getAbstractFileByPath(back.path);
      if (related instanceof TFile) await vault.process(related, back.edit);
    }
    await this.app.workspace.getLeaf(false).openFile(file);
    this.finish(e, { action: "created", detail: target });
  }

  private async appendTo(e: QueueEntry, path: string): Promise<void> {
    const file = this.app.vault.getAbstractFileByPath(path);
    if (!(file instanceof TFile)) return void new Notice(`${escapeControl(path)} no longer exists.`);
    const chosen = e.candidates.filter((c) => this.ticked.has(candidateKey(c)));
    if (chosen.length === 0) return void new Notice("Tick the candidates to add first.");
    const heading = this.cardIndexes().heading;
    await this.app.vault.process(file, (text) => appendSection(text, today(), chosen, e.sessionId, heading));
    this.finish(e, { action: "extended", detail: path });
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
    const dir = queueDirs.pending(this.vaultPath);
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

/** A time as people say it ("3 hours ago"), the exact one on hover. */
function timeSpan(parent: HTMLElement, iso: string): void {
  const when = Date.parse(iso);
  if (!Number.isFinite(when)) return void parent.appendText(iso || "unknown time");
  parent.createEl("time", { text: relativeTime(when), attr: { datetime: new Date(when).toISOString(), title: exactTime(when), "aria-label": exactTime(when) } });
}

function candidateKey(c: Candidate): string {
  return `${c.kind}\u0000${c.turn}\u0000${c.text}`;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
