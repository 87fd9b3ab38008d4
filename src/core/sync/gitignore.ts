/**
 * The vault's `.gitignore` lines for what is this computer's own: the index, queue, logs, locks
 * and caches in `.vault-memory/` (this computer's settings live outside the vault), and the bridge
 * the Obsidian plugin copies beside itself. Added once, under a mark of its own; the person's
 * lines are never touched.
 */

import { join } from "node:path";
import { rewriteText } from "../io/atomic";
import { readTextIfAny } from "../io/read-file";
import { HIDDEN_DIR } from "../paths";

const MARK = "# Vault Memory: this computer's own state, never synced";

export const MACHINE_LOCAL = [
  `${HIDDEN_DIR}/`,
  // The bridge Obsidian's plugin copies into its folder (in whatever the vault's configuration
  // folder is called): each computer's own release, which would conflict when two differ.
  "/*/plugins/vault-memory/vault-memory*.cjs",
  "/*/plugins/vault-memory/vault-memory*.mjs",
  // What a writer of Vault Memory's has beside a file for a moment (atomic.ts, sync/place.ts):
  // never committed by a sync that runs meanwhile.
  "*.[0-9]*.[0-9]*.*.tmp",
  "*.tmp.held",
  ".*.vm-sync-*",
];

/** Adds the lines the vault's .gitignore lacks, under a mark; whether the file changed. */
export function keepMachineStateOut(vault: string): boolean {
  const path = join(vault, ".gitignore");
  // Rewritten only while it holds what was read: a line the person saves meanwhile stays.
  return rewriteText(
    path,
    () => readTextIfAny(path, { maxBytes: 1 << 20 }),
    (found) => {
      const text = found ?? "";
      const have = new Set(text.split(/\r?\n/).map((l) => l.trim()));
      const missing = MACHINE_LOCAL.filter((line) => !have.has(line) && !have.has(line.replace(/\/$/, "")));
      if (missing.length === 0) return undefined;
      const eol = text.includes("\r\n") ? "\r\n" : "\n";
      const lead = text === "" || text.endsWith("\n") ? "" : eol;
      const block = (have.has(MARK) ? missing : [MARK, ...missing]).join(eol);
      return `${text}${lead}${text === "" ? "" : eol}${block}${eol}`;
    },
  );
}
