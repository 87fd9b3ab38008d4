/**
 * Whether the snapshot's rules may turn semantic recall on, from its first line alone: the one
 * thing the entry looks at before deciding what to load. Kept to a few lines, since the entry is
 * compiled afresh for every prompt (recall's code comes from the code cache); everything else
 * about the vault and the payload is read by the code it then loads.
 */

import { firstLine } from "../../src/core/io/first-line";
import { join } from "node:path";
import { HIDDEN_DIR } from "../../src/core/paths";

export function semanticGlance(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  // As findVault names the vault (vault.ts): --vault DIR or --vault=DIR, else the environment.
  const at = argv.indexOf("--vault");
  const vault = (at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith("--vault="))?.slice(8)) || env.CLAUDE_PLUGIN_OPTION_VAULT || env.VAULT_MEMORY_VAULT;
  if (!vault) return false;
  try {
    // vaultFiles.snapshot, spelled out: that table would be compiled with the entry on every prompt.
    return firstLine(join(vault, HIDDEN_DIR, "snapshot.jsonl"), 4096).includes('"semantic":');
  } catch {
    return false;
  }
}
