/**
 * Which cards are unused: no prompt recalled them, no read_card opened them and no live card links
 * to them, for the set number of days. One rule for lint's "unused-card" finding and the nightly
 * archiving (digest/retire.ts), so that lint never suggests archiving a card the night would keep.
 */

import type { Card } from "../card/card";
import { isRetired, isVaultPage } from "../card/schema";

const DAY_MS = 86_400_000;

/** What the recall log says about use (see recallHistory): its first line's time, and each card's last use. */
export interface UseLog {
  first: number;
  last: ReadonlyMap<string, number>;
}

export type UnusedVerdict<C> = { unused: { card: C; lastUsed: number }[] } | { waiting: string };

/**
 * The unused cards among `cards`, least lately used first (`lastUsed` 0 for never in the log), or
 * why none can be judged yet. The log is this computer's own: until it covers the whole span,
 * every card would look unused. `resolve` is the vault's link resolution.
 */
export function unusedCards<C extends Pick<Card, "path" | "mtime" | "status" | "type" | "links">>(
  cards: readonly C[],
  log: UseLog | undefined,
  days: number,
  now: number,
  resolve: (target: string, from: string) => string | undefined,
): UnusedVerdict<C> {
  if (!(days > 0)) return { waiting: "lint.unusedDays is 0" };
  const cutoff = now - days * DAY_MS;
  if (!log || !(log.first <= cutoff)) {
    const since = log && Number.isFinite(log.first) ? `it begins ${new Date(log.first).toISOString().slice(0, 10)}` : "there is none yet";
    return { waiting: `the recall log must cover the last ${days} days before a card is judged unused (${since})` };
  }
  const live = cards.filter((c) => !isRetired(c.status) && !isVaultPage(c.type));
  // A card another live card links to is in use, though no prompt found it lately.
  const linked = new Set<string>();
  for (const c of live)
    for (const l of c.links) {
      const to = resolve(l.target, c.path);
      if (to && to !== c.path) linked.add(to);
    }
  const unused = live
    .filter((c) => c.mtime < cutoff && (log.last.get(c.path) ?? 0) < cutoff && !linked.has(c.path))
    .map((card) => ({ card, lastUsed: log.last.get(card.path) ?? 0 }))
    .sort((a, b) => a.lastUsed - b.lastUsed || a.card.mtime - b.card.mtime || a.card.path.localeCompare(b.card.path));
  return { unused };
}
