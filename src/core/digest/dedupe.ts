/**
 * Check before creating: a new card that an existing one already holds is not written beside it.
 * The nightly digest and write_card ask this of every "create"; the answer is the existing card
 * extended with what it lacks, or nothing written, with the reason (the report says which).
 */

import { baseName } from "../card/card";
import { closesFence, opensFence } from "../card/markdown";
import { isRetired, isVaultPage } from "../card/schema";
import { isCard, type VaultMemoryConfig } from "../config";
import type { NoteCache } from "../vault/note-cache";
import { containment, NearDuplicateIndex } from "../queue/near-duplicates";
import type { DigestAction } from "./answer";

// A new card whose text is this much one card's already is that card again (the second source
// article's "update, do not add", measured by character shingles so that it holds for Chinese).
export const DUPLICATE_SHARE = 0.8;
// A paragraph this much in the card already adds nothing to it.
const PARAGRAPH_SHARE = 0.8;
// A card of the same name, or one the same conversation made before, is the same subject once
// this little of the new text is in it (a rewording by the model shares less than a copy does).
const SAME_SUBJECT_SHARE = 0.15;

export interface ExistingCard {
  path: string;
  /** The card's name (frontmatter `name`, else its file name). */
  name: string;
  /** Its whole text, frontmatter included. */
  text: string;
}

export interface DuplicateOf {
  /** The card that already holds the subject. */
  path: string;
  /** How much of the new card's text it held, 0 to 1. */
  share: number;
  /** Why it counts as the same card. */
  why: "text" | "name" | "same conversation" | "meaning";
}

export type Checked = { action: DigestAction; duplicateOf?: DuplicateOf };

/**
 * The cards' shingles, read once a run and told of each card written since, so that a night of
 * twenty conversations reads the vault once.
 */
export class ExistingCards {
  private readonly index = new NearDuplicateIndex();
  private readonly byPath = new Map<string, ExistingCard>();

  constructor(cards: Iterable<ExistingCard>) {
    for (const c of cards) this.set(c);
  }

  /** A card written or extended since: its new text replaces the old in what is compared. */
  set(card: ExistingCard): void {
    this.byPath.set(card.path, card);
    this.index.add(card.path, card.text);
  }

  get(path: string): ExistingCard | undefined {
    return this.byPath.get(path);
  }

  /** The card holding the most of `text`, at `threshold` or more. */
  holding(text: string, threshold: number): { path: string; share: number } | undefined {
    const hit = this.index.find(text, threshold);
    return hit ? { path: hit.path, share: hit.containment } : undefined;
  }

  get paths(): string[] {
    return [...this.byPath.keys()];
  }
}

/** The memory's live cards, as the check before creating compares them: not retired, not overview or meta pages. */
export function existingCards(notes: NoteCache, config: VaultMemoryConfig): ExistingCards {
  const cards: ExistingCard[] = [];
  for (const f of notes.list((p) => isCard(p, config))) {
    try {
      const card = notes.card(f);
      if (!isRetired(card.status) && !isVaultPage(card.type)) cards.push({ path: f.path, name: card.name, text: notes.text(f) });
    } catch {
      /* a note that cannot be read is no card to compare with */
    }
  }
  return new ExistingCards(cards);
}

/**
 * `action`, or, when it would create a card that exists already, the append of what that card
 * lacks (or a skip when it lacks nothing). The same card is one holding DUPLICATE_SHARE of the new
 * text; or one of the same name or file name in the same folder, or one this conversation created
 * before (`ownCards`), holding at least a little of it; or, failing those, the card meaning alone
 * finds it to be (`byMeaning`, see meaningTwin).
 */
export function checkBeforeCreate(action: DigestAction, existing: ExistingCards, ownCards: readonly string[] = [], byMeaning?: string): Checked {
  if (action.action !== "create") return { action };
  const text = `${action.frontmatter.name}\n${action.frontmatter.description}\n${action.body}`;
  // The card semantic recall finds the new one to mean, as no other, when words find none.
  const twin = byMeaning !== undefined ? existing.get(byMeaning) : undefined;
  const duplicateOf =
    sameCard(action, text, existing, ownCards) ?? (twin ? { path: twin.path, share: containment(action.body, twin.text), why: "meaning" as const } : undefined);
  if (!duplicateOf) return { action };
  const card = existing.get(duplicateOf.path)!;
  const lacking = paragraphs(action.body).filter((p) => containment(p, card.text) < PARAGRAPH_SHARE);
  if (lacking.length === 0) {
    const pct = Math.round(duplicateOf.share * 100);
    return { action: { action: "skip", reason: `already in ${duplicateOf.path} (${pct}% of the new card's text is there)` }, duplicateOf };
  }
  return {
    action: {
      action: "append",
      target: duplicateOf.path,
      section: lacking.join("\n\n"),
      related: action.related,
      ...(action.synonyms ? { synonyms: action.synonyms } : {}),
      ...(action.questions ? { questions: action.questions } : {}),
    },
    duplicateOf,
  };
}

function sameCard(
  action: Extract<DigestAction, { action: "create" }>,
  text: string,
  existing: ExistingCards,
  ownCards: readonly string[],
): DuplicateOf | undefined {
  const byText = existing.holding(text, DUPLICATE_SHARE);
  if (byText) return { ...byText, why: "text" };
  const name = action.frontmatter.name.trim().toLowerCase();
  const file = action.fileName.toLowerCase();
  let best: DuplicateOf | undefined;
  for (const path of existing.paths) {
    const card = existing.get(path)!;
    const own = ownCards.includes(path);
    const named = card.name.trim().toLowerCase() === name || (folderOf(path).endsWith(action.folder) && baseName(path).toLowerCase() === file);
    if (!own && !named) continue;
    // The body alone: a name and a description shared say nothing of whether the text is the same.
    const share = containment(action.body, card.text);
    if (share >= SAME_SUBJECT_SHARE && (!best || share > best.share)) best = { path, share, why: own ? "same conversation" : "name" };
  }
  return best;
}

const folderOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf("/")));

/** The body's paragraphs, a fenced block kept whole, headings kept with what follows them. */
function paragraphs(body: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fence = "";
  const flush = (): void => {
    const p = current.join("\n").trim();
    if (p) out.push(p);
    current = [];
  };
  for (const line of body.split("\n")) {
    if (fence !== "") {
      current.push(line);
      if (closesFence(line, fence)) fence = "";
      continue;
    }
    fence = opensFence(line);
    if (line.trim() === "" && fence === "") {
      // A heading alone is no paragraph: it stays with the text under it.
      if (current.every((l) => /^#{1,6}\s/.test(l.trim()) || l.trim() === "")) continue;
      flush();
      continue;
    }
    current.push(line);
  }
  flush();
  return out;
}
