/** How text becomes index terms: fixed when a snapshot is written, and read back by every recall. */

import { DEFAULT_TOKENIZER, mainlandVariant, PLAIN_TOKENIZER, tokenizeQuery, type TokenizerOptions } from "../text/tokenizer";

export interface IndexOptions {
  tokenizer: TokenizerOptions;
  /**
   * Latin terms at least this long are also indexed under their first `prefixLength` letters plus
   * "*", so "config" finds "configuration". 0 turns prefixes off.
   */
  prefixLength: number;
  /** Groups of phrases that mean the same, from the vault's synonyms note. */
  synonyms: string[][];
  /** The frontmatter property holding each card's recall hints; "" reads none. */
  hintsProperty: string;
}

export const DEFAULT_INDEX_OPTIONS: IndexOptions = { tokenizer: DEFAULT_TOKENIZER, prefixLength: 5, synonyms: [], hintsProperty: "questions" };
/** The user's original rules: no stemming, no folding, no prefixes, no synonyms, no hints. */
export const PLAIN_INDEX_OPTIONS: IndexOptions = { tokenizer: PLAIN_TOKENIZER, prefixLength: 0, synonyms: [], hintsProperty: "" };

const PREFIX_MARK = "*";
const SYNONYM_MARK = "~";

export function prefixTerm(term: string, options: IndexOptions): string | undefined {
  const p = options.prefixLength;
  if (p === 0 || term.length < p) return undefined;
  const c = term.charCodeAt(0);
  // Latin letters and digits only: CJK bigrams are already short, and other scripts do not stem.
  if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39))) return undefined;
  return term.slice(0, p) + PREFIX_MARK;
}

export function synonymTerm(group: number): string {
  return SYNONYM_MARK + group;
}

/**
 * Each synonym group's phrases as term sequences, ready for matching against a token list: one
 * array per options object, shared by every caller, which must not change it.
 */
export function synonymPhrases(options: IndexOptions): string[][][] {
  let phrases = phrasesOf.get(options);
  if (!phrases) phrasesOf.set(options, (phrases = tokenizePhrases(options)));
  return phrases;
}

// Once per options: a prompt asks for them twice (whether recall searches for it, then its
// query), and tokenizing every synonym group cost a small vault's prompt about 30 M instructions.
const phrasesOf = new WeakMap<IndexOptions, string[][][]>();

function tokenizePhrases(options: IndexOptions): string[][][] {
  // A phrase is matched as a run of terms, so the mainland words a regional one would add are left
  // out of it; instead the mainland spelling joins the group as a phrase of its own (伺服器 → 服务器).
  const terms = (phrase: string): string[] => tokenizeQuery(phrase, options.tokenizer).terms;
  return options.synonyms.map((group) =>
    group
      .flatMap((phrase) => {
        const variant = options.tokenizer.foldChinese ? mainlandVariant(phrase) : undefined;
        return variant === undefined ? [terms(phrase)] : [terms(phrase), terms(variant)];
      })
      .filter((t) => t.length > 0),
  );
}

/**
 * Where each synonym group occurs in `tokens`: group index → positions of the first token of each
 * occurrence. Phrases match as whole token sequences, so "定时任务" does not match "任务" alone.
 */
export function findSynonyms(tokens: readonly string[], phrases: string[][][]): Map<number, number[]> {
  const found = new Map<number, number[]>();
  if (phrases.length === 0) return found;
  phrases.forEach((group, g) => {
    for (const phrase of group) {
      for (let i = 0; i + phrase.length <= tokens.length; i++) {
        let ok = true;
        for (let j = 0; j < phrase.length && ok; j++) ok = tokens[i + j] === phrase[j];
        if (!ok) continue;
        // Appended in place: copying the list per occurrence made a prompt that repeats a
        // synonym thousands of times quadratic (18 s for one word pasted 48,000 times).
        const at = found.get(g);
        if (at) at.push(i);
        else found.set(g, [i]);
      }
    }
  });
  return found;
}

// A phrase longer than this, or of more words, is a sentence of prose that happens to hold a comma.
export const MAX_PHRASE_CHARS = 40;
export const MAX_PHRASE_WORDS = 5;

/**
 * Parses a synonyms note: one group per line, phrases separated by commas (either width) or
 * 、; headings, quotes, frontmatter, lines with a single phrase, lines of prose and lines of links
 * are ignored. A leading "- " is allowed.
 */
export function parseSynonyms(text: string): string[][] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const groups: string[][] = [];
  for (const raw of lines.slice(frontmatterLines(lines))) {
    const line = raw.replace(/^\s*[-*+]\s+/, "").trim();
    if (line === "" || line.startsWith("#") || line.startsWith(">") || line.includes("[[")) continue;
    const phrases = line
      .split(/[,，、]/)
      .map((p) => p.trim())
      .filter((p) => p !== "");
    if (phrases.length < 2 || phrases.some((p) => p.length > MAX_PHRASE_CHARS || p.split(/\s+/).length > MAX_PHRASE_WORDS)) continue;
    groups.push(phrases);
  }
  return groups;
}

/**
 * How many of `lines` a leading frontmatter block takes, 0 when there is none. Frontmatter lines
 * hold commas too ("tags: [meta, recall]") but are not groups. A BOM and spaces after a fence pass.
 */
export function frontmatterLines(lines: readonly string[]): number {
  const fence = (line: string | undefined): boolean => line?.replace(/^\uFEFF/, "").trimEnd() === "---";
  if (!fence(lines[0])) return 0;
  const close = lines.findIndex((line, i) => i > 0 && fence(line));
  return close < 0 ? 0 : close + 1;
}

/** How notes become index terms; changing any of these rebuilds the index. */
export interface IndexSettings {
  stem: boolean;
  foldChinese: boolean;
  /** Cut Japanese where the script changes and leave out hiragana, which is mostly grammar. */
  splitKana: boolean;
  /** 0 turns prefix matching off. */
  prefixLength: number;
  /** Vault-relative path of the synonyms note; "" for none. */
  synonymsNote: string;
  /** The frontmatter list property that holds a card's recall hints (the questions it answers). */
  hintsProperty: string;
}

/** The index options a config asks for, with the synonyms read from the vault's note. */
export function indexOptionsOf(settings: IndexSettings, synonymsNoteText: string | undefined): IndexOptions {
  return {
    tokenizer: { stem: settings.stem, foldChinese: settings.foldChinese, splitKana: settings.splitKana },
    prefixLength: settings.prefixLength,
    synonyms: synonymsNoteText ? parseSynonyms(synonymsNoteText) : [],
    hintsProperty: settings.hintsProperty,
  };
}
