/** Flags a candidate that is almost entirely text an existing card already holds. */

import { fnv1aString } from "../io/hash";

// Character shingles work the same for English and Chinese, where word shingles would not.
const SHINGLE = 8;

function shingles(text: string): Set<number> {
  const s = text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  const out = new Set<number>();
  for (let i = 0; i + SHINGLE <= s.length; i++) out.add(fnv1aString(s.slice(i, i + SHINGLE)));
  if (out.size === 0 && s) out.add(fnv1aString(s));
  return out;
}

export interface DuplicateHit {
  path: string;
  /** Share of the candidate's shingles found in the card, 0 to 1. */
  containment: number;
}

/** The share of `candidate`'s shingles found in `text`, 0 to 1: how much of it `text` holds. */
export function containment(candidate: string, text: string): number {
  const own = shingles(candidate);
  if (own.size === 0) return 0;
  const held = shingles(text);
  let n = 0;
  for (const h of own) if (held.has(h)) n++;
  return n / own.size;
}

/** An index of every card's shingles; built once, asked many times. */
export class NearDuplicateIndex {
  private readonly postings = new Map<number, number[]>();
  private readonly paths: string[] = [];
  private readonly current = new Map<string, number>();

  /** Adds the card's text; a card added again is compared by its new text only. */
  add(path: string, text: string): void {
    const id = this.paths.push(path) - 1;
    this.current.set(path, id);
    for (const h of shingles(text)) {
      const list = this.postings.get(h);
      if (list) list.push(id);
      else this.postings.set(h, [id]);
    }
  }

  /** The card that holds at least `threshold` of the candidate's text, if any. */
  find(candidate: string, threshold = 0.95): DuplicateHit | undefined {
    const own = shingles(candidate);
    if (own.size === 0) return undefined;
    const hits = new Map<number, number>();
    for (const h of own) for (const id of this.postings.get(h) ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
    let best: DuplicateHit | undefined;
    for (const [id, n] of hits) {
      if (this.current.get(this.paths[id]) !== id) continue;
      const containment = n / own.size;
      if (containment >= threshold && (!best || containment > best.containment)) best = { path: this.paths[id], containment };
    }
    return best;
  }
}
