/** The one similarity engine: the cards most like a text, by recall's own query and scorer, for the sidebar and the digest. */

import { isVaultPage } from "../card/schema";
import { synonymPhrases } from "../index/index-options";
import type { PostingSource } from "../index/postings";
import { scoreGroups, withHintCoverage } from "../index/scorer";
import { buildQuery, requiredMatches } from "./query";

export interface SimilarCard {
  path: string;
  description: string;
  score: number;
}

// Recall's silence thresholds are for prompts; a conversation to file always deserves its
// nearest cards. This floor only drops cards that share a stray word or two with it.
const MIN_SCORE = 2;
const MIN_MATCHED = 2;

/**
 * The `limit` cards most similar to `text`, best first, from the live index or a snapshot, so the
 * person's stemming, folding, synonyms and hints count as they do for recall. Overview pages and
 * notes about the vault are never suggested: nothing is filed into them.
 */
export function similarCards(text: string, source: PostingSource, limit: number, hintBonus = 0): SimilarCard[] {
  const options = source.indexOptions;
  const groups = buildQuery(text, options, synonymPhrases(options));
  const need = requiredMatches(groups.length, MIN_MATCHED);
  const out: SimilarCard[] = [];
  for (const s of scoreGroups(groups, source, (x) => x.matched >= need && x.score >= MIN_SCORE, { hintBonus, floor: { matched: need, score: MIN_SCORE } })) {
    const info = source.doc(s.doc);
    if (!info || isVaultPage(info.type) || !isFilable(info.path)) continue;
    out.push({ path: info.path, description: info.description, score: withHintCoverage(s, info.hintSizes) });
  }
  // A stable sort: ties keep the scorer's order, which breaks them on doc id.
  return out.sort((a, b) => b.score - a.score).slice(0, limit);
}

function isFilable(path: string): boolean {
  return !path.startsWith("moc/") && !path.startsWith("meta/") && path !== "MEMORY.md";
}

/**
 * Similar cards with meaning fused in: a card whose stand-out (see embed/calibration.ts) reaches
 * the gate adds `scale` (recall's minimum score for this vault), up to twice that at `alone`,
 * times `weight`. Unlike recall, meaning vetoes nothing here: a conversation to file always
 * deserves its nearest cards. Cards found by meaning alone join the list; `sims` is stand-out by path.
 */
export function fuseSimilar(
  words: readonly SimilarCard[],
  sims: ReadonlyMap<string, { standOut: number; description: string }>,
  m: { gate: number; alone: number; weight: number; scale: number },
  limit: number,
): SimilarCard[] {
  const span = Math.max(m.alone - m.gate, 0.5);
  const bonus = (x: number): number => (x < m.gate ? 0 : m.weight * m.scale * (1 + Math.min(1, (x - m.gate) / span)));
  const out = new Map(words.map((w) => [w.path, { ...w }]));
  for (const [path, { standOut: cos, description }] of sims) {
    if (!isFilable(path) || bonus(cos) === 0) continue;
    const had = out.get(path);
    if (had) had.score += bonus(cos);
    else out.set(path, { path, description, score: bonus(cos) });
  }
  return [...out.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}
