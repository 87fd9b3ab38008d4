/** Turns a prompt into query groups: its words, plus the prefixes and synonyms that may stand for them. */

import { findSynonyms, prefixTerm, synonymTerm, type IndexOptions } from "../index/index-options";
import type { PostingSource } from "../index/postings";
import type { QueryGroup } from "../index/scorer";
import { MAX_TYPO_WORDS, correctionsOf, typoEligible } from "../index/typos";
import { continuesKatakanaWord, tokenizeQuery } from "../text/tokenizer";

// A pasted log can hold thousands of distinct words; each costs a segment read, and the first few
// dozen already say what the prompt is about.
const MAX_QUERY_TERMS = 64;
// A prefix or synonym match is weaker evidence than the word itself.
const PREFIX_WEIGHT = 0.5;
// A word already found in this many cards needs no prefix to be found.
const PREFIX_SKIP_DF = 24;
const SYNONYM_WEIGHT = 0.8;
// A correction is a guess at what was meant: it counts, but less than a word written right.
const TYPO_WEIGHT = 0.7;
// A prompt with a pasted log or file can run to megabytes. Its question sits at the start or the
// end, and a few thousand characters of the paste already hold more words than MAX_QUERY_TERMS:
// scoring all of it only makes the hook slower than Claude Code's timeout.
export const MAX_PROMPT_HEAD_CHARS = 8_000;
export const MAX_PROMPT_TAIL_CHARS = 2_000;

/**
 * The parts of a prompt that are scored: all of a typed one; the two ends of a long paste, each
 * cut at a space near its limit so that no word is halved into a new term.
 */
export function scoredPromptParts(prompt: string): string[] {
  if (prompt.length <= MAX_PROMPT_HEAD_CHARS + MAX_PROMPT_TAIL_CHARS) return [prompt];
  let head = prompt.slice(0, MAX_PROMPT_HEAD_CHARS);
  const lastSpace = head.search(/\s\S*$/);
  if (lastSpace > MAX_PROMPT_HEAD_CHARS / 2) head = head.slice(0, lastSpace);
  let tail = prompt.slice(prompt.length - MAX_PROMPT_TAIL_CHARS);
  const firstSpace = tail.search(/\s/);
  if (firstSpace >= 0 && firstSpace < MAX_PROMPT_TAIL_CHARS / 2) tail = tail.slice(firstSpace + 1);
  return [head, tail];
}

export function buildQuery(prompt: string, options: IndexOptions, phrases: string[][][]): QueryGroup[] {
  const parts = scoredPromptParts(prompt).map((text) => tokenizeQuery(text, options.tokenizer));
  const tokens = parts.flatMap((p) => p.terms);
  const regional = parts.flatMap((p) => p.regional);
  const groups = new Map<string, [string, number][]>();
  // A question asked after a paste sits at its very end: terms are taken from the start of the
  // head and the end of the tail in turn, so neither end's words are crowded out by the paste's.
  for (const term of parts.length === 1 ? tokens : alternate(parts[0].terms, [...parts[1].terms].reverse())) {
    if (groups.has(term)) continue;
    if (groups.size >= MAX_QUERY_TERMS) break;
    const alternatives: [string, number][] = [[term, 1]];
    const pfx = prefixTerm(term, options);
    if (pfx) alternatives.push([pfx, PREFIX_WEIGHT]);
    groups.set(term, alternatives);
  }
  // The mainland's word stands in for a regional one (文件 for 档案) in the group of its first pair,
  // as a full-weight alternative: a card may use either, and must not count twice for both.
  const add = (alternatives: [string, number][] | undefined, term: string, weight: number): void => {
    if (alternatives && !alternatives.some(([t]) => t === term)) alternatives.push([term, weight]);
  };
  // Each regional word once: a prompt that repeats one must not grow a group without bound.
  for (const [from, to] of new Map(regional)) {
    const at = tokenizeQuery(from, options.tokenizer).terms[0];
    const alternatives = at === undefined ? undefined : groups.get(at);
    const mainland = tokenizeQuery(to, options.tokenizer).terms;
    for (const term of mainland) {
      if (alternatives) add(alternatives, term, 1);
      else if (!groups.has(term) && groups.size < MAX_QUERY_TERMS) groups.set(term, [[term, 1]]);
    }
    // A synonym written in the mainland's word (服务器, backend) also stands for the regional one.
    for (const [g] of findSynonyms(mainland, phrases)) add(alternatives ?? groups.get(mainland[0]), synonymTerm(g), SYNONYM_WEIGHT);
  }
  // A synonym stands in for the word where its phrase starts in the prompt.
  for (const [g, at] of findSynonyms(tokens, phrases)) add(groups.get(tokens[at[0]]), synonymTerm(g), SYNONYM_WEIGHT);
  const continuing = new Set<string>();
  for (const p of parts) p.terms.forEach((t, i) => continuesKatakanaWord(p.terms[i - 1], t) && continuing.add(t));
  return [...groups].map(([term, alternatives]) => ({
    term,
    alternatives,
    optional: alternatives.length > 1 && alternatives[1][0].endsWith("*") ? { index: 1, skipAboveDf: PREFIX_SKIP_DF } : undefined,
    ...(continuing.has(term) ? { continuesWord: true } : {}),
  }));
}

/**
 * The groups with corrections added to the first few words the vault does not hold at all, in
 * its body, titles or hints ("recieve" → receive). Never to a word found anywhere: a rare word
 * the vault has is what the person meant.
 */
export function withCorrections(groups: QueryGroup[], source: PostingSource): QueryGroup[] {
  if (!source.nearWords) return groups;
  let looked = 0;
  return groups.map((g) => {
    if (looked >= MAX_TYPO_WORDS || g.alternatives.length > 2 || !typoEligible(g.term)) return g;
    if (source.postings(g.term) || source.hintPostings?.(g.term)) return g;
    looked++;
    const fixes = correctionsOf(g.term, source);
    return fixes.length === 0 ? g : { ...g, alternatives: [...g.alternatives, ...fixes.map((t) => [t, TYPO_WEIGHT] as const)] };
  });
}

function* alternate<T>(a: readonly T[], b: readonly T[]): Generator<T> {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) yield a[i];
    if (i < b.length) yield b[i];
  }
}

/**
 * How many distinct prompt words a card must match. Two is the user's rule, but a short, precise
 * question ("launchd PATH?") has only one or two words to give, so it asks one less than it has.
 */
export function requiredMatches(groups: number, minMatchedTerms: number, minShare = 0): number {
  // A long prompt (a pasted error, an instruction with its context) shares two words with many
  // cards by chance; the card it is about shares a good part of them.
  return Math.max(1, Math.min(Math.max(minMatchedTerms, Math.ceil(groups * minShare)), groups - 1));
}
