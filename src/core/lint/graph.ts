/** Resolves wikilinks the way Obsidian does, and builds the vault's link graph from them. */

import { baseName, type Card } from "../card/card";
import type { LinkGraph } from "./types";

// Obsidian resolves links to other file types too; those are attachments, not cards to write.
const ATTACHMENT = /\.(png|jpe?g|gif|svg|webp|bmp|pdf|mp3|mp4|webm|ogg|wav|m4a|mov|canvas|base|excalidraw)$/i;

export function buildGraph(cards: readonly Card[]): LinkGraph {
  const byPath = new Map<string, string>();
  const byName = new Map<string, string[]>();
  for (const c of cards) {
    byPath.set(c.path.toLowerCase().replace(/\.md$/, ""), c.path);
    const name = baseName(c.path).toLowerCase();
    byName.set(name, [...(byName.get(name) ?? []), c.path]);
  }
  const resolve = (target: string, from = ""): string | undefined => {
    const t = target.replace(/\\/g, "/").replace(/^\/+/, "").toLowerCase().replace(/\.md$/, "");
    if (t === "") return undefined;
    if (!t.includes("/")) {
      const hits = byName.get(t);
      if (!hits) return undefined;
      // Several notes share the name: Obsidian prefers the one closest to the linking note.
      const dir = from.slice(0, from.lastIndexOf("/") + 1).toLowerCase();
      return hits.find((p) => p.toLowerCase().startsWith(dir)) ?? hits[0];
    }
    const exact = byPath.get(t);
    if (exact) return exact;
    // A partial path ("folder/name") matches any note whose path ends with it.
    for (const [p, real] of byPath) if (p.endsWith("/" + t)) return real;
    return undefined;
  };
  const out = new Map<string, Set<string>>();
  const inc = new Map<string, Set<string>>();
  const missing = new Map<string, { file: string; line: number }[]>();
  for (const c of cards) {
    out.set(c.path, new Set());
    if (!inc.has(c.path)) inc.set(c.path, new Set());
  }
  for (const c of cards) {
    for (const link of c.links) {
      const to = resolve(link.target, c.path);
      if (to) {
        if (to === c.path) continue;
        out.get(c.path)?.add(to);
        inc.get(to)?.add(c.path);
      } else if (!ATTACHMENT.test(link.target)) {
        const key = link.target;
        missing.set(key, [...(missing.get(key) ?? []), { file: c.path, line: link.line >= 0 ? link.line + c.bodyLine + 1 : 1 }]);
      }
    }
  }
  return { out, in: inc, missing, resolve };
}
