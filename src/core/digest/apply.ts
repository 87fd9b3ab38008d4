/** Writes what the LLM decided: a new card or a dated section, with related links both ways. */

import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { LinkResolver } from "../card/links";
import { hasFrontmatterBlock, parseCard } from "../card/card";
import { composeCard } from "../card/compose";
import { DEFAULT_RELATED_HEADING, relatedHeading } from "../card/related-heading";
import { FrontmatterError } from "../card/frontmatter-edit";
import { withHints } from "../card/hint-fields";
import { DEFAULT_HINTS_PROPERTY, hintsOf, hintState } from "../card/hints";
import { MAX_QUESTIONS } from "../enrich/settings";
import { addRelatedLink, appendDated } from "../card/related";
import { unlinkUnresolved } from "../card/markdown";
import type { DuplicateOf } from "./dedupe";
import { ChangedSince, rewriteText, writeFileExclusive } from "../io/atomic";
import { isCard, type VaultMemoryConfig } from "../config";
import type { NoteCache } from "../vault/note-cache";
import { AnswerError } from "../llm/answer";
import { refuseRelatedHeading, type DigestAction } from "./answer";
import { addSynonymGroups } from "./synonyms";
import { readNote } from "../vault/scan";

export interface Applied {
  action: "created" | "extended" | "skipped";
  /** The card written, vault-relative. */
  path: string;
  detail: string;
  /** Cards that got a link back. */
  linked: string[];
  /** Synonym groups added to the vault's synonyms note. */
  synonyms: string[][];
  /** Set when the answer would have created a card the vault holds already (see dedupe.ts). */
  duplicateOf?: DuplicateOf;
}

export interface ApplyContext {
  vault: string;
  /** Vault-relative paths of every note, cards or not, for the links an answer's text may make; `cards` when absent. */
  notes?: readonly string[];
  /** Vault-relative paths of every card, to resolve related names. */
  cards: readonly string[];
  /** Cards offered to the LLM for appending, with their mtime when offered. */
  offered: ReadonlyMap<string, number>;
  sessionId: string;
  date: string;
  dryRun: boolean;
  /** Vault-relative path of the synonyms note from the settings; "" for none. */
  synonymsNote: string;
  /** The frontmatter property of recall hints (the questions a card answers); `questions` if not given. */
  hintsProperty?: string;
  /** The heading of related sections this digest writes (see relatedHeading). */
  relatedHeading?: string;
  /**
   * Whether the related cards get a link back. The nightly digest links both ways; a write in
   * a session (write_card) changes only the card it names, so a card the person may have open
   * is never rewritten under them: Obsidian lists the link in its backlinks anyway.
   */
  linkBack?: boolean;
  /**
   * Whether a card offered to extend must be as it was when offered (the digest: the LLM read it).
   * A session's write_card adds a section that does not depend on the card's text, so a save
   * since is no reason to refuse it; the section is added to the text as it is then.
   */
  checkOffered?: boolean;
  /** Whether a card had frontmatter when the run read it: one that has lost it since is being saved, and is not written. */
  hadFrontmatter?: (path: string) => boolean;
}

// The card lock is enrich's, which the digest runs: one lock for every writer of cards.
export { withCardsLock } from "../enrich/cards-lock";

/**
 * Rewrites the card at `abs` by `edit`, never from a stale or partial read (rewriteText: the text
 * is written only while the file still holds what was read, and the edit made again to a save that
 * came in between). An empty card, or one whose frontmatter is gone since the run read it, is
 * being saved in place (truncated, then written) and is not touched. Throws AnswerError, saying
 * why, when it cannot be done; nothing is written then.
 */
export function rewriteCard(abs: string, rel: string, edit: (text: string) => string, hadFrontmatter: boolean): void {
  const halfSaved = (text: string): boolean => text.trim() === "" || (hadFrontmatter && !hasFrontmatterBlock(text));
  const read = (): string => {
    const text = readNote(abs);
    if (text.trim() === "") throw new AnswerError(`${rel} is empty now (perhaps being saved); it was not written`);
    if (halfSaved(text)) throw new AnswerError(`${rel} has lost its frontmatter since it was read (perhaps being saved); it was not written`);
    return text;
  };
  try {
    rewriteText(
      abs,
      read,
      (text) => (text === undefined ? undefined : edit(text)),
      (saved) => {
        if (halfSaved(saved)) throw new AnswerError(`${rel} was being saved as it was written; it holds the new text, check it`);
      },
    );
  } catch (err) {
    if (err instanceof ChangedSince) throw new AnswerError(`${rel} kept changing while it was being written; it was not written`);
    throw err;
  }
}

export function applyAction(answer: DigestAction, ctx: ApplyContext): Applied {
  if (answer.action === "skip") return { action: "skipped", path: "", detail: answer.reason, linked: [], synonyms: [] };
  const resolver = new LinkResolver(ctx.cards);
  // Every link written resolves: one the LLM made to a note that is not there keeps its words only.
  const anyNote = ctx.notes ? new LinkResolver(ctx.notes) : resolver;
  const resolves = (target: string): boolean => anyNote.resolve(target) !== undefined;
  const a: DigestAction =
    answer.action === "append"
      ? { ...answer, section: unlinkUnresolved(answer.section, resolves).text }
      : { ...answer, body: unlinkUnresolved(answer.body, resolves).text };
  const related = [...new Set(a.related.map((n) => resolver.resolve(n)).filter((p): p is string => p !== undefined))];
  const heading = ctx.relatedHeading ?? DEFAULT_RELATED_HEADING;
  // validateAnswer refused the usual related headings; the vault's own is known only here.
  if (a.action === "append") refuseRelatedHeading(a.section, "the section", heading);
  else refuseRelatedHeading(a.body, "the body", heading);
  // Synonyms are written once the answer is accepted but before the card: adding the same groups
  // again changes nothing, so if the card's write fails and the entry is tried again, nothing doubles.
  const addSynonyms = (): string[][] => addSynonymGroups(ctx.vault, ctx.synonymsNote, a.synonyms ?? [], ctx.dryRun, heading);
  if (a.action === "append") {
    const when = ctx.offered.get(a.target);
    if (when === undefined) throw new AnswerError(`target ${a.target} was not one of the cards offered`);
    const abs = join(ctx.vault, a.target);
    if (!existsSync(abs)) throw new AnswerError(`target ${a.target} no longer exists`);
    if (ctx.checkOffered !== false && statSync(abs).mtimeMs !== when) throw new AnswerError(`target ${a.target} was edited since it was suggested`);
    const synonyms = addSynonyms();
    // Extended cards link to what the LLM named; a card already linked keeps its links as they are.
    const linked = related.filter((r) => r !== a.target);
    const extend = (original: string): string => {
      let text = appendDated(original, ctx.date, a.section, ctx.sessionId, heading);
      for (const r of linked) text = addRelatedLink(text, resolver.linkTo(r, a.target), heading);
      return extendedHints(a.target, original, text, a.questions ?? [], ctx.hintsProperty ?? DEFAULT_HINTS_PROPERTY);
    };
    if (!ctx.dryRun) {
      rewriteCard(abs, a.target, extend, ctx.hadFrontmatter?.(a.target) ?? false);
      if (ctx.linkBack !== false)
        writeLinkBacks(
          ctx,
          linked.map((r) => ({ path: r, edit: (t: string) => addRelatedLink(t, resolver.linkTo(a.target, r), heading) })),
        );
    }
    return { action: "extended", path: a.target, detail: a.section.split("\n")[0].slice(0, 120), linked, synonyms };
  }
  const synonyms = addSynonyms();
  const fm = a.frontmatter;
  // A new card must not be an orphan: with no related card named, it links to the best suggestion.
  const links = related.length > 0 ? related : [...ctx.offered.keys()].slice(0, 1);
  // Another writer may take the name between the look and the write (a session beside the
  // digest): the card is made only where nothing is, with the next free name otherwise.
  const taken = new Set<string>();
  const compose = () =>
    composeCard(
      { folder: a.folder, fileName: a.fileName, fields: { ...fm, sessionId: ctx.sessionId, date: ctx.date }, body: a.body, related: links, heading },
      ctx.cards,
      (p) => taken.has(p) || existsSync(join(ctx.vault, p)),
    );
  // Recorded against the card as written, so that enrich finds it current and asks nothing more.
  const textOf = (card: ReturnType<typeof compose>): string =>
    a.questions?.length ? withHints(card.path, card.text, ctx.hintsProperty ?? DEFAULT_HINTS_PROPERTY, a.questions) : card.text;
  let card = compose();
  if (!ctx.dryRun) {
    while (!writeFileExclusive(join(ctx.vault, card.path), textOf(card))) {
      taken.add(card.path);
      if (taken.size > 1000) throw new AnswerError(`no free file name for ${a.fileName} in ${a.folder}`);
      card = compose();
    }
    if (ctx.linkBack !== false) writeLinkBacks(ctx, card.linkBacks);
  }
  const { path } = card;
  return { action: "created", path, detail: fm.description, linked: card.linkBacks.map((l) => l.path), synonyms };
}

/**
 * An extended card's hints: the new section's questions first, then those written before for the
 * card, so the list still covers what the card said already. Hints the person wrote or changed
 * are theirs and kept as they are, and so is a card whose frontmatter cannot be edited: the
 * section matters more than its hints, which enrich can write once the card is fixed.
 */
function extendedHints(path: string, original: string, text: string, questions: readonly string[], property: string): string {
  if (questions.length === 0) return text;
  const before = parseCard(path, original);
  const state = hintState(before, property);
  if (state === "person's") return text;
  const earlier = state === "missing" ? [] : hintsOf(before, property);
  const merged = [...new Map([...questions, ...earlier].map((q) => [q.toLowerCase(), q])).values()].slice(0, MAX_QUESTIONS);
  try {
    return withHints(path, text, property, merged);
  } catch (err) {
    if (err instanceof FrontmatterError) return text;
    throw err;
  }
}

/**
 * Each related card links back, so the graph is two-way and nothing is an orphan. A link back is
 * a nicety: a card gone, no longer a note, being saved or changing under the write is left as
 * it is rather than rewritten from a stale read.
 */
function writeLinkBacks(ctx: ApplyContext, edits: readonly { path: string; edit: (text: string) => string }[]): void {
  for (const { path, edit } of edits) {
    try {
      rewriteCard(join(ctx.vault, path), path, edit, ctx.hadFrontmatter?.(path) ?? false);
    } catch {
      /* left as it is; the new card still links to it */
    }
  }
}

/** The heading the vault's cards use for related sections, unless the settings choose one. */
export function vaultRelatedHeading(notes: NoteCache, config: VaultMemoryConfig): string {
  if (config.cards.relatedHeading) return config.cards.relatedHeading;
  return relatedHeading(
    "",
    notes.list((p) => isCard(p, config)).map((f) => notes.text(f)),
  );
}
