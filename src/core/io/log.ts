/** The hidden folder's log: where hooks that must stay silent say why they did. */

import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { withFileLock } from "./file-lock";

// Past this the log is rotated to `.1`, so a hook that fails on every prompt cannot fill a disk.
const MAX_LOG_BYTES = 1 << 20;

/** Appends one line; never throws, since logging is what runs when something else already failed. */
export function appendLog(path: string, command: string, message: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    try {
      if (statSync(path).size > MAX_LOG_BYTES) moveAsidePast(path, path + ".1", MAX_LOG_BYTES);
    } catch {
      /* no log yet */
    }
    const line = `${new Date().toISOString()} ${command} ${message.replace(/\s+/g, " ")}\n`;
    appendFileSync(path, line, "utf8");
  } catch {
    /* nowhere left to report to */
  }
}

/**
 * Moves the log at `path` to `older`, replacing the generation before, if it is still past
 * `bytes`: one process at a time, since two that both found it too large would otherwise move it
 * twice, the second time a new log of a line or two over the history the first had just moved.
 * A line another process appends meanwhile lands in one generation or the other. Nobody waits:
 * when another process holds the lock, or the move fails (Windows refuses while a reader holds
 * the older file), the caller appends to the log as it is, and the next append tries again.
 */
export function moveAsidePast(path: string, older: string, bytes: number): void {
  try {
    withFileLock(
      `${path}.lock`,
      () => {
        // Moved already by the process that held the lock before: a new log is left alone.
        if (statSync(path).size >= bytes) renameSync(path, older);
      },
      { staleMs: 10_000, waitMs: 0, what: "a log" },
    );
  } catch {
    /* see above */
  }
}
