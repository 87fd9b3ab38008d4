/** The vault's link graph, from wikilinks resolved by the one resolver. */

import type { Card } from "../card/card";
import { LinkResolver } from "../card/links";
import type { LinkGraph } from "./types";

// Obsidian resolves links to other file types too; those are attachments, not cards to write.
const ATTACHMENT = /\.(png|jpe?g|gif|svg|webp|bmp|pdf|mp3|mp4|webm|ogg|wav|m4a|mov|canvas|base|excalidraw)$/i;

export function buildGraph(cards: readonly Card[]): LinkGraph {
  const steps = graphSteps(cards);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

// Cards resolved between pauses when the graph is built in slices (see lintInSlices).
const CARDS_PER_STEP = 500;

/** buildGraph, pausing (yield) after the resolver is made and after every CARDS_PER_STEP cards. */
export function* graphSteps(cards: readonly Card[]): Generator<void, LinkGraph> {
  const resolver = new LinkResolver(cards.map((c) => c.path));
  yield;
  const resolve = (target: string, from = ""): string | undefined => resolver.resolve(target, from);
  const out = new Map<string, Set<string>>();
  const inc = new Map<string, Set<string>>();
  const missing = new Map<string, { file: string; line: number }[]>();
  for (const c of cards) {
    out.set(c.path, new Set());
    if (!inc.has(c.path)) inc.set(c.path, new Set());
  }
  for (const [i, c] of cards.entries()) {
    if (i > 0 && i % CARDS_PER_STEP === 0) yield;
    const resolveFrom = resolver.from(c.path);
    for (const link of c.links) {
      const to = resolveFrom(link.target);
      if (to) {
        if (to === c.path) continue;
        out.get(c.path)?.add(to);
        inc.get(to)?.add(c.path);
      } else if (!ATTACHMENT.test(link.target)) {
        const mention = { file: c.path, line: link.line >= 0 ? link.line + c.bodyLine + 1 : 1 };
        const mentions = missing.get(link.target);
        if (mentions) mentions.push(mention);
        else missing.set(link.target, [mention]);
      }
    }
  }
  return { out, in: inc, missing, resolve };
}
