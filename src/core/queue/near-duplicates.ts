/** Flags a candidate that is almost entirely text an existing card already holds. */

// Character shingles work the same for English and Chinese, where word shingles would not.
const SHINGLE = 8;
// The index keeps a text's fingerprints, not every shingle: in each run of WINDOW shingles, the
// least hash (winnowing). A text another holds word for word has all of its fingerprints in it
// when it is WINDOW + SHINGLE - 1 characters or longer, whatever surrounds it there; the share a
// card holds is estimated from them and counted exactly on the cards that come near. With every
// shingle, indexing the help folder (6,277 notes, 25 M characters) took 13 s, and write_card
// waited for it.
const WINDOW = 16;
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

/** A text as it is compared: one case, one form of each character, runs of white space one space. */
function normalized(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/** Calls `each` with the hash of every shingle of the normalized text `s` (a text shorter than one is one). */
function eachShingle(s: string, each: (h: number) => void): void {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    if (i >= SHINGLE) h = (h - Math.imul(s.charCodeAt(i - SHINGLE), BASE_TO_SHINGLE)) | 0;
    h = (Math.imul(h, BASE) + s.charCodeAt(i)) | 0;
    if (i >= SHINGLE - 1) each(mix(h));
  }
  if (s.length > 0 && s.length < SHINGLE) each(mix(h));
}

/** The distinct shingles of `text`. */
function shingles(text: string): Set<number> {
  const out = new Set<number>();
  eachShingle(normalized(text), (h) => out.add(h));
  return out;
}

/** Calls `each` with the normalized text `s`'s fingerprints, in order, one again when a later window picks it. */
function eachFingerprint(s: string, each: (h: number) => void): void {
  const hashes: number[] = [];
  eachShingle(s, (h) => hashes.push(h));
  if (hashes.length === 0) return;
  if (hashes.length <= WINDOW) return each(Math.min(...hashes));
  // The least of each window, by a queue of positions whose hashes rise.
  const queue: number[] = [];
  let head = 0;
  let last = -1;
  for (let i = 0; i < hashes.length; i++) {
    while (queue.length > head && hashes[queue[queue.length - 1]] >= hashes[i]) queue.pop();
    queue.push(i);
    if (queue[head] <= i - WINDOW) head++;
    if (i >= WINDOW - 1 && queue[head] !== last) each(hashes[(last = queue[head])]);
  }
}

/** The distinct fingerprints of the normalized text `s`. */
function fingerprints(s: string): Set<number> {
  const out = new Set<number>();
  eachFingerprint(s, (h) => out.add(h));
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

/** An index of every card's fingerprints (see WINDOW); built once, asked many times. */
export class NearDuplicateIndex {
  private readonly postings = new Map<number, number | number[]>();
  private readonly paths: string[] = [];
  /** Each card's text, normalized. */
  private readonly texts: string[] = [];
  private readonly current = new Map<string, number>();

  /** Adds the card's text; a card added again is compared by its new text only. */
  add(path: string, text: string): void {
    const id = this.paths.push(path) - 1;
    const norm = normalized(text);
    this.texts.push(norm);
    this.current.set(path, id);
    eachFingerprint(norm, (h) => {
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
    const norm = normalized(candidate);
    if (norm.length < WINDOW + SHINGLE - 1) return this.holdingWhole(norm);
    const sample = fingerprints(norm);
    const hits = new Map<number, number>();
    const count = (id: number): void => void hits.set(id, (hits.get(id) ?? 0) + 1);
    for (const h of sample) {
      const held = this.postings.get(h);
      if (typeof held === "number") count(held);
      else held?.forEach(count);
    }
    // The fingerprints' share may miss the whole share by chance: three standard deviations at most.
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

  /** For a text too short for its fingerprints to be sure: the first card that holds it word for word. */
  private holdingWhole(norm: string): DuplicateHit | undefined {
    if (norm === "") return undefined;
    for (const [path, id] of this.current) if (this.texts[id].includes(norm)) return { path, containment: 1 };
    return undefined;
  }
}
