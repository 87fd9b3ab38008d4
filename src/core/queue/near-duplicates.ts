/** Flags a candidate that is almost entirely text an existing card already holds. */

// Character shingles work the same for English and Chinese, where word shingles would not.
const SHINGLE = 8;
// The index keeps one shingle in eight, chosen by its hash, so that the same ones are kept from
// every text; the share a card holds is estimated from those, and counted exactly on the cards
// that come near. With every shingle, indexing the help folder (6,277 notes, 25 M characters)
// took 13 s, and write_card waited for it.
const SAMPLE_MASK = 7;
// A shingle's hash rolls from one position to the next (a polynomial in its characters), then
// is mixed so that its low bits, which choose the sample, depend on every character.
const BASE = 0x01000193;
const BASE_TO_SHINGLE = Array.from({ length: SHINGLE - 1 }, () => BASE).reduce((a, b) => Math.imul(a, b), 1);

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Calls `each` with the hash of every shingle of `text`, normalised (a text shorter than one is one). */
function eachShingle(text: string, each: (h: number) => void): void {
  const s = text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    if (i >= SHINGLE) h = (h - Math.imul(s.charCodeAt(i - SHINGLE), BASE_TO_SHINGLE)) | 0;
    h = (Math.imul(h, BASE) + s.charCodeAt(i)) | 0;
    if (i >= SHINGLE - 1) each(mix(h));
  }
  if (s.length > 0 && s.length < SHINGLE) each(mix(h));
}

/** The distinct shingles of `text`, or (`sampled`) those of them the index keeps. */
function shingles(text: string, sampled = false): Set<number> {
  const out = new Set<number>();
  eachShingle(text, (h) => {
    if (!sampled || (h & SAMPLE_MASK) === 0) out.add(h);
  });
  return out;
}

/** The share of the shingles `own` that `text` holds. */
function heldShare(own: ReadonlySet<number>, text: string): number {
  if (own.size === 0) return 0;
  const held = shingles(text);
  let n = 0;
  for (const h of own) if (held.has(h)) n++;
  return n / own.size;
}

/** The share of `candidate`'s shingles found in `text`, 0 to 1: how much of it `text` holds. */
export function containment(candidate: string, text: string): number {
  return heldShare(shingles(candidate), text);
}

export interface DuplicateHit {
  path: string;
  /** Share of the candidate's shingles found in the card, 0 to 1. */
  containment: number;
}

/** An index of every card's shingles (a sample of them, see SAMPLE_MASK); built once, asked many times. */
export class NearDuplicateIndex {
  private readonly postings = new Map<number, number | number[]>();
  private readonly paths: string[] = [];
  private readonly texts: string[] = [];
  private readonly current = new Map<string, number>();

  /** Adds the card's text; a card added again is compared by its new text only. */
  add(path: string, text: string): void {
    const id = this.paths.push(path) - 1;
    this.texts.push(text);
    this.current.set(path, id);
    eachShingle(text, (h) => {
      if ((h & SAMPLE_MASK) !== 0) return;
      const held = this.postings.get(h);
      // Most shingles are one card's: a list is made for the others only. Once for each card:
      // its own repeats are its last entry.
      if (held === undefined) this.postings.set(h, id);
      else if (typeof held === "number") {
        if (held !== id) this.postings.set(h, [held, id]);
      } else if (held[held.length - 1] !== id) held.push(id);
    });
  }

  /** The card that holds at least `threshold` of the candidate's text, if any. */
  find(candidate: string, threshold = 0.95): DuplicateHit | undefined {
    const sample = shingles(candidate, true);
    if (sample.size === 0) return undefined;
    const hits = new Map<number, number>();
    const count = (id: number): void => void hits.set(id, (hits.get(id) ?? 0) + 1);
    for (const h of sample) {
      const held = this.postings.get(h);
      if (typeof held === "number") count(held);
      else held?.forEach(count);
    }
    // The sample's share may miss the whole share by chance: three standard deviations at most.
    const near = threshold - Math.min(threshold, 3 * Math.sqrt(0.25 / sample.size));
    let own: Set<number> | undefined;
    let best: DuplicateHit | undefined;
    for (const [id, n] of hits) {
      if (this.current.get(this.paths[id]) !== id || n / sample.size < near) continue;
      const share = heldShare((own ??= shingles(candidate)), this.texts[id]);
      if (share >= threshold && (!best || share > best.containment)) best = { path: this.paths[id], containment: share };
    }
    return best;
  }
}
