/** The pure half of reviewing the queue by hand: summaries, merged candidates, card drafts, appends. */

import { composeCard, type ComposedCard } from "../card/compose";
import { appendDated } from "../card/related";
import { FOLDER_OF_TYPE } from "../card/schema";
import { slugify } from "../card/slug";
import type { Candidate, CandidateKind } from "./extract";
import type { QueueEntry } from "./queue-store";

export const CANDIDATE_KINDS: readonly CandidateKind[] = ["code", "decision", "constraint", "todo", "fact"];

export interface EntrySummary {
  entry: QueueEntry;
  firstPrompt: string;
  counts: Record<CandidateKind, number>;
}

export function summarize(entry: QueueEntry, inbox: string): EntrySummary {
  const counts = Object.fromEntries(CANDIDATE_KINDS.map((k) => [k, 0])) as Record<CandidateKind, number>;
  for (const c of entry.candidates) counts[c.kind]++;
  const m = /## User \(turn \d+\)\n\n([\s\S]*?)(?:\n## |$)/.exec(inbox);
  const firstPrompt = (m?.[1] ?? "").replace(/\s+/g, " ").trim();
  return { entry, firstPrompt, counts };
}

/** Newest first: the conversation you just had is the one you remember best. */
export function newestFirst(a: QueueEntry, b: QueueEntry): number {
  return (b.lastTimestamp || b.updatedAt).localeCompare(a.lastTimestamp || a.updatedAt);
}

export interface MergedCandidate extends Candidate {
  /** Sessions whose queue entries hold this same candidate. */
  sessions: string[];
}

/** Identical candidates across entries, shown once with every session that holds them. */
export function mergeCandidates(entries: readonly QueueEntry[]): MergedCandidate[] {
  const byKey = new Map<string, MergedCandidate>();
  for (const e of entries) {
    for (const c of e.candidates) {
      const key = `${c.kind}\u0000${c.text.trim()}`;
      const seen = byKey.get(key);
      if (seen) {
        if (!seen.sessions.includes(e.sessionId)) seen.sessions.push(e.sessionId);
      } else byKey.set(key, { ...c, sessions: [e.sessionId] });
    }
  }
  return [...byKey.values()];
}

export interface CardDraft {
  type: string;
  name: string;
  description: string;
  tags: string[];
  project: string;
  sessionId: string;
  candidates: readonly Candidate[];
  /** Vault-relative paths of the cards to link in the related section; each links back. */
  related: readonly string[];
  /** The related section's heading (see relatedHeading). */
  heading: string;
}

/** The new card in the card schema, at a free path among `notes`, and the edits that link its related cards back. */
export function draftCard(d: CardDraft, date: string, notes: readonly string[], exists?: (path: string) => boolean): ComposedCard {
  return composeCard(
    {
      folder: FOLDER_OF_TYPE[d.type] ?? "reference",
      fileName: slugify(d.name),
      fields: { ...d, date },
      body: [`# ${d.name}`, "", ...candidateLines(d.candidates)].join("\n"),
      related: d.related,
      heading: d.heading,
    },
    notes,
    exists,
  );
}

/** What a queued conversation is about, to find similar cards: its start and its candidates. */
export function entrySubject(entry: QueueEntry, conversation: string): string {
  // Long conversations would make every card look similar; their first words set the subject.
  return `${conversation.slice(0, 3000)}\n${entry.candidates.map((c) => c.text).join("\n")}`;
}

/** Appends the candidates as a dated section; what the person wrote is never rewritten. */
export function appendSection(text: string, date: string, candidates: readonly Candidate[], sessionId: string, heading?: string): string {
  return appendDated(text, date, candidateLines(candidates).join("\n"), sessionId, heading);
}

function candidateLines(candidates: readonly Candidate[]): string[] {
  return candidates.map((c) => (c.kind === "code" ? `\n${c.text}\n` : `- ${c.kind === "fact" ? "" : `**${c.kind}:** `}${c.text}`));
}
