/** One queued conversation in the sidebar: its candidates to tick, and what can be made of them. */

import { Notice, Setting } from "obsidian";
import { clip } from "../core/text/clip";
import type { NearDuplicateIndex } from "../core/queue/near-duplicates";
import type { QueueEntry } from "../core/queue/queue-store";
import { entrySubject, mergeCandidates, summarize } from "../core/queue/review";
import type { Candidate } from "../core/queue/extract";
import type { SimilarCard } from "../core/recall/similar";
import { escapeControl } from "../core/text/visible";
import { plural } from "../core/text/wording";
import { iconButton } from "./lint-view";
import { appendTo } from "./queue-actions";
import { renderNewCard } from "./queue-card-form";
import { candidateKey, timeSpan, type QueueContext } from "./queue-context";

export function renderQueueEntry(root: HTMLElement, e: QueueEntry, pending: QueueEntry[], ctx: QueueContext): void {
  const inbox = ctx.inbox(e);
  const s = summarize(e, inbox);
  renderHeader(root, e, s.firstPrompt, ctx);
  renderCandidates(root, e, pending, ctx);
  const suggestions = ctx.suggestions(e, entrySubject(e, inbox), s.firstPrompt);
  renderNewCard(
    root,
    e,
    s.firstPrompt,
    suggestions.map((x) => x.path),
    ctx,
  );
  renderAppend(root, e, suggestions, ctx);
  if (ctx.host.digestOne) renderDigestOne(root, e, ctx);
  renderSkip(root, e, ctx);
  const convo = root.createEl("details", { cls: "vault-memory-conversation" });
  convo.createEl("summary", { text: "Conversation" });
  convo.createEl("pre", { text: inbox });
}

/** The way back, the first prompt as a title, and where and when the conversation was. */
function renderHeader(root: HTMLElement, e: QueueEntry, firstPrompt: string, ctx: QueueContext): void {
  const buttons = root.createDiv({ cls: "nav-header" }).createDiv({ cls: "nav-buttons-container" });
  iconButton(buttons, "arrow-left", "Back to the queue", () => ctx.back()).addClass("vault-memory-back");
  root.createEl("h4", { text: clip(firstPrompt, 100) || e.sessionId });
  const meta = root.createDiv({ cls: "vault-memory-muted" });
  meta.appendText(`${e.project || "(no project)"} · ${e.gitBranch || "no branch"} · ${plural(e.prompts, "prompt")} · `);
  if (e.firstTimestamp) {
    timeSpan(meta, e.firstTimestamp);
    meta.appendText(" to ");
  }
  timeSpan(meta, e.lastTimestamp || e.updatedAt);
}

/** The candidates with their ticks, each flagged when a card already holds it or another conversation has it too. */
function renderCandidates(root: HTMLElement, e: QueueEntry, pending: QueueEntry[], ctx: QueueContext): void {
  const { duplicates } = ctx.cardIndexes();
  const others = new Map(mergeCandidates(pending).map((c) => [`${c.kind}\u0000${c.text.trim()}`, c.sessions.length - 1]));
  root.createEl("h5", { text: "Candidates" });
  const list = root.createEl("ul", { cls: "vault-memory-candidates" });
  e.candidates.forEach((c) => renderCandidate(list, c, duplicates, others.get(`${c.kind}\u0000${c.text.trim()}`) ?? 0, ctx));
}

function renderCandidate(list: HTMLElement, c: Candidate, duplicates: NearDuplicateIndex, more: number, ctx: QueueContext): void {
  const key = candidateKey(c);
  const li = list.createEl("li", { cls: "vault-memory-candidate" });
  const label = li.createEl("label");
  const box = label.createEl("input", { type: "checkbox" });
  box.checked = ctx.isTicked(key);
  box.addEventListener("change", () => ctx.tick(key, box.checked));
  label.createSpan({ text: c.kind, cls: `vault-memory-kind mod-${c.kind}` });
  if (c.kind === "code") label.createEl("pre", { text: c.text });
  else label.createSpan({ text: c.text, cls: "vault-memory-candidate-text" });
  const dup = duplicates.find(c.text);
  if (dup) {
    const note = li.createDiv({ cls: "vault-memory-duplicate" });
    note.appendText("Already in ");
    ctx.cardLink(note, dup.path);
    note.appendText(` (${Math.round(dup.containment * 100)}% the same)`);
  }
  if (more > 0) li.createDiv({ text: `Also in ${more} other conversation${more === 1 ? "" : "s"}`, cls: "vault-memory-muted" });
}

/** The similar cards, each with a button that adds the ticked candidates to it. */
function renderAppend(root: HTMLElement, e: QueueEntry, suggestions: readonly SimilarCard[], ctx: QueueContext): void {
  const ext = root.createDiv({ cls: "vault-memory-section" });
  ext.createEl("h5", { text: "Add to an existing card" });
  if (suggestions.length === 0) ext.createDiv({ text: "No similar cards found.", cls: "vault-memory-muted" });
  for (const sug of suggestions) {
    const row = ext.createDiv({ cls: "vault-memory-suggestion" });
    ctx.cardLink(row, sug.path);
    const b = row.createEl("button", { text: "Append" });
    b.addEventListener("click", () => void appendTo(ctx, e, sug.path));
  }
}

/** Hands this one conversation to the digest's LLM. */
function renderDigestOne(root: HTMLElement, e: QueueEntry, ctx: QueueContext): void {
  const llm = root.createDiv({ cls: "vault-memory-section" });
  llm.createEl("h5", { text: "Let the digest decide" });
  const run = llm.createEl("button", { text: "Digest this one now" });
  run.addEventListener("click", () => {
    run.disabled = true;
    const digest = ctx.host.digestOne?.(e.sessionId) ?? Promise.resolve();
    digest
      .catch((err: unknown) => {
        // The entry stays queued; the button is there again to try once more.
        new Notice(`Vault Memory: the digest of this conversation failed: ${escapeControl(err instanceof Error ? err.message : String(err))}`);
      })
      .finally(() => {
        run.disabled = false;
        ctx.refresh();
      });
  });
}

/** Skips the conversation, with an optional reason kept with the handled entry. */
function renderSkip(root: HTMLElement, e: QueueEntry, ctx: QueueContext): void {
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
  const reason = ctx.keepDraft(e, "reason", reasonField, "");
  const sb = skip.createEl("button", { text: "Skip this conversation" });
  sb.addEventListener("click", () => ctx.finish(e, { action: "skipped", detail: reason.value.trim() }));
}
