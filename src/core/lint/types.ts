/** What a lint rule reports, and what it is given to look at. */

import type { Card } from "../card/card";
import type { UseLog } from "./unused";
import type { SecretScan } from "./secrets";
import type { ConflictFamily } from "../vault/conflicts";

export type Severity = "error" | "warning" | "info" | "suggestion";

/** A change that is safe to make without asking what the person meant. */
export type LintFix =
  | { kind: "add-empty-tags" }
  | { kind: "add-link-back"; target: string }
  | { kind: "move-to-folder"; folder: string }
  /** `to`: the path with each run of control characters made a space, at a name no other note has. */
  | { kind: "rename"; to: string }
  /** `reason` goes in the card's `archived-reason`. */
  | { kind: "archive"; reason: string }
  /** The finding's note stays; each of its sync conflict copies moves `from` → `to` (under ASIDE_DIR). */
  | { kind: "move-aside"; moves: { from: string; to: string }[] };

export interface Finding {
  rule: string;
  severity: Severity;
  /** Vault-relative path; "" for findings about the vault as a whole. */
  file: string;
  /** 1-based line in the file; 0 when the finding is about the whole file. */
  line: number;
  message: string;
  fix?: LintFix;
}

export interface LintSettings {
  /** Rule ids that are turned off. */
  disabled: string[];
  excludeFolders: string[];
  /** A section longer than this many characters suggests a split. */
  maxSectionChars: number;
  /** Cards not recalled for this many days are reported as unused. */
  unusedDays: number;
}

export const DEFAULT_LINT_SETTINGS: LintSettings = { disabled: [], excludeFolders: ["meta/digest"], maxSectionChars: 3000, unusedDays: 90 };

/** Everything the rules may look at: the parsed notes, their link graph, and the hidden folder's state. */
export interface LintContext {
  cards: readonly Card[];
  /** Raw text by path, for rules that look at lines. */
  text: ReadonlyMap<string, string>;
  graph: LinkGraph;
  settings: LintSettings;
  /** The memory folder ("" for the whole vault): card folders and "the root" are inside it. */
  memoryFolder: string;
  /** Epoch ms of the snapshot's creation, or undefined if there is none; "unreadable" if it cannot be read. */
  snapshot: number | "unreadable" | undefined;
  /** What the recall log says of each card's last use, and where it begins; undefined if there is no log. */
  recallLog: UseLog | undefined;
  /**
   * The notes the nightly archiving judges and whose links it follows: the scope's cards, those
   * in lint's own excluded folders too (see unusedCard).
   */
  scopeCards: readonly Card[];
  now: number;
  /** The notes' sync conflict families (see vault/conflicts.ts), worked out when first asked for. */
  conflicts: () => readonly ConflictFamily[];
  /** Notes already scanned for secrets, by path (see NoteSource), asked for when the rule runs; the rule scans the rest. */
  secretScans?: () => ReadonlyMap<string, SecretScan>;
}

export interface LinkGraph {
  /** Resolved outgoing links: path → paths. */
  out: ReadonlyMap<string, ReadonlySet<string>>;
  /** Resolved incoming links: path → paths. */
  in: ReadonlyMap<string, ReadonlySet<string>>;
  /** Links whose target is no note: target → the cards that mention it (with lines). */
  missing: ReadonlyMap<string, { file: string; line: number }[]>;
  resolve(target: string, from?: string): string | undefined;
}

export type Rule = (ctx: LintContext) => Finding[];
