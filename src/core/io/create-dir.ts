/** A write into Vault Memory's own folders that makes the folder only when it is missing. */

import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";

/** Writes `text` to `path`, making `dir` only when it is missing: it is there on all but the first prompt, and the hook's time is the person's. */
export function writeCreatingDir(dir: string, path: string, text: string, append = false): void {
  const write = (): void => (append ? appendFileSync(path, text, "utf8") : writeFileSync(path, text));
  try {
    write();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dir, { recursive: true });
    write();
  }
}
