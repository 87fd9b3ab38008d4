/** Runs the lint rules over a vault, and turns findings into a report a person can read. */

import { closeSync, type Stats } from "node:fs";
import { openRegularFile, readAt, readAtAsync } from "../io/read-file";
import { parseCard, type Card } from "../card/card";
import { vaultFiles } from "../paths";
import { olderUsageLog, USAGE_LOG_ROTATE_BYTES } from "../recall/usage-log";
import { SnapshotReader } from "../snapshot/read";
import { escapeControl } from "../text/visible";
import { isCard, listMarkdown, readNote, type NoteFile, type ScopeRules, type SkippedNote } from "../vault/scan";
import { NoteCache } from "../vault/note-cache";
import { alikeCounts, conflictFamilies, type ConflictFamily } from "../vault/conflicts";
import { tokenize } from "../text/tokenizer";
import { graphSteps } from "./graph";
import { RULES } from "./rules";
import type { SecretScan } from "./secrets";
import { DEFAULT_LINT_SETTINGS, type Finding, type LintContext, type LintSettings, type Severity } from "./types";

export const SEVERITY_ORDER: readonly Severity[] = ["error", "warning", "info", "suggestion"];

export interface LintInput {
  cards: readonly Card[];
  text: ReadonlyMap<string, string>;
  settings?: LintSettings;
  snapshot?: LintContext["snapshot"];
  recallLog?: LintContext["recallLog"];
  now?: number;
  secretScans?: LintContext["secretScans"];
  scope?: LintScope;
}

/**
 * What lint reports on: every note is still read, so that a card's links to notes outside the
 * memory folder resolve, but findings are kept for the notes `reports` accepts alone.
 */
export interface LintScope {
  reports: (path: string) => boolean;
  /** Where the card folders are: see inCardFolder. */
  memoryFolder: string;
}

/** The memory folder's cards and the root MEMORY.md the digest writes. */
export function lintScope(config: ScopeRules & { index: { synonymsNote: string } }): LintScope {
  return { reports: (path) => path === "MEMORY.md" || isCard(path, config), memoryFolder: config.memoryFolder };
}

/**
 * Where lintVault gets the notes' texts, and their secret scans if it has them: by default it
 * reads each note itself and the rule scans it. Reading and scanning are more than half of lint's
 * work on a large vault and need nothing of the rest, so a source may do both on another thread
 * while lint parses what it has been given.
 */
export interface NoteSource {
  /** The text of the i-th file, asked for in order: 0, 1, 2, … */
  text(i: number): string;
  /** Scans of the notes it scanned, by path, asked for once, after the last text; the rule scans the others. */
  secretScans(): ReadonlyMap<string, SecretScan>;
}

export type ReadNotes = (files: readonly NoteFile[]) => NoteSource;

/** lintVault's own way: each note read when asked for, and none scanned ahead. */
export const readNotesHere: ReadNotes = (files) => ({ text: (i) => readNote(files[i].abs), secretScans: () => new Map() });

/** All findings, minus disabled rules, excluded folders and rules a card silences for itself. */
export function lint(input: LintInput): Finding[] {
  const steps = lintSteps(input);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/**
 * lint() with a pause after the link graph and after each rule, for a window that must keep
 * painting: on 6,000 notes the rules take about 100 ms together, none more than a fraction.
 */
export async function lintInSlices(input: LintInput, pause: () => Promise<void>): Promise<Finding[]> {
  const steps = lintSteps(input);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await pause();
  }
}

function* lintSteps(input: LintInput): Generator<void, Finding[]> {
  const settings = input.settings ?? DEFAULT_LINT_SETTINGS;
  const excluded = (path: string): boolean => settings.excludeFolders.some((f) => f && (path === f || path.startsWith(f.replace(/\/+$/, "") + "/")));
  const cards = input.cards.filter((c) => !excluded(c.path));
  const graph = yield* graphSteps(cards);
  yield;
  const ctx: LintContext = {
    cards,
    text: input.text,
    graph,
    settings,
    memoryFolder: input.scope?.memoryFolder ?? "",
    snapshot: input.snapshot,
    recallLog: input.recallLog,
    scopeCards: input.cards.filter((c) => c.path !== "MEMORY.md" && (input.scope?.reports(c.path) ?? true)),
    now: input.now ?? Date.now(),
    secretScans: input.secretScans,
    conflicts: once(() => noteConflicts(cards)),
  };
  const silenced = new Map(cards.map((c) => [c.path, ignoredRules(c)]));
  // A sync conflict copy is reported with its family, once: not again for what its original lacks too.
  const copies = new Set(settings.disabled.includes("sync-conflict") ? [] : ctx.conflicts().flatMap((f) => f.copies.map((c) => c.path)));
  yield;
  const findings: Finding[] = [];
  for (const [id, rule] of Object.entries(RULES)) {
    if (settings.disabled.includes(id)) continue;
    for (const f of rule(ctx)) if (!silenced.get(f.file)?.has(f.rule) && !(copies.has(f.file) && f.rule !== "sync-conflict")) findings.push(f);
    yield;
  }
  const reports = input.scope?.reports;
  const kept = reports ? findings.filter((f) => f.file === "" || reports(f.file)) : findings;
  return kept.sort(
    (a, b) =>
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
      a.rule.localeCompare(b.rule) ||
      a.file.localeCompare(b.file) ||
      a.line - b.line,
  );
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The sync conflict families among the notes; a numbered name is a copy when its body has about the same words. */
function noteConflicts(cards: readonly Card[]): ConflictFamily[] {
  const byPath = new Map(cards.map((c) => [c.path, c]));
  const counts = (path: string): Map<string, number> => {
    const out = new Map<string, number>();
    for (const w of tokenize(byPath.get(path)?.body ?? "")) out.set(w, (out.get(w) ?? 0) + 1);
    return out;
  };
  return conflictFamilies(byPath.keys(), (copy, original) => alikeCounts(counts(copy), counts(original)));
}

/** `lint-ignore: [orphan, missing-tags]` in a card's frontmatter silences those rules for it. */
function ignoredRules(card: Card): Set<string> {
  const v = card.frontmatter["lint-ignore"];
  const list = Array.isArray(v) ? v : typeof v === "string" ? v.split(/[,\s]+/) : [];
  return new Set(list.filter((x): x is string => typeof x === "string" && x !== ""));
}

/**
 * Reads the vault from disk, with the snapshot's age and the recall log, and lints it. What is
 * named like a note and cannot be read as one (a FIFO, a link, a huge file) is left out and
 * told to `onSkip`.
 * `readNotes` may be a NoteCache, whose listing, texts and parsed cards are used as they are.
 */
export function lintVault(
  vault: string,
  settings: LintSettings = DEFAULT_LINT_SETTINGS,
  now = Date.now(),
  readNotes: ReadNotes | NoteCache = readNotesHere,
  scope?: LintScope,
  onSkip?: (s: SkippedNote) => void,
): Finding[] {
  const cards: Card[] = [];
  const text = new Map<string, string>();
  const cache = readNotes instanceof NoteCache ? readNotes : undefined;
  const files = cache ? cache.list() : listMarkdown(vault, undefined, onSkip);
  const source = cache ? { text: (i: number) => cache.text(files[i]), secretScans: () => new Map<string, SecretScan>() } : (readNotes as ReadNotes)(files);
  files.forEach((f, i) => {
    let t: string;
    try {
      t = source.text(i);
    } catch (err) {
      if (!cache) onSkip?.({ path: f.path, reason: `not read: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    text.set(f.path, t);
    cards.push(cache ? cache.card(f) : parseCard(f.path, t, f.mtime));
  });
  if (cache) for (const s of cache.skipped) onSkip?.(s);
  return lint({
    cards,
    text,
    settings,
    snapshot: snapshotTime(vault),
    recallLog: recallHistory(vault),
    now,
    secretScans: () => source.secretScans(),
    scope,
  });
}

/** When the snapshot was last brought up to the cards (its overlay's time, if any); undefined if there is none, "unreadable" if it is damaged. */
export function snapshotTime(vault: string): LintContext["snapshot"] {
  try {
    const r = SnapshotReader.open(vaultFiles.snapshot(vault));
    r.close();
    return Date.parse(r.writtenAt);
  } catch (err) {
    return (err as { problem?: string }).problem === "missing" ? undefined : "unreadable";
  }
}

export interface RecallHistory {
  /** Last time each card was recalled (epoch ms). */
  last: Map<string, number>;
  /** How many prompts recalled each card. */
  count: Map<string, number>;
  /** The time of the log's first line read (epoch ms): what it can say nothing about came before. */
  first: number;
}

// A line per prompt of about 200 bytes: a quarter of a million prompts. usage-log.ts moves the
// log aside at this size, so each generation is read whole, unless a move failed (see below).
const MAX_USAGE_LOG_BYTES = USAGE_LOG_ROTATE_BYTES;

/** What a process has read of a recall log: the file it was, how far (to the end of a whole line), and what it said. */
interface ReadSoFar {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Its first bytes: a file written again in place keeps its inode, and may keep its size and time. */
  head: Buffer;
  upTo: number;
  /** Whether the reading began past the file's start: it says nothing of what came before. */
  cut: boolean;
  history: RecallHistory;
}

const HEAD_BYTES = 256;

// One reading of each log per process, carried on from where it stopped while the log only grows
// (the hooks append to it): a night asks four times (lint, consolidation, retiring, the index
// page), and Obsidian's lint report on every change, which would parse up to 48 MB each time.
const readSoFar = new Map<string, ReadSoFar>();

// Lines parsed between two pauses when Obsidian reads the log: about 1 MB, a few milliseconds.
const LINES_PER_SLICE = 5000;

/** What reading the log asks of its driver: bytes of the open file, or a pause between slices. */
type HistoryNeed = { read: { fd: number; from: number; size: number } } | { pause: true };

/**
 * What the recall log says about each card; undefined when there is no log yet (or it is not a
 * file). For a command, the digest and the CLI: read and parsed at once.
 */
export function recallHistory(vault: string): RecallHistory | undefined {
  const steps = historySteps(vault);
  let next = steps.next();
  while (!next.done) {
    const need = next.value;
    if (!("read" in need)) next = steps.next();
    else {
      let bytes: Buffer;
      try {
        bytes = readAt(need.read.fd, need.read.from, need.read.size);
      } catch (err) {
        next = steps.throw(err);
        continue;
      }
      next = steps.next(bytes);
    }
  }
  return next.value;
}

/**
 * recallHistory for Obsidian's window: the log read off the main thread and parsed a slice at a
 * time, `pause` between slices, so that a first reading of a large log (up to 48 MB) never holds
 * the window. The same reading: a history either gives is the other's next time.
 */
export async function recallHistoryInSlices(vault: string, pause: () => Promise<void>): Promise<RecallHistory | undefined> {
  const steps = historySteps(vault);
  let next = steps.next();
  while (!next.done) {
    const need = next.value;
    if (!("read" in need)) {
      await pause();
      next = steps.next();
    } else {
      let bytes: Buffer;
      try {
        bytes = await readAtAsync(need.read.fd, need.read.from, need.read.size);
      } catch (err) {
        next = steps.throw(err);
        continue;
      }
      next = steps.next(bytes);
    }
  }
  return next.value;
}

/**
 * The reading itself, one step at a time: the log, then its older generation (usage-log.ts moves
 * a log past 48 MB there), joined.
 */
function* historySteps(vault: string): Generator<HistoryNeed, RecallHistory | undefined, Buffer | undefined> {
  const path = vaultFiles.usageLog(vault);
  const older = olderUsageLog(path);
  // The log first: moved aside between the two readings, it is read again as the older
  // generation and told apart below, so the history is at worst one generation short, never
  // the older generation with the months just moved missing, which would make cards recalled in
  // them look unused.
  const current = yield* fileHistorySteps(path);
  const before = yield* fileHistorySteps(older);
  const [a, b] = [readSoFar.get(path), readSoFar.get(older)];
  if (!current || !before) return current ?? before;
  // A log read from its tail only (it grew past the most a reading takes, its moves refused, as
  // Windows refuses one while the older file is open) does not begin where the older generation
  // ends: joined, the two would vouch for the months between, which were not read.
  if (a?.cut) return current;
  return a && b && a.dev === b.dev && a.ino === b.ino ? current : joinedHistory(before, current);
}

// Each pair of generations' histories joined once: a process asks again while neither changed.
const joined = new WeakMap<RecallHistory, { current: RecallHistory; both: RecallHistory }>();

/** Two generations of the log as one: each card's last recall the later, its count the sum. */
function joinedHistory(older: RecallHistory, current: RecallHistory): RecallHistory {
  const was = joined.get(older);
  if (was?.current === current) return was.both;
  const both: RecallHistory = { last: new Map(older.last), count: new Map(older.count), first: Math.min(older.first, current.first) };
  for (const [path, t] of current.last) if (t > (both.last.get(path) ?? 0)) both.last.set(path, t);
  for (const [path, n] of current.count) both.count.set(path, (both.count.get(path) ?? 0) + n);
  joined.set(older, { current, both });
  return both;
}

/**
 * One generation of the log read, one step at a time: the file opened, what this process read of
 * it before reused, what was appended since asked for, its lines parsed in slices. The open file
 * is closed when the reading ends, however it ends.
 */
function* fileHistorySteps(path: string): Generator<HistoryNeed, RecallHistory | undefined, Buffer | undefined> {
  let opened: { fd: number; st: Stats };
  try {
    opened = openRegularFile(path);
  } catch {
    readSoFar.delete(path);
    return undefined;
  }
  const { fd, st } = opened;
  try {
    const was = readSoFar.get(path);
    const head = readAt(fd, 0, Math.min(HEAD_BYTES, st.size));
    const same = was !== undefined && was.dev === st.dev && was.ino === st.ino && st.size >= was.size && head.subarray(0, was.head.length).equals(was.head);
    if (same && was.size === st.size && was.mtimeMs === st.mtimeMs) return was.history;
    // The same file, grown by appends: only what was added is read.
    const grown = same && st.size - was.upTo <= MAX_USAGE_LOG_BYTES;
    const from = grown ? was.upTo : Math.max(0, st.size - MAX_USAGE_LOG_BYTES);
    const bytes = (yield { read: { fd, from, size: st.size - from } })!;
    // Whole lines only: the last may be an append still being written, read when it is whole. A
    // tail's first line is cut.
    const start = !grown && from > 0 ? bytes.indexOf(0x0a) + 1 : 0;
    const end = bytes.lastIndexOf(0x0a) + 1;
    // A history handed out is never changed after: its caller may still be reading it.
    const history: RecallHistory = !grown
      ? { last: new Map(), count: new Map(), first: Infinity }
      : end > start
        ? { last: new Map(was.history.last), count: new Map(was.history.count), first: was.history.first }
        : was.history;
    if (end > start) {
      const lines = bytes.subarray(start, end).toString("utf8").split("\n");
      for (let at = 0; at < lines.length; at += LINES_PER_SLICE) {
        if (at > 0) yield { pause: true };
        addLines(history, lines.slice(at, at + LINES_PER_SLICE));
      }
    }
    readSoFar.set(path, {
      dev: st.dev,
      ino: st.ino,
      size: st.size,
      mtimeMs: st.mtimeMs,
      head,
      upTo: from + Math.max(end, start),
      cut: grown ? was.cut : from > 0,
      history,
    });
    return history;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function addLines(history: RecallHistory, lines: readonly string[]): void {
  for (const line of lines) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as { t?: string; cards?: { path?: string }[] };
      const t = Date.parse(e.t ?? "");
      if (t < history.first) history.first = t;
      for (const c of e.cards ?? []) {
        if (typeof c.path !== "string") continue;
        if (t > (history.last.get(c.path) ?? 0)) history.last.set(c.path, t);
        history.count.set(c.path, (history.count.get(c.path) ?? 0) + 1);
      }
    } catch {
      /* a torn line */
    }
  }
}

/**
 * The readable report: grouped by severity, then rule, with counts. One finding a line: paths and
 * messages (which quote names, headings and links) are shown with control characters escaped.
 */
export function formatReport(findings: readonly Finding[]): string {
  if (findings.length === 0) return "No problems found.\n";
  const lines: string[] = [];
  const counts = SEVERITY_ORDER.map((s) => [s, findings.filter((f) => f.severity === s).length] as const).filter(([, n]) => n > 0);
  lines.push(counts.map(([s, n]) => `${n} ${s}${n === 1 || s === "info" ? "" : "s"}`).join(", "));
  for (const severity of SEVERITY_ORDER) {
    const group = findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    const rules = [...new Set(group.map((f) => f.rule))];
    for (const rule of rules) {
      const items = group.filter((f) => f.rule === rule);
      lines.push("", `${severity.toUpperCase()} ${rule} (${items.length})`);
      for (const f of items)
        lines.push(
          `  ${escapeControl(f.file) || "(vault)"}${f.line > 0 ? `:${f.line}` : ""}  ${escapeControl(f.message)}${f.fix ? "  [fix in Obsidian]" : ""}`,
        );
    }
  }
  // Fixes go through Obsidian (processFrontMatter, renames that update links), which a terminal
  // does not have; the report says where they are rather than offering what it cannot do.
  const fixable = findings.filter((f) => f.fix).length;
  if (fixable > 0) lines.push("", `${fixable} of these can be fixed from Obsidian: Vault Memory: Open lint report.`);
  return lines.join("\n") + "\n";
}
