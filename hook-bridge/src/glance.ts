/**
 * Whether the snapshot's rules may turn semantic recall on, from its first line alone: the one
 * thing the entry looks at before deciding what to load. Kept to a few lines, since the entry is
 * compiled afresh for every prompt (recall's code comes from the code cache); everything else
 * about the vault and the payload is read by the code it then loads.
 */

import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";

export function semanticGlance(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  // As findVault names the vault (vault.ts): --vault DIR or --vault=DIR, else the environment.
  const at = argv.indexOf("--vault");
  const vault = (at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith("--vault="))?.slice(8)) || env.CLAUDE_PLUGIN_OPTION_VAULT || env.VAULT_MEMORY_VAULT;
  if (!vault) return false;
  try {
    const fd = openSync(join(vault, ".vault-memory", "snapshot.jsonl"), "r");
    try {
      const head = Buffer.allocUnsafe(4096);
      return head.toString("latin1", 0, readSync(fd, head, 0, head.length, 0)).includes('"semantic":');
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
