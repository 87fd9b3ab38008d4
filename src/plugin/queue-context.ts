/** What the queue sidebar's parts share: what they need of the plugin and of the view, and small helpers. */

import type { App } from "obsidian";
import type { VaultMemoryConfig } from "../core/config";
import type { PostingSource } from "../core/index/postings";
import type { Candidate } from "../core/queue/extract";
import type { NearDuplicateIndex } from "../core/queue/near-duplicates";
import type { QueueEntry } from "../core/queue/queue-store";
import type { SimilarCard } from "../core/recall/similar";
import { exactTime, relativeTime } from "../core/text/wording";

/** What the sidebar needs from the plugin. */
export interface QueueViewHost {
  /** Which notes are cards: the index and settings notes are not worth appending to. */
  isCard: (path: string) => boolean;
  settings: () => VaultMemoryConfig;
  /** The live index, so similar cards are found as recall finds them. */
  index: () => PostingSource;
  /** Resolves once the live index has caught up with what was asked of it so far. */
  indexed: () => Promise<void>;
  /** The digest's LLM path for one entry. */
  digestOne?: (sessionId: string) => Promise<unknown>;
  /** With semantic recall on: similar cards with meaning fused in, or undefined to keep the word ones. */
  similarWithMeaning?: (text: string, meaning: string, limit: number) => Promise<SimilarCard[] | undefined>;
  /** Runs the installed hook as Claude Code would, and says whether it answered. */
  checkConnection?: () => void;
}

/** What the view knows of the cards, read through Obsidian's cache (see QueueReviewView.reloadIndexes). */
export interface CardIndexes {
  duplicates: NearDuplicateIndex;
  /** The heading new related sections get (see relatedHeading). */
  heading: string;
}

/** The list's parts shown collapsed at first. */
export type QueueListPart = "handled" | "imported";

/** What the list, the entry and the actions need of the view that draws them. */
export interface QueueContext {
  readonly app: App;
  readonly vaultPath: string;
  readonly host: QueueViewHost;
  /** Takes the queue on disk as seen, and draws the view again: after the queue changed here. */
  refresh(): void;
  /** Shows one entry. */
  open(sessionId: string): void;
  /** Back from an entry to the list. */
  back(): void;
  /** Whether a collapsible part of the list is expanded: the handled conversations, the imported ones. */
  isOpen(part: QueueListPart): boolean;
  /** Expands or collapses it, and draws the view again. */
  showPart(part: QueueListPart, open: boolean): void;
  isTicked(key: string): boolean;
  tick(key: string, on: boolean): void;
  /** The entry's conversation, or "" when it cannot be read. */
  inbox(e: QueueEntry): string;
  /** The card indexes, read again first (in the background) when cards changed. */
  cardIndexes(): CardIndexes;
  /** Cards to append the entry to, by words, then with meaning fused in once the server answers. */
  suggestions(e: QueueEntry, subject: string, firstPrompt: string): SimilarCard[];
  /** A link to a card, as Obsidian shows links. */
  cardLink(parent: HTMLElement, path: string): HTMLElement;
  /** Fills a form field from what was typed before this redraw, and remembers what is typed now. */
  keepDraft<T extends HTMLInputElement | HTMLSelectElement>(e: QueueEntry, key: string, field: T, initial: string): T;
  /** Moves the entry to the handled list, says so, and shows the list. */
  finish(e: QueueEntry, outcome: { action: string; detail: string }): void;
}

export function candidateKey(c: Candidate): string {
  return `${c.kind}\u0000${c.turn}\u0000${c.text}`;
}

/** The entry's candidates the person ticked. */
export function tickedOf(e: QueueEntry, ctx: QueueContext): Candidate[] {
  return e.candidates.filter((c) => ctx.isTicked(candidateKey(c)));
}

/** A time as people say it ("3 hours ago"), the exact one on hover. */
export function timeSpan(parent: HTMLElement, iso: string): void {
  const when = Date.parse(iso);
  if (!Number.isFinite(when)) return void parent.appendText(iso || "unknown time");
  parent.createEl("time", {
    text: relativeTime(when),
    attr: { datetime: new Date(when).toISOString(), title: exactTime(when), "aria-label": exactTime(when) },
  });
}
