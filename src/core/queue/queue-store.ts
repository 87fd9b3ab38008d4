/** The capture queue on disk: one entry and one inbox file per session, under the hidden folder. */

import { isSafeSessionId } from "../session-id";
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync } from "node:fs";
import { withFileLock } from "../io/file-lock";
import { readTextFile } from "../io/read-file";
import { join } from "node:path";
import { writeFileAtomic, writeFileExclusive } from "../io/atomic";
import { HIDDEN_DIR, vaultFiles } from "../paths";
import type { Candidate } from "./extract";

export const QUEUE_VERSION = 1;

export interface QueueEntry {
  version: number;
  sessionId: string;
  project: string;
  cwd: string;
  gitBranch: string;
  firstTimestamp: string;
  lastTimestamp: string;
  prompts: number;
  assistantChars: number;
  transcriptPath: string;
  /** Vault-relative path of the condensed conversation. */
  inbox: string;
  candidates: Candidate[];
  queuedAt: string;
  updatedAt: string;
  /** Set by "remember this": the digest must not skip it. */
  wanted?: boolean;
  /**
   * Queued mid-turn ("remember this", the remember tool), before the turn's reply was written: the
   * Stop hook completes the entry whatever the thresholds, and clears this.
   */
  awaitingReply?: boolean;
  /** When an earlier version of this session was handled; the session has grown since. */
  resumedAfter?: string;
  /** What the person (through Claude) asked to keep, in their words, already sanitised. */
  note?: string;
  /** The card they want it kept in, if they named one. */
  noteCard?: string;
  /**
   * Set by a digest whose answer would have written text that reads as instructions to an
   * assistant: the entry waits for the person in the queue sidebar, and later nights pass it by.
   */
  held?: { reason: string; at: string };
  /**
   * When `import` queued it from a session before the install. The digest takes these after the
   * day's own conversations, newest first, so a backlog never holds up what was just learned.
   */
  imported?: string;
}

export interface HandledEntry extends QueueEntry {
  handledAt: string;
  /** What was done: a card path created or extended, "skipped", and why. */
  outcome: { action: string; detail: string };
}

export const queueDirs = {
  pending: vaultFiles.queuePending,
  handled: vaultFiles.queueHandled,
  inbox: vaultFiles.inbox,
};

export { isSafeSessionId };

export function pendingPath(vault: string, sessionId: string): string {
  return join(queueDirs.pending(vault), `${sessionId}.json`);
}

export function handledPath(vault: string, sessionId: string): string {
  return join(queueDirs.handled(vault), `${sessionId}.json`);
}

export function inboxRelPath(sessionId: string): string {
  return `${HIDDEN_DIR}/inbox/${sessionId}.md`;
}

// A queue write takes milliseconds; a lock older than this was left by a process that died.
const SESSION_LOCK_STALE_MS = 10_000;
// Within the Stop hook's 30 s: a wait this long means the holder is stuck, not busy.
const SESSION_LOCK_WAIT_MS = 12_000;

/** Runs `fn` holding the session's queue lock, a file beside its entry (see withFileLock). */
export function withSessionLock<T>(vault: string, sessionId: string, fn: () => T): T {
  return withFileLock(`${pendingPath(vault, sessionId)}.lock`, fn, {
    staleMs: SESSION_LOCK_STALE_MS,
    waitMs: SESSION_LOCK_WAIT_MS,
    what: `session ${sessionId}`,
  });
}

// An entry is a few kilobytes: its candidates are a few lines each, its conversation is in the inbox.
const MAX_ENTRY_BYTES = 4 << 20;

/** The entry at `path`; undefined when it is missing, damaged, or not a regular file of an entry's size. */
export function readEntry<T extends QueueEntry = QueueEntry>(path: string): T | undefined {
  try {
    const e = JSON.parse(readTextFile(path, { maxBytes: MAX_ENTRY_BYTES })) as T;
    return e && typeof e === "object" && typeof e.sessionId === "string" ? e : undefined;
  } catch {
    return undefined;
  }
}

// The condensed conversation capture writes: at most 4 million characters of turns.
const MAX_INBOX_BYTES = 32 << 20;

/** An entry's condensed conversation; throws, saying why, when it is missing or not a regular file of an inbox's size. */
export function readInbox(vault: string, entry: QueueEntry): string {
  return readTextFile(join(vault, entry.inbox), { maxBytes: MAX_INBOX_BYTES });
}

/** Writes the inbox first and the entry last, so an entry never points at a missing inbox. */
export function writePending(vault: string, entry: QueueEntry, condensed: string): void {
  writeFileAtomic(join(vault, entry.inbox), condensed);
  writeFileAtomic(pendingPath(vault, entry.sessionId), JSON.stringify(entry, null, 2) + "\n");
}

export function listPending(vault: string): QueueEntry[] {
  const dir = queueDirs.pending(vault);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => readEntry(join(dir, f)))
    .filter((e): e is QueueEntry => e !== undefined)
    .sort((a, b) => (a.queuedAt < b.queuedAt ? -1 : a.queuedAt > b.queuedAt ? 1 : 0));
}

/**
 * The order the digest takes entries in: the day's own conversations first, oldest queued first;
 * then the imported history, its newest sessions first, since those are likeliest still true.
 */
export function digestOrder(entries: readonly QueueEntry[]): QueueEntry[] {
  const live = entries.filter((e) => !e.imported);
  const imported = entries.filter((e) => e.imported).sort((a, b) => b.lastTimestamp.localeCompare(a.lastTimestamp) || a.sessionId.localeCompare(b.sessionId));
  return [...live, ...imported];
}

/**
 * Moves an entry to the handled area with what was done; nothing is deleted. `done` is the entry
 * as it was when the work began: a digest waits minutes for the LLM, and a session that grew
 * meanwhile (the Stop hook rewrote its entry) must stay queued for its new turns, with the
 * handled record saying what was filed.
 */
export function markHandled(vault: string, sessionId: string, outcome: HandledEntry["outcome"], now = new Date(), done?: QueueEntry): void {
  withSessionLock(vault, sessionId, () => {
    const entry = readEntry(pendingPath(vault, sessionId));
    if (!entry) throw new Error(`no pending entry for session ${sessionId}`);
    const grew = done !== undefined && (entry.updatedAt !== done.updatedAt || entry.prompts !== done.prompts);
    const handled: HandledEntry = { ...(grew ? done : entry), handledAt: now.toISOString(), outcome };
    mkdirSync(queueDirs.handled(vault), { recursive: true });
    // A session filed before (it went on, and was queued again) keeps the record of that filing,
    // moved aside: what was done is history, never written over.
    keepAside(handledPath(vault, sessionId), now);
    writeFileAtomic(handledPath(vault, sessionId), JSON.stringify(handled, null, 2) + "\n");
    if (grew) writeFileAtomic(pendingPath(vault, sessionId), JSON.stringify({ ...entry, resumedAfter: handled.handledAt }, null, 2) + "\n");
    else {
      keepAside(pendingPath(vault, sessionId) + ".handled", now);
      renameSync(pendingPath(vault, sessionId), pendingPath(vault, sessionId) + ".handled");
    }
  });
}

/**
 * Moves the record at `path`, if any, to a name of its own beside it (`.filed-<time>`). Only a
 * file: something else standing there (a folder, a link) is not a record of ours, and the write
 * after fails on it, saying so, as before.
 */
function keepAside(path: string, now: Date): void {
  try {
    if (!lstatSync(path).isFile()) return;
  } catch {
    return; // nothing there
  }
  let aside = `${path}.filed-${now.getTime()}`;
  for (let n = 1; existsSync(aside); n++) aside = `${path}.filed-${now.getTime()}-${n}`;
  renameSync(path, aside);
}

/** Marks a pending entry as held for the person's review, with why (see QueueEntry.held). */
export function holdEntry(vault: string, sessionId: string, reason: string, now = new Date()): void {
  withSessionLock(vault, sessionId, () => {
    const entry = readEntry(pendingPath(vault, sessionId));
    if (!entry) throw new Error(`no pending entry for session ${sessionId}`);
    writeFileAtomic(pendingPath(vault, sessionId), JSON.stringify({ ...entry, held: { reason, at: now.toISOString() } }, null, 2) + "\n");
  });
}

export function listHandled(vault: string): HandledEntry[] {
  const dir = queueDirs.handled(vault);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => readEntry<HandledEntry>(join(dir, f)))
    .filter((e): e is HandledEntry => e !== undefined && typeof e.handledAt === "string")
    .sort((a, b) => b.handledAt.localeCompare(a.handledAt));
}

/**
 * Puts a handled entry back in the queue. The handled record is kept beside it, renamed, so the
 * history of what was done is never lost. When the session went on after it was handled and is
 * queued again, that entry is newer (more of the conversation, a note or "remember this" given
 * since) and stays as it is: the restore is then done already, and replacing it would lose them.
 */
export function restoreHandled(vault: string, sessionId: string, now = new Date()): QueueEntry {
  const record = readEntry<HandledEntry>(handledPath(vault, sessionId));
  if (!record) throw new Error(`no handled entry for session ${sessionId}`);
  const { handledAt, outcome, ...entry } = record;
  void handledAt;
  void outcome;
  const restored: QueueEntry = { ...entry, updatedAt: now.toISOString() };
  const pending = pendingPath(vault, sessionId);
  mkdirSync(queueDirs.pending(vault), { recursive: true });
  // Created only where no entry is: a Stop hook queueing the session at the same moment keeps its own.
  const placed = writeFileExclusive(pending, JSON.stringify(restored, null, 2) + "\n");
  renameSync(handledPath(vault, sessionId), `${handledPath(vault, sessionId)}.restored-${now.getTime()}`);
  if (placed) return restored;
  const queued = readEntry(pending);
  if (!queued) throw new Error(`session ${sessionId}'s queue entry could not be read`);
  return queued;
}
