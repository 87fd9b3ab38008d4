/** Reads a hook's JSON from stdin. */

import { fstatSync, readSync } from "node:fs";

// Claude Code sends a few KB; a prompt with a pasted file can be large, but past this it is not a hook payload.
const MAX_STDIN_BYTES = 8 << 20;

/**
 * All of stdin as text. Synchronous on purpose: Claude Code writes the payload and closes the
 * pipe at once, and an async read plus a timer costs a cold process more than the whole recall.
 * A terminal is never read, so a person who runs the hook by hand is not left waiting.
 */
export function readStdinSync(): string {
  if (fstatSync(0).isCharacterDevice()) return "";
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") continue;
      if (code === "EOF") break;
      throw err;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_STDIN_BYTES) throw new Error(`stdin is over ${MAX_STDIN_BYTES} bytes`);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString("utf8");
}
