/** The queue sidebar's new card form: pre-filled in the schema, made of the ticked candidates. */

import { Setting } from "obsidian";
import { CARD_TYPES } from "../core/card/schema";
import type { QueueEntry } from "../core/queue/queue-store";
import { clip } from "../core/text/clip";
import { escapeControl } from "../core/text/visible";
import { createCard } from "./queue-actions";
import { tickedOf, type QueueContext } from "./queue-context";

interface CardFields {
  type: HTMLSelectElement;
  name: HTMLInputElement;
  description: HTMLInputElement;
  tags: HTMLInputElement;
}

export function renderNewCard(root: HTMLElement, e: QueueEntry, firstPrompt: string, related: string[], ctx: QueueContext): void {
  const box = root.createDiv({ cls: "vault-memory-section" });
  box.createEl("h5", { text: "New card" });
  const fields = renderFields(box, e, firstPrompt, ctx);
  const warning = box.createDiv({ cls: "vault-memory-duplicate" });
  const create = box.createEl("button", { text: "Create card", cls: "mod-cta" });
  let confirmed = false;
  create.addEventListener("click", () => {
    const chosen = tickedOf(e, ctx);
    const dup = chosen.map((c) => ctx.cardIndexes().duplicates.find(c.text)).find((d) => d !== undefined);
    if (dup && !confirmed) {
      warning.setText(`A ticked candidate is already in ${escapeControl(dup.path)}. Create the card anyway?`);
      create.setText("Create anyway");
      confirmed = true;
      return;
    }
    void createCard(ctx, e, {
      type: fields.type.value,
      name: fields.name.value.trim() || "Untitled card",
      description: fields.description.value.trim(),
      tags: fields.tags.value
        .split(/[,，]/)
        .map((t) => t.trim())
        .filter(Boolean),
      project: e.project,
      sessionId: e.sessionId,
      candidates: chosen,
      related,
      heading: ctx.cardIndexes().heading,
    });
  });
}

/** Labelled fields, as Obsidian's own forms are: a pre-filled value says nothing of what it is. */
function renderFields(box: HTMLElement, e: QueueEntry, firstPrompt: string, ctx: QueueContext): CardFields {
  const field = <T extends HTMLInputElement | HTMLSelectElement>(name: string, desc: string, make: (s: Setting) => T): T =>
    make(new Setting(box).setName(name).setDesc(desc));
  const type = field("Type", "Which folder the card goes in.", (s) => {
    let select!: HTMLSelectElement;
    s.addDropdown((d) => {
      for (const t of CARD_TYPES) d.addOption(t, t);
      select = d.selectEl;
    });
    return select;
  });
  ctx.keepDraft(e, "type", type, e.candidates.some((c) => c.kind === "decision") ? "project" : "reference");
  const text = (s: Setting, placeholder: string): HTMLInputElement => {
    let input!: HTMLInputElement;
    s.addText((t) => {
      t.setPlaceholder(placeholder);
      input = t.inputEl;
    });
    return input;
  };
  const name = ctx.keepDraft(
    e,
    "name",
    field("Name", "The card's title, and its file name.", (s) => text(s, "Name")),
    clip(firstPrompt, 60),
  );
  const description = ctx.keepDraft(
    e,
    "description",
    field("Description", "One line that says when this card helps: recall shows it to Claude.", (s) =>
      text(s, "Description: one line that says when this card helps"),
    ),
    "",
  );
  const tags = ctx.keepDraft(
    e,
    "tags",
    field("Tags", "Comma separated; the project's name to start with.", (s) => text(s, "Tags, comma separated")),
    e.project ? e.project.toLowerCase() : "",
  );
  return { type, name, description, tags };
}
