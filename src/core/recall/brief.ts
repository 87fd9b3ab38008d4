/**
 * The session brief: what the memory holds for the project a session starts in, a few lines that
 * Claude reads once at the start instead of learning of the memory only when a prompt happens to
 * match. Claude Code's own MEMORY.md does the same for its notes; this one is scoped to the
 * project and bounded, and names the most used cards rather than all of them.
 */

import { isVaultPage } from "../card/schema";
import type { DocInfo } from "../index/postings";
import { formatCardLines } from "./recall";
import { BRIEF_HEADER } from "../text/recall-header";
import { instructionIn } from "../text/instructions";

/**
 * A card as the brief sees it: what picks and counts it, and its row, read only for the few it
 * names (a vault of 50,000 cards is counted from the snapshot's catalog, not its rows).
 */
export interface BriefCard {
  project: string;
  type: string;
  /** Epoch ms. */
  updated: number;
  /** How often recall printed it lately (see usageCounts). */
  uses: number;
  /** Its path and description, or undefined when it cannot be read. */
  row: () => Pick<DocInfo, "path" | "description"> | undefined;
}

export interface BriefOptions {
  /** The project the session starts in (resolveProject); "" outside any. */
  project: string;
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
 * the rest. "" when the memory holds nothing for the session. `cards` in a stable order (the
 * snapshot's), which breaks the last ties.
 */
export function sessionBrief(cards: Iterable<BriefCard>, opts: BriefOptions): string {
  const project = opts.project.toLowerCase();
  const own: BriefCard[] = [];
  const shared: BriefCard[] = [];
  for (const card of cards) {
    // Overview and meta pages are no card to brief, nor to count.
    if (isVaultPage(card.type)) continue;
    const theirs = card.project.toLowerCase();
    if (!theirs) shared.push(card);
    else if (!project || theirs === project) own.push(card);
  }
  if (own.length + shared.length === 0) return "";
  // A stable sort: equal cards keep the snapshot's order, which is by path.
  const byUse = (a: BriefCard, b: BriefCard): number => b.uses - a.uses || rank(a.type) - rank(b.type) || b.updated - a.updated;
  own.sort(byUse);
  shared.sort(byUse);
  const where = project
    ? `holds ${count(own.length)} for the project ${opts.project} and ${count(shared.length)} for every project`
    : `holds ${count(own.length + shared.length)}`;
  const header = `${BRIEF_HEADER} ${where}. The most used, one line each; search_memory finds the rest and read_card opens one:`;
  const there = (list: BriefCard[], max: number): Pick<DocInfo, "path" | "description">[] => {
    const out: Pick<DocInfo, "path" | "description">[] = [];
    for (const card of list) {
      if (out.length >= max) break;
      const row = card.row();
      // A card that reads as orders to an assistant is not handed to every session (lint says why).
      if (row && (!opts.exists || opts.exists(row.path)) && instructionIn(`${row.path}\n${row.description}`) === undefined) out.push(row);
    }
    return out;
  };
  // A card of no project reaches every session of every project: one that has just arrived (a
  // sync, a teammate's push, a card written from a hostile conversation) is named there only once
  // a prompt has recalled it, unless it says how the person wants things done. Counted all the same.
  const everywhere = project ? shared.filter((c) => c.uses > 0 || c.type === "user" || c.type === "feedback") : shared;
  return formatCardLines(header, [...there(own, MAX_PROJECT_CARDS), ...there(everywhere, MAX_SHARED_CARDS)], opts.vaultRoot, opts.maxChars);
}

/** Brief cards from cards whose rows are at hand (a live index, a test). */
export function briefCardsOf(cards: Iterable<DocInfo>, uses: ReadonlyMap<string, number>): BriefCard[] {
  return [...cards].map((c) => ({ project: c.project, type: c.type, updated: c.updated, uses: uses.get(c.path) ?? 0, row: () => c }));
}

function rank(type: string): number {
  const at = TYPE_ORDER.indexOf(type.toLowerCase());
  return at < 0 ? TYPE_ORDER.length : at;
}

function count(n: number): string {
  // "holds no cards for the project x", as a person would say it, not "0 cards".
  return n === 0 ? "no cards" : `${n} card${n === 1 ? "" : "s"}`;
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
