/**
 * Correcting and retiring a card at once, for the MCP server's edit_card and archive_card. What
 * Claude asks to write is a model's output, checked like write_card's (sanitised, the digest's
 * rules for added text); the edit is made to the text Claude read, named by its hash, and only
 * while the file still holds that text, so an edit made from a stale read, or one that would
 * overwrite a save, is refused. Nothing is deleted: a card is archived by its status.
 */

import { createHash } from "node:crypto";
import { hasFrontmatterBlock, parseCard } from "../card/card";
import { archiveFields, writtenByProduct } from "../card/schema";
import { setFrontmatter, FrontmatterError, type FrontmatterValue } from "../card/frontmatter-edit";
import { LinkResolver } from "../card/links";
import { readBody, stripInline, unlinkUnresolved, writtenHeading } from "../card/markdown";
import type { VaultMemoryConfig } from "../config";
import { ChangedSince, replaceOrGiveBack } from "../io/atomic";
import { NoteCache } from "../vault/note-cache";
import { sanitize } from "../privacy/redact";
import { AnswerError } from "../llm/answer";
import { validateAnswer, MAX_BODY_CHARS } from "./answer";
import { withCardsLock } from "./apply";
import { CardRefused, cardToChange, snapshotAfterWrite, MAX_DESCRIPTION_CHARS, MAX_TAGS, MAX_TITLE_CHARS, type SnapshotUpdate } from "./write-now";

/** The hash read_card shows and edit_card asks for: the first 16 hex digits of the text's SHA-256. */
export function cardHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);
}

/** The frontmatter fields edit_card may set; the rest (type, status, source, hints) are the product's or the schema's. */
export const EDITABLE_FIELDS = ["name", "description", "tags", "aliases", "project"] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

export interface EditRequest {
  path: string;
  /** cardHash of the text as read_card gave it. */
  hash: string;
  /** A section's heading (`Fix`, or `## Fix`), whose text is replaced by `text`. */
  section?: string;
  /** Or a frontmatter field, set to `value`. */
  field?: string;
  text?: string;
  value?: string | readonly string[];
  /** The person asked for this change: required for a card they wrote themselves. */
  personAsked?: boolean;
}

export interface ArchiveRequest {
  path: string;
  reason: string;
  hash?: string;
  personAsked?: boolean;
}

export interface EditContext {
  vault: string;
  config: VaultMemoryConfig;
  now?: Date;
}

export interface Edited {
  path: string;
  /** The card's hash after the edit, for a further one. */
  hash: string;
  /** What changed, in words. */
  what: string;
  /** Links to notes the vault does not have, written as their words. */
  unlinked: string[];
  /** Made under the lock; its vectors follow after it (vectorsAfterWrite). */
  snapshot: SnapshotUpdate;
}

/** Whether the product wrote the card (the digest, write_card, the sidebar put `source` in it); otherwise it is the person's own. */
export function isPersonsOwn(text: string): boolean {
  return !writtenByProduct(parseCard("card.md", text).frontmatter);
}

export function editCardNow(req: EditRequest, ctx: EditContext): Edited {
  const { vault, config } = ctx;
  const hasSection = typeof req.section === "string" && req.section.trim() !== "";
  const hasField = typeof req.field === "string" && req.field.trim() !== "";
  if (hasSection === hasField) throw new CardRefused("give either section (a heading of the card) with text, or field (one of its properties) with value.");
  return withCardsLock(vault, () => {
    const target = cardToChange(vault, config, req.path, "edited");
    const before = target.text;
    checkHash(target.path, before, req.hash);
    checkOwner(before, req.personAsked, "edit");
    const notes = new NoteCache(vault);
    let next: string;
    let what: string;
    let unlinked: string[] = [];
    if (hasSection) {
      const text = sanitize(req.text ?? "").trim();
      if (text.length > MAX_BODY_CHARS) throw new CardRefused(`text is ${text.length} characters; at most ${MAX_BODY_CHARS}.`);
      // The digest's checks of added text: no frontmatter, no level-1 or level-2 heading, no link out of the vault.
      try {
        validateAnswer({ action: "append", target: target.path, section: text || "-", related: [] });
      } catch (err) {
        if (err instanceof AnswerError) throw new CardRefused(err.message.replace(/\bthe section\b/g, "text"));
        throw err;
      }
      const resolver = new LinkResolver(notes.list().map((f) => f.path));
      const linked = unlinkUnresolved(text, (t) => resolver.resolve(t) !== undefined);
      unlinked = linked.unlinked;
      const heading = req.section!.trim().replace(/^#+\s*/, "");
      next = replaceSection(before, heading, linked.text);
      what = `the section "${heading}"`;
    } else {
      const field = req.field!.trim();
      if (!(EDITABLE_FIELDS as readonly string[]).includes(field))
        throw new CardRefused(
          `field must be one of ${EDITABLE_FIELDS.join(", ")}; type, status and the product's own properties are not edited here (archive_card retires a card).`,
        );
      const value = fieldValue(field as EditableField, req.value);
      try {
        next = setFrontmatter(before, { [field]: value });
      } catch (err) {
        if (err instanceof FrontmatterError) throw new CardRefused(`${target.path}: ${err.message}.`);
        throw err;
      }
      what = `its ${field}`;
    }
    if (next === before) throw new CardRefused(`${target.path} holds that already; nothing was changed.`);
    write(target.abs, target.path, before, next);
    return { path: target.path, hash: cardHash(next), what, unlinked, snapshot: snapshotAfterWrite(vault, config, notes) };
  });
}

export function archiveCardNow(req: ArchiveRequest, ctx: EditContext): Edited {
  const { vault, config } = ctx;
  const reason = sanitize(req.reason ?? "").trim();
  if (!reason) throw new CardRefused("reason is empty: say why the card is retired (outdated, replaced by another card, wrong).");
  if (reason.length > 300 || /[\r\n\u0085\u2028\u2029]/.test(reason)) throw new CardRefused("reason must be one line of at most 300 characters.");
  return withCardsLock(vault, () => {
    const target = cardToChange(vault, config, req.path, "archived");
    const before = target.text;
    if (req.hash !== undefined) checkHash(target.path, before, req.hash);
    checkOwner(before, req.personAsked, "archive");
    const card = parseCard(target.path, before);
    if (card.status.toLowerCase() === "archived") throw new CardRefused(`${target.path} is archived already.`);
    let next: string;
    try {
      next = setFrontmatter(before, archiveFields(ctx.now ?? new Date(), reason));
    } catch (err) {
      if (err instanceof FrontmatterError) throw new CardRefused(`${target.path}: ${err.message}.`);
      throw err;
    }
    write(target.abs, target.path, before, next);
    const notes = new NoteCache(vault);
    return { path: target.path, hash: cardHash(next), what: "archived", unlinked: [], snapshot: snapshotAfterWrite(vault, config, notes) };
  });
}

function checkHash(path: string, text: string, given: string | undefined): void {
  const now = cardHash(text);
  if (typeof given !== "string" || given.trim() === "") throw new CardRefused(`hash is empty: read ${path} with read_card first, and pass the hash it shows.`);
  if (given.trim().toLowerCase() !== now)
    throw new CardRefused(
      `${path} changed since it was read (its hash is ${now} now, not ${given.trim().slice(0, 40)}): read it again with read_card, then edit what it says now.`,
    );
}

function checkOwner(text: string, personAsked: boolean | undefined, verb: string): void {
  if (isPersonsOwn(text) && personAsked !== true)
    throw new CardRefused(
      `this card is the person's own (Vault Memory did not write it): ${verb} it only when they asked for this change, and say so with person_asked: true.`,
    );
}

function fieldValue(field: EditableField, value: unknown): FrontmatterValue {
  const list = field === "tags" || field === "aliases";
  if (list) {
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new CardRefused(`${field} takes a list of words.`);
    const clean = [
      ...new Set(
        (value as string[])
          .map((v) =>
            sanitize(v)
              .trim()
              .replace(/^#+/, "")
              .replace(/\s+/g, field === "tags" ? "-" : " "),
          )
          .filter(Boolean),
      ),
    ];
    if (clean.length > MAX_TAGS || clean.some((v) => v.length > 100)) throw new CardRefused(`${field}: at most ${MAX_TAGS}, each at most 100 characters.`);
    return clean;
  }
  if (typeof value !== "string") throw new CardRefused(`${field} takes one line of text.`);
  const text = sanitize(value).trim();
  const max = field === "name" ? MAX_TITLE_CHARS : field === "description" ? MAX_DESCRIPTION_CHARS : 100;
  if (/[\r\n\u0085\u2028\u2029]/.test(text)) throw new CardRefused(`${field} spans several lines; it must be one line.`);
  if (text.length > max) throw new CardRefused(`${field} is ${text.length} characters; at most ${max}.`);
  if (!text && field !== "project") throw new CardRefused(`${field} is empty.`);
  return text;
}

/**
 * `text` with the section under the heading `heading` (any level, as read or as shown: `` `date` ``
 * or `date`; the first one outside code) replaced by `body`, up to the next heading of its level
 * or above. The heading line stays. Headings and code are read as the index reads them (readBody).
 */
export function replaceSection(text: string, heading: string, body: string): string {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const start = hasFrontmatterBlock(text) ? lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l)) + 1 : 0;
  const { headings } = readBody(lines.slice(start).join("\n"));
  // As written first; as shown (markup taken out) only when that names one heading alone.
  const asWritten = heading.trim().toLowerCase();
  let found = headings.findIndex(
    (h) =>
      writtenHeading(lines[start + h.line])
        ?.trim()
        .toLowerCase() === asWritten,
  );
  if (found < 0) {
    const asShown = stripInline(heading).toLowerCase();
    const shown = headings.flatMap((h, i) => (h.text.toLowerCase() === asShown ? [i] : []));
    if (shown.length > 1) throw new CardRefused(`${shown.length} headings of the card read "${heading}"; give the one meant as it is written in the card.`);
    found = shown[0] ?? -1;
  }
  if (found < 0) throw new CardRefused(`the card has no heading "${heading}"; give a heading it has, as read_card shows it.`);
  const at = start + headings[found].line;
  const next = headings.slice(found + 1).find((h) => h.level <= headings[found].level);
  const after = next ? lines.slice(start + next.line) : [];
  const out = [...lines.slice(0, at + 1), "", ...body.split(/\r?\n/), ...(after.length > 0 ? [""] : []), ...after].join(eol);
  // The file's last line ending is kept.
  return /\r?\n$/.test(text) && !out.endsWith("\n") ? out + eol : out;
}

function write(abs: string, rel: string, before: string, next: string): void {
  try {
    replaceOrGiveBack(abs, before, next);
  } catch (err) {
    if (err instanceof ChangedSince) throw new CardRefused(`${rel} was saved while it was being edited; nothing was changed. Read it again with read_card.`);
    throw err;
  }
}
