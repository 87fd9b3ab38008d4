/** Writes what the LLM decided: a new card or a dated section, with related links both ways. */

import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { LinkResolver } from "../card/links";
import { baseName, parseCard } from "../card/card";
import { FrontmatterError } from "../card/frontmatter-edit";
import { withHints } from "../card/hint-fields";
import { DEFAULT_HINTS_PROPERTY, hintsOf, hintState } from "../card/hints";
import { MAX_QUESTIONS } from "../enrich/settings";
import { addRelatedLink, appendDated } from "../card/related";
import { writeFileAtomic } from "../io/atomic";
import { cardFrontmatter } from "../card/write-card";
import { AnswerError, type DigestAction } from "./answer";
import { addSynonymGroups } from "./synonyms";

export interface Applied {
  action: "created" | "extended" | "skipped";
  /** The card written, vault-relative. */
  path: string;
  detail: string;
  /** Cards that got a link back. */
  linked: string[];
  /** Synonym groups added to the vault's synonyms note. */
  synonyms: string[][];
}

export interface ApplyContext {
  vault: string;
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
}

export function applyAction(a: DigestAction, ctx: ApplyContext): Applied {
  if (a.action === "skip") return { action: "skipped", path: "", detail: a.reason, linked: [], synonyms: [] };
  const related = resolveAll(a.related, ctx.cards);
  // Synonyms are written once the answer is accepted but before the card: adding the same groups
  // again changes nothing, so if the card's write fails and the entry is tried again, nothing doubles.
  const addSynonyms = (): string[][] => addSynonymGroups(ctx.vault, ctx.synonymsNote, a.synonyms ?? [], ctx.dryRun);
  if (a.action === "append") {
    const when = ctx.offered.get(a.target);
    if (when === undefined) throw new AnswerError(`target ${a.target} was not one of the cards offered`);
    const abs = join(ctx.vault, a.target);
    if (!existsSync(abs)) throw new AnswerError(`target ${a.target} no longer exists`);
    if (statSync(abs).mtimeMs !== when) throw new AnswerError(`target ${a.target} was edited since it was suggested`);
    const synonyms = addSynonyms();
    // Extended cards link to what the LLM named; a card already linked keeps its links as they are.
    const original = readFileSync(abs, "utf8");
    let text = appendDated(original, ctx.date, a.section, ctx.sessionId);
    for (const r of related) if (r !== a.target) text = addRelatedLink(text, baseName(r));
    text = extendedHints(a.target, original, text, a.questions ?? [], ctx.hintsProperty ?? DEFAULT_HINTS_PROPERTY);
    const linked = related.filter((r) => r !== a.target);
    if (!ctx.dryRun) {
      writeFileAtomic(abs, text);
      linkBack(ctx, linked, a.target);
    }
    return { action: "extended", path: a.target, detail: a.section.split("\n")[0].slice(0, 120), linked, synonyms };
  }
  const synonyms = addSynonyms();
  let path = `${a.folder}/${a.fileName}.md`;
  for (let i = 2; existsSync(join(ctx.vault, path)) || ctx.cards.includes(path); i++) path = `${a.folder}/${a.fileName}-${i}.md`;
  // A new card must not be an orphan: with no related card named, it links to the best suggestion.
  const links = related.length > 0 ? related : [...ctx.offered.keys()].slice(0, 1);
  const fm = a.frontmatter;
  let text = [
    cardFrontmatter({ ...fm, sessionId: ctx.sessionId, date: ctx.date }),
    a.body.startsWith("# ") ? a.body : `# ${fm.name}\n\n${a.body}`,
    "",
    "## 相關",
    ...links.map((l) => `- [[${baseName(l)}]]`),
    "",
  ].join("\n");
  // Recorded against the card as written, so that enrich finds it current and asks nothing more.
  if (a.questions?.length) text = withHints(path, text, ctx.hintsProperty ?? DEFAULT_HINTS_PROPERTY, a.questions);
  if (!ctx.dryRun) {
    writeFileAtomic(join(ctx.vault, path), text);
    linkBack(ctx, links, path);
  }
  return { action: "created", path, detail: fm.description, linked: links, synonyms };
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

/** Each related card links back to `path`, so the graph is two-way and nothing is an orphan. */
function linkBack(ctx: ApplyContext, targets: readonly string[], path: string): void {
  for (const t of targets) {
    const abs = join(ctx.vault, t);
    if (!existsSync(abs)) continue;
    const text = readFileSync(abs, "utf8");
    const next = addRelatedLink(text, baseName(path));
    if (next !== text) writeFileAtomic(abs, next);
  }
}

/** The cards the LLM named (by name or path), resolved as a wikilink to them would be. */
function resolveAll(names: readonly string[], cards: readonly string[]): string[] {
  const resolver = new LinkResolver(cards);
  return [...new Set(names.map((n) => resolver.resolve(n)).filter((p): p is string => p !== undefined))];
}
