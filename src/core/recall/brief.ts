/**
 * The session brief: what the memory holds for the project a session starts in, a few lines that
 * Claude reads once at the start instead of learning of the memory only when a prompt happens to
 * match. Claude Code's own MEMORY.md does the same for its notes; this one is scoped to the
 * project and bounded, and names the most used cards rather than all of them.
 */

import type { DocInfo } from "../index/postings";
import { formatCardLines } from "./recall";
import { BRIEF_HEADER } from "./recall-header";

export interface BriefOptions {
  /** The project the session starts in (resolveProject); "" outside any. */
  project: string;
  /** How often recall printed each card lately (usageCounts). */
  uses: ReadonlyMap<string, number>;
  vaultRoot: string;
  /** The whole brief's cap, header included. */
  maxChars: number;
  /** Whether a card's file is there now; only those are named. */
  exists?: (path: string) => boolean;
}

// Enough to show what kind of memory there is without crowding the session's context; the rest
// is a search away.
const MAX_PROJECT_CARDS = 6;
const MAX_SHARED_CARDS = 4;

// Among cards used as often, the ones that hold for every task come first: how the person wants
// things done, then decisions and the project's own overview.
const TYPE_ORDER = ["user", "feedback", "project", "decision", "reference", "debugging", "teaching"];

/**
 * The brief for a session in `opts.project`: its most used cards, then the most used cards of no
 * project, one line each, under a header saying how many there are and that search_memory finds
 * the rest. "" when the memory holds nothing for the session.
 */
export function sessionBrief(cards: Iterable<DocInfo>, opts: BriefOptions): string {
  const project = opts.project.toLowerCase();
  const own: DocInfo[] = [];
  const shared: DocInfo[] = [];
  for (const card of cards) {
    const theirs = card.project.toLowerCase();
    if (!theirs) shared.push(card);
    else if (!project || theirs === project) own.push(card);
  }
  if (own.length + shared.length === 0) return "";
  const byUse = (a: DocInfo, b: DocInfo): number =>
    (opts.uses.get(b.path) ?? 0) - (opts.uses.get(a.path) ?? 0) || rank(a.type) - rank(b.type) || b.updated - a.updated || (a.path < b.path ? -1 : 1);
  own.sort(byUse);
  shared.sort(byUse);
  const where = project ? `holds ${count(own.length)} for the project ${opts.project} and ${count(shared.length)} for every project` : `holds ${count(own.length + shared.length)}`;
  const header = `${BRIEF_HEADER} ${where}. The most used, one line each; search_memory finds the rest and read_card opens one:`;
  const there = (list: DocInfo[], max: number): DocInfo[] => {
    const out: DocInfo[] = [];
    for (const card of list) {
      if (out.length >= max) break;
      if (!opts.exists || opts.exists(card.path)) out.push(card);
    }
    return out;
  };
  return formatCardLines(header, [...there(own, MAX_PROJECT_CARDS), ...there(shared, MAX_SHARED_CARDS)], opts.vaultRoot, opts.maxChars);
}

function rank(type: string): number {
  const at = TYPE_ORDER.indexOf(type.toLowerCase());
  return at < 0 ? TYPE_ORDER.length : at;
}

function count(n: number): string {
  return `${n} card${n === 1 ? "" : "s"}`;
}

/**
 * How often recall printed each card, from the recall log's lines (see usage-log.ts). Lines that
 * do not parse are passed over: the log is appended by parallel hooks and may end mid-line.
 */
export function usageCounts(logText: string): Map<string, number> {
  const uses = new Map<string, number>();
  for (const line of logText.split("\n")) {
    if (!line.startsWith("{")) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const cards = (entry as { cards?: unknown }).cards;
    if (!Array.isArray(cards)) continue;
    for (const c of cards) {
      const path = (c as { path?: unknown } | null)?.path;
      if (typeof path === "string") uses.set(path, (uses.get(path) ?? 0) + 1);
    }
  }
  return uses;
}
