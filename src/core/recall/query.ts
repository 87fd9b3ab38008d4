/** Turns a prompt into query groups: its words, plus the prefixes and synonyms that may stand for them. */

import { findSynonyms, prefixTerm, synonymTerm, type IndexOptions } from "../index/index-options";
import type { QueryGroup } from "../index/scorer";
import { tokenize } from "../text/tokenizer";

// A pasted log can hold thousands of distinct words; each costs a segment read, and the first few
// dozen already say what the prompt is about.
const MAX_QUERY_TERMS = 64;
// A prefix or synonym match is weaker evidence than the word itself.
const PREFIX_WEIGHT = 0.5;
// A word already found in this many cards needs no prefix to be found.
const PREFIX_SKIP_DF = 24;
const SYNONYM_WEIGHT = 0.8;

export function buildQuery(prompt: string, options: IndexOptions, phrases: string[][][]): QueryGroup[] {
  const tokens = tokenize(prompt, options.tokenizer);
  const groups = new Map<string, [string, number][]>();
  for (const term of tokens) {
    if (groups.has(term)) continue;
    if (groups.size >= MAX_QUERY_TERMS) break;
    const alternatives: [string, number][] = [[term, 1]];
    const pfx = prefixTerm(term, options);
    if (pfx) alternatives.push([pfx, PREFIX_WEIGHT]);
    groups.set(term, alternatives);
  }
  // A synonym stands in for the word where its phrase starts in the prompt.
  for (const [g, at] of findSynonyms(tokens, phrases)) {
    groups.get(tokens[at[0]])?.push([synonymTerm(g), SYNONYM_WEIGHT]);
  }
  return [...groups].map(([term, alternatives]) => ({
    term,
    alternatives,
    optional: alternatives.length > 1 && alternatives[1][0].endsWith("*") ? { index: 1, skipAboveDf: PREFIX_SKIP_DF } : undefined,
  }));
}

/**
 * How many distinct prompt words a card must match. Two is the user's rule, but a short, precise
 * question ("launchd PATH?") has only one or two words to give, so it asks one less than it has.
 */
export function requiredMatches(groups: number, minMatchedTerms: number): number {
  return Math.max(1, Math.min(minMatchedTerms, groups - 1));
}
