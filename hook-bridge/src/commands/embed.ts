/** `embed`: the cards' vectors for semantic recall, for the snapshot on disk (Obsidian runs it after it writes one). */

import { writeSync } from "node:fs";
import { numberFlag, UsageError, type Args } from "../args";
import { vaultFlag } from "../vault";
import { configOf } from "../settings";
import { skippedLine } from "../skipped";
import type { VaultMemoryConfig } from "../../../src/core/config";
import { embedVault } from "../../../src/core/embed/embed-vault";
import { vaultFiles } from "../../../src/core/paths";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { NoteCache } from "../../../src/core/vault/note-cache";

export async function embedCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const config = configOf(args, vault, (p) => writeSync(2, `warning: ${p}\n`));
  if (!config.embed.enabled) {
    writeSync(2, 'semantic recall is off: set "embed": {"enabled": true, …} in the settings first\n');
    return 1;
  }
  const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
  const base = reader.header.headerSum ?? "";
  reader.close();
  const notes = new NoteCache(vault);
  const ok = await embedVaultCommand(vault, config, notes, process.stderr.isTTY === true, base, budgetFlag(args));
  for (const s of notes.skipped) writeSync(2, skippedLine(s));
  return ok ? 0 : 1;
}

/** `--embed-budget-sec N`: the run's embedding budget for this once, over the setting. */
export function budgetFlag(args: Args): number | undefined {
  const n = numberFlag(args, "embed-budget-sec");
  if (n !== undefined && n <= 0) throw new UsageError("--embed-budget-sec takes a number of seconds above 0");
  return n;
}

/**
 * The cards' vectors for semantic recall, with progress on stderr: a line that rewrites itself on
 * a terminal, else a line at each tenth. A server that is missing, failing or slower than the
 * budget leaves word recall complete, and says so once, naming the server.
 */
export async function embedVaultCommand(
  vault: string,
  config: VaultMemoryConfig,
  notes: NoteCache,
  tty: boolean,
  base: string,
  budgetSec?: number,
): Promise<boolean> {
  const e = config.embed;
  const budget = budgetSec ?? e.runBudgetSec;
  let shown = -1;
  const report = await embedVault(vault, config, base, {
    notes,
    budgetSec: budget,
    onProgress: (done, total) => {
      if (total === 0) return;
      if (tty) return void writeSync(2, `\rembedding ${done}/${total} texts with ${e.model}`);
      const tenth = Math.floor((done * 10) / total);
      if (tenth === shown) return;
      shown = tenth;
      writeSync(2, done === 0 ? `embedding ${total} texts with ${e.model} at ${e.url}, within ${budget} s\n` : `embedding: ${done}/${total} texts\n`);
    },
  });
  if (tty) writeSync(2, "\r\x1b[K");
  writeSync(report.ok ? 1 : 2, `${report.summary}\n`);
  return report.ok;
}
