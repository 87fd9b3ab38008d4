/** Which cards each Claude Code session has already been given, so none is injected twice. */

import { isSafeSessionId } from "../session-id";
import { readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { readTextFile } from "../io/read-file";
import { writeCreatingDir } from "../io/create-dir";
import { join } from "node:path";

// Claude Code replays a session's injections on resume for as long as the session lives; a week
// covers any session a person is still working in.
const EXPIRE_MS = 7 * 86_400_000;
const SWEEP_EVERY_MS = 86_400_000;

export interface SessionRecord {
  paths: string[];
  updated: number;
}

function fileFor(dir: string, sessionId: string): string | undefined {
  return isSafeSessionId(sessionId) ? join(dir, `${sessionId}.json`) : undefined;
}

export function loadSeen(dir: string, sessionId: string): Set<string> {
  const file = fileFor(dir, sessionId);
  if (!file) return new Set();
  try {
    // The paths of the cards a session was shown: a few kilobytes, and a week at most.
    const rec = JSON.parse(readTextFile(file, { maxBytes: 4 << 20 })) as Partial<SessionRecord>;
    return new Set(Array.isArray(rec.paths) ? rec.paths.filter((p): p is string => typeof p === "string") : []);
  } catch {
    return new Set();
  }
}

/**
 * Adds `paths` to the session's record. A plain write and rename, without fsync: this is a cache
 * whose loss only means a card may be shown twice, and the hook's time is the person's.
 */
export function rememberSeen(dir: string, sessionId: string, seen: ReadonlySet<string>, paths: readonly string[], now = Date.now()): void {
  const file = fileFor(dir, sessionId);
  if (!file || paths.length === 0) return;
  const rec: SessionRecord = { paths: [...new Set([...seen, ...paths])], updated: now };
  const tmp = `${file}.${process.pid}.tmp`;
  writeCreatingDir(dir, tmp, JSON.stringify(rec));
  renameSync(tmp, file);
  sweep(dir, now);
}

/**
 * Starts the session's record over: after a compaction (or /clear) the conversation no longer holds
 * the cards shown before it, so each may be shown again. The record is emptied, not deleted.
 */
export function forgetSeen(dir: string, sessionId: string, now = Date.now()): void {
  const file = fileFor(dir, sessionId);
  if (!file) return;
  const tmp = `${file}.${process.pid}.tmp`;
  writeCreatingDir(dir, tmp, JSON.stringify({ paths: [], updated: now } satisfies SessionRecord));
  renameSync(tmp, file);
}

/** Expires old session records, at most once a day, marked by the folder's `.swept` file. */
function sweep(dir: string, now: number): void {
  const mark = join(dir, ".swept");
  try {
    if (now - statSync(mark).mtimeMs < SWEEP_EVERY_MS) return;
  } catch {
    /* never swept */
  }
  writeFileSync(mark, "");
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".json")) continue;
    try {
      if (now - statSync(join(dir, name)).mtimeMs > EXPIRE_MS) unlinkSync(join(dir, name));
    } catch {
      /* another hook got there first */
    }
  }
}
