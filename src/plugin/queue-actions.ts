/** What the queue sidebar writes to the vault: a new card of the ticked candidates, or a section added to a card. */

import { Notice, TFile, normalizePath } from "obsidian";
import type { QueueEntry } from "../core/queue/queue-store";
import { appendSection, draftCard, type CardDraft } from "../core/queue/review";
import { escapeControl } from "../core/text/visible";
import { tickedOf, type QueueContext } from "./queue-context";

/** Writes the new card, links each related card back to it, opens it, and moves the entry to the handled list. */
export async function createCard(ctx: QueueContext, e: QueueEntry, draft: CardDraft): Promise<void> {
  const vault = ctx.app.vault;
  const card = draftCard(
    draft,
    today(),
    vault.getMarkdownFiles().map((f) => f.path),
    (p) => vault.getAbstractFileByPath(normalizePath(p)) !== null,
  );
  const target = normalizePath(card.path);
  const folder = target.slice(0, target.lastIndexOf("/"));
  if (folder && !vault.getAbstractFileByPath(folder)) await vault.createFolder(folder);
  const file = await vault.create(target, card.text);
  // Each related card links back, as the digest's do, so the new card is no orphan in the graph.
  for (const back of card.linkBacks) {
    const related = vault.getAbstractFileByPath(back.path);
    if (related instanceof TFile) await vault.process(related, back.edit);
  }
  await ctx.app.workspace.getLeaf(false).openFile(file);
  ctx.finish(e, { action: "created", detail: target });
}

/** Adds the ticked candidates to the card as a dated section, and moves the entry to the handled list. */
export async function appendTo(ctx: QueueContext, e: QueueEntry, path: string): Promise<void> {
  const file = ctx.app.vault.getAbstractFileByPath(path);
  if (!(file instanceof TFile)) return void new Notice(`${escapeControl(path)} no longer exists.`);
  const chosen = tickedOf(e, ctx);
  if (chosen.length === 0) return void new Notice("Tick the candidates to add first.");
  const heading = ctx.cardIndexes().heading;
  await ctx.app.vault.process(file, (text) => appendSection(text, today(), chosen, e.sessionId, heading));
  ctx.finish(e, { action: "extended", detail: path });
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
