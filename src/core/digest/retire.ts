/**
 * Retiring what is not used: a card no prompt recalled, no read_card opened and no live card
 * links to, for the set number of days, is archived by the night when the person turned that on.
 * Archived, never deleted: its status says so, with the date and the reason, and `restore` (or
 * Obsidian's "Restore archived card") gives it back in one step.
 */

import { parseCard } from "../card/card";
import { FrontmatterError, setFrontmatter } from "../card/frontmatter-edit";
import { LinkResolver } from "../card/links";
import { isRetired, isVaultPage } from "../card/schema";
import { isCard, type VaultMemoryConfig } from "../config";
import { ChangedSince, replaceIfUnchanged } from "../io/atomic";
import { recallHistory } from "../lint/lint";
import type { NoteCache } from "../vault/note-cache";
import { withCardsLock } from "./apply";

const DAY_MS = 86_400_000;
// A night archives at most this many: a log that lost its history (a new computer, a cleared
// folder) must not empty the memory in one go; the rest wait for the next nights.
export const MAX_ARCHIVED_PER_NIGHT = 20;

/** The properties archiving sets, and restoring takes out. */
export const ARCHIVE_KEYS = ["status", "archived", "archived-reason"] as const;

export interface Archived {
  path: string;
  /** When a prompt last recalled it or read_card opened it (epoch ms); 0 for never in the log. */
  lastUsed: number;
}

export interface RetireReport {
  archived: Archived[];
  /** Unused cards left for later nights, past MAX_ARCHIVED_PER_NIGHT. */
  more: number;
  /** Why nothing could be judged tonight (no log yet, a log younger than the days asked). */
  waiting?: string;
  /** Cards that were to be archived and could not be, with why. */
  failed: { path: string; reason: string }[];
}

export function archiveUnused(vault: string, config: VaultMemoryConfig, notes: NoteCache, now: Date, dryRun = false): RetireReport {
  const days = config.lint.unusedDays;
  const out: RetireReport = { archived: [], more: 0, failed: [] };
  if (!(days > 0)) return { ...out, waiting: "lint.unusedDays is 0" };
  const history = recallHistory(vault);
  const cutoff = now.getTime() - days * DAY_MS;
  // The log is this computer's own: before it covers the whole span, no card can be judged unused.
  if (!history || !(history.first <= cutoff)) {
    const since = history && Number.isFinite(history.first) ? `it begins ${new Date(history.first).toISOString().slice(0, 10)}` : "there is none yet";
    return { ...out, waiting: `the recall log must cover the last ${days} days before a card is judged unused (${since})` };
  }
  const files = notes.list((p) => isCard(p, config));
  const live = files.flatMap((f) => {
    try {
      const card = notes.card(f);
      return isRetired(card.status) || isVaultPage(card.type) ? [] : [{ f, card }];
    } catch {
      return [];
    }
  });
  // A card another live card links to is in use, though no prompt found it lately.
  const resolver = new LinkResolver(files.map((f) => f.path));
  const linked = new Set<string>();
  for (const { card } of live)
    for (const l of card.links) {
      const to = resolver.resolve(l.target, card.path);
      if (to && to !== card.path) linked.add(to);
    }
  const unused = live
    .filter(({ f }) => f.mtime < cutoff && (history.last.get(f.path) ?? 0) < cutoff && !linked.has(f.path))
    .map(({ f }) => ({ f, lastUsed: history.last.get(f.path) ?? 0 }))
    .sort((a, b) => a.lastUsed - b.lastUsed || a.f.mtime - b.f.mtime || a.f.path.localeCompare(b.f.path));
  out.more = Math.max(0, unused.length - MAX_ARCHIVED_PER_NIGHT);
  const reason = `not recalled, read or linked in ${days} days (archived by the nightly digest)`;
  const date = now.toISOString().slice(0, 10);
  for (const { f, lastUsed } of unused.slice(0, MAX_ARCHIVED_PER_NIGHT)) {
    if (dryRun) {
      out.archived.push({ path: f.path, lastUsed });
      continue;
    }
    try {
      withCardsLock(vault, () => {
        const before = notes.text(f);
        replaceIfUnchanged(f.abs, before, setFrontmatter(before, { status: "archived", archived: date, "archived-reason": reason }));
      });
      out.archived.push({ path: f.path, lastUsed });
    } catch (err) {
      // A card saved since the night read it, or one whose frontmatter cannot be edited, stays as it is.
      if (!(err instanceof ChangedSince || err instanceof FrontmatterError)) throw err;
      out.failed.push({ path: f.path, reason: err instanceof ChangedSince ? "it changed while the night ran" : err.message });
    }
  }
  return out;
}

/**
 * `text` with the archiving taken back: its status, date and reason removed. Throws, saying why,
 * for a card that is not archived.
 */
export function restoredText(path: string, text: string): string {
  const card = parseCard(path, text);
  if (card.status.toLowerCase() !== "archived") throw new FrontmatterError(`${path} is not archived${card.status ? ` (its status is ${card.status})` : ""}`);
  return setFrontmatter(text, Object.fromEntries(ARCHIVE_KEYS.map((k) => [k, null])));
}
