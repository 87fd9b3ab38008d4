/** The line a command prints for a file named like a note that it did not read. */

import type { SkippedNote } from "../../src/core/vault/scan";
import { escapeControl } from "../../src/core/text/visible";

/** One line, whatever the name holds. */
export function skippedLine(s: SkippedNote): string {
  return `skipped ${escapeControl(s.path)}: ${escapeControl(s.reason)}\n`;
}
