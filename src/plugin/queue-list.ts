/** The queue sidebar's list: the conversations waiting for review, newest first, and those handled. */

import { escapeControl } from "../core/text/visible";
import { Notice, setIcon } from "obsidian";
import { applyProposal, dismissProposal, listProposals } from "../core/digest/consolidate";
import { clip } from "../core/text/clip";
import { listHandled, restoreHandled, type QueueEntry } from "../core/queue/queue-store";
import { CANDIDATE_KINDS, mergeCandidates, summarize } from "../core/queue/review";
import { plural } from "../core/text/wording";
import { iconButton } from "./lint-view";
import { timeSpan, type QueueContext, type QueueListPart } from "./queue-context";

// The handled list and the imported one show at most this many: each row reads its conversation.
const HANDLED_SHOWN = 50;
const IMPORTED_SHOWN = 50;

export function renderQueueList(root: HTMLElement, all: QueueEntry[], ctx: QueueContext): void {
  const buttons = root.createDiv({ cls: "nav-header" }).createDiv({ cls: "nav-buttons-container" });
  iconButton(buttons, "refresh-cw", "Check the queue again", () => ctx.refresh());
  // The sessions imported from before the install are the digest's backlog: apart and collapsed,
  // so that the day's own conversations stay in view.
  const pending = all.filter((e) => !e.imported);
  const imported = all.filter((e) => e.imported);
  if (all.length === 0) renderEmpty(root, ctx);
  else if (pending.length > 0)
    root.createDiv({
      cls: "vault-memory-queue-summary",
      text: `${plural(pending.length, "conversation")} ${pending.length === 1 ? "waits" : "wait"} for review`,
    });
  const shared = mergeCandidates(pending).filter((c) => c.sessions.length > 1);
  if (shared.length > 0) {
    const one = shared.length === 1;
    root.createDiv({
      text: `${plural(shared.length, "candidate")} ${one ? "appears" : "appear"} in more than one conversation; ${one ? "it is" : "they are"} shown once.`,
      cls: "vault-memory-muted",
    });
  }
  const list = root.createDiv({ cls: "vault-memory-queue-list" });
  for (const e of pending) renderItem(list, e, ctx);
  renderProposals(root, ctx);
  if (imported.length > 0) renderImported(root, imported, ctx);
  renderHandled(root, ctx);
}

/** A collapsible part of the list, as Obsidian draws a tree item: its children when expanded, else nothing. */
function collapsible(root: HTMLElement, ctx: QueueContext, part: QueueListPart, title: string, count: number, cls: string): HTMLElement | undefined {
  const open = ctx.isOpen(part);
  const tree = root.createDiv({ cls: `tree-item ${cls}${open ? "" : " is-collapsed"}` });
  const self = tree.createDiv({ cls: "tree-item-self is-clickable mod-collapsible", attr: { role: "button", tabindex: 0, "aria-expanded": String(open) } });
  const icon = self.createDiv({ cls: `tree-item-icon collapse-icon${open ? "" : " is-collapsed"}` });
  setIcon(icon, "right-triangle");
  self.createDiv({ cls: "tree-item-inner", text: title });
  self.createDiv({ cls: "tree-item-flair-outer" }).createSpan({ cls: "tree-item-flair", text: String(count) });
  self.addEventListener("click", () => ctx.showPart(part, !open));
  self.addEventListener("keydown", (evt) => {
    if (evt.key === "Enter" || evt.key === " ") {
      evt.preventDefault();
      ctx.showPart(part, !open);
    }
  });
  return open ? tree.createDiv({ cls: "tree-item-children" }) : undefined;
}

/** The merges the month's consolidation proposes: what each would merge and into what, with Merge and Dismiss. */
function renderProposals(root: HTMLElement, ctx: QueueContext): void {
  const proposals = listProposals(ctx.vaultPath);
  if (proposals.length === 0) return;
  const part = root.createDiv({ cls: "vault-memory-proposals" });
  part.createDiv({ cls: "vault-memory-queue-summary", text: `${plural(proposals.length, "merge")} proposed` });
  for (const p of proposals) {
    const item = part.createDiv({ cls: "tree-item-self vault-memory-proposal" });
    const inner = item.createDiv({ cls: "tree-item-inner" });
    inner.createDiv({ text: clip(escapeControl(p.merged.name), 140), cls: "vault-memory-queue-first" });
    inner.createDiv({ text: clip(escapeControl(p.merged.description), 200), cls: "vault-memory-muted" });
    const from = inner.createDiv({ cls: "vault-memory-queue-meta" });
    from.appendText("Into ");
    ctx.cardLink(from, p.primary);
    from.appendText(", from ");
    p.paths
      .filter((x) => x !== p.primary)
      .forEach((x, i) => {
        if (i > 0) from.appendText(", ");
        ctx.cardLink(from, x);
      });
    const buttons = item.createDiv({ cls: "tree-item-flair-outer" });
    const act = (label: string, run: () => string): void => {
      const b = buttons.createEl("button", { text: label });
      b.addEventListener("click", () => {
        try {
          new Notice(run());
        } catch (err) {
          new Notice(`Vault Memory: ${err instanceof Error ? err.message : String(err)}`);
        }
        ctx.refresh();
      });
    };
    act("Merge", () => {
      const m = applyProposal(ctx.vaultPath, p.id);
      return `Merged ${plural(m.merged.length, "card")} into ${escapeControl(m.primary)}; they stay, marked merged, linking to it.`;
    });
    act("Dismiss", () => {
      dismissProposal(ctx.vaultPath, p.id);
      return "Dismissed: the cards stay as they are.";
    });
  }
}

/** The imported sessions, newest first, the first IMPORTED_SHOWN of them; each opens like any entry. */
function renderImported(root: HTMLElement, imported: QueueEntry[], ctx: QueueContext): void {
  const children = collapsible(root, ctx, "imported", "Imported from before the install", imported.length, "vault-memory-imported");
  if (!children) return;
  children.createDiv({
    text: "The nightly digest takes these after each day's own conversations, newest first. Open one to file it now.",
    cls: "vault-memory-muted",
  });
  const newest = [...imported].sort((a, b) => b.lastTimestamp.localeCompare(a.lastTimestamp));
  for (const e of newest.slice(0, IMPORTED_SHOWN)) renderItem(children, e, ctx);
  if (newest.length > IMPORTED_SHOWN) children.createDiv({ text: `… and ${newest.length - IMPORTED_SHOWN} older`, cls: "vault-memory-muted" });
}

/** What an empty queue says: how conversations get here, and a way to check that they can. */
function renderEmpty(root: HTMLElement, ctx: QueueContext): void {
  const q = ctx.host.settings().queue;
  const empty = root.createDiv({ cls: "pane-empty vault-memory-queue-empty" });
  empty.createDiv({ text: "Nothing waits in the queue.", cls: "vault-memory-queue-empty-title" });
  empty.createDiv({
    text: `A Claude Code conversation arrives here when it ends after at least ${plural(q.minPrompts, "prompt")} and ${plural(q.minChars, "character")} of replies, or at once when you tell Claude "remember this". The nightly digest turns what waits into cards; you can also review each one here.`,
  });
  if (ctx.host.checkConnection) {
    const check = empty.createEl("a", { text: "Check connection", href: "#", cls: "vault-memory-check-connection" });
    check.addEventListener("click", (evt) => {
      evt.preventDefault();
      ctx.host.checkConnection?.();
    });
  }
}

/** One waiting conversation: project, time, prompts, first prompt and candidates by kind; opened by click or key. */
function renderItem(list: HTMLElement, e: QueueEntry, ctx: QueueContext): void {
  const s = summarize(e, ctx.inbox(e));
  const item = list.createDiv({ cls: "tree-item-self is-clickable vault-memory-queue-item", attr: { tabindex: 0, role: "button" } });
  const inner = item.createDiv({ cls: "tree-item-inner" });
  const meta = inner.createDiv({ cls: "vault-memory-queue-meta" });
  meta.createSpan({ text: e.project || "(no project)", cls: "vault-memory-queue-project" });
  meta.appendText(" · ");
  timeSpan(meta, e.lastTimestamp || e.updatedAt);
  meta.appendText(` · ${plural(e.prompts, "prompt")}${e.wanted ? " · wanted" : ""}${e.imported ? " · imported" : ""}`);
  inner.createDiv({ text: clip(s.firstPrompt, 140), cls: "vault-memory-queue-first" });
  // Held by the digest: its answer read as orders to an assistant; the person makes the card, or skips it.
  if (e.held)
    inner.createDiv({ text: clip(escapeControl(e.held.reason.replace(/^held for review: /, "Held for your review: ")), 200), cls: "vault-memory-queue-held" });
  const counts = inner.createDiv({ cls: "vault-memory-queue-counts" });
  for (const kind of CANDIDATE_KINDS) {
    if (s.counts[kind] > 0) counts.createSpan({ text: `${kind} ${s.counts[kind]}`, cls: `vault-memory-kind mod-${kind}` });
  }
  const open = (): void => ctx.open(e.sessionId);
  item.addEventListener("click", open);
  item.addEventListener("keydown", (evt) => {
    if (evt.key === "Enter" || evt.key === " ") {
      evt.preventDefault();
      open();
    }
  });
}

/** The handled conversations, collapsed as a tree item, each with a way back to the queue. */
function renderHandled(root: HTMLElement, ctx: QueueContext): void {
  const handled = listHandled(ctx.vaultPath);
  if (handled.length === 0) return;
  const children = collapsible(root, ctx, "handled", "Handled", handled.length, "vault-memory-handled");
  if (!children) return;
  for (const h of handled.slice(0, HANDLED_SHOWN)) {
    const row = children.createDiv({ cls: "tree-item-self vault-memory-handled-item" });
    const inner = row.createDiv({ cls: "tree-item-inner" });
    inner.appendText(`${h.project || "(no project)"} · `);
    timeSpan(inner, h.handledAt);
    inner.appendText(` · ${h.outcome.action}${h.outcome.detail ? `: ${h.outcome.detail}` : ""}`);
    iconButton(row.createDiv({ cls: "tree-item-flair-outer" }), "rotate-ccw", "Restore to the queue", () => {
      restoreHandled(ctx.vaultPath, h.sessionId);
      ctx.refresh();
    });
  }
}
