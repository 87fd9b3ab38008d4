/**
 * Retiring what is not used: a card no prompt recalled, no read_card opened and no live card
 * links to, for the set number of days, is archived by the night when the person turned that on.
 * Archived, never deleted: its status says so, with the date and the reason, and `restore` (or
 * Obsidian's "Restore archived card") gives it back in one step.
 */

import { parseCard } from "../card/card";
import { ARCHIVE_KEYS, archiveFields } from "../card/schema";
import { FrontmatterError, setFrontmatter } from "../card/frontmatter-edit";
import { LinkResolver } from "../card/links";
import { isCard, type VaultMemoryConfig } from "../config";
import { ChangedSince, replaceOrGiveBack } from "../io/atomic";
import { recallHistory } from "../lint/lint";
import { unusedCards } from "../lint/unused";
import type { NoteCache } from "../vault/note-cache";
import { withCardsLock } from "./apply";

// A night archives at most this many: a log that lost its history (a new computer, a cleared
// folder) must not empty the memory in one go; the rest wait for the next nights.
export const MAX_ARCHIVED_PER_NIGHT = 20;

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
  const files = notes.list((p) => isCard(p, config));
  const byPath = new Map(files.map((f) => [f.path, f]));
  const resolver = new LinkResolver(files.map((f) => f.path));
  const verdict = unusedCards(notes.cards(files), recallHistory(vault), days, now.getTime(), (t, from) => resolver.resolve(t, from));
  if ("waiting" in verdict) return { ...out, waiting: verdict.waiting };
  const unused = verdict.unused.map(({ card, lastUsed }) => ({ f: byPath.get(card.path)!, lastUsed }));
  out.more = Math.max(0, unused.length - MAX_ARCHIVED_PER_NIGHT);
  const reason = `not recalled, read or linked in ${days} days (archived by the nightly digest)`;
  for (const { f, lastUsed } of unused.slice(0, MAX_ARCHIVED_PER_NIGHT)) {
    if (dryRun) {
      out.archived.push({ path: f.path, lastUsed });
      continue;
    }
    try {
      withCardsLock(vault, () => {
        const before = notes.text(f);
        replaceOrGiveBack(f.abs, before, setFrontmatter(before, archiveFields(now, reason)));
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
