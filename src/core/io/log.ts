/** The hidden folder's log: where hooks that must stay silent say why they did. */

import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";

// Past this the log is rotated to `.1`, so a hook that fails on every prompt cannot fill a disk.
const MAX_LOG_BYTES = 1 << 20;

/** Appends one line; never throws, since logging is what runs when something else already failed. */
export function appendLog(path: string, command: string, message: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    try {
      if (statSync(path).size > MAX_LOG_BYTES) renameSync(path, path + ".1");
    } catch {
      /* no log yet */
    }
    const line = `${new Date().toISOString()} ${command} ${message.replace(/\s+/g, " ")}\n`;
    appendFileSync(path, line, "utf8");
  } catch {
    /* nowhere left to report to */
  }
}
