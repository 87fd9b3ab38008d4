/** `embed`: the cards' vectors for semantic recall, for the snapshot on disk (Obsidian runs it after it writes one). */

import { writeSync } from "node:fs";
import type { Args } from "../args";
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
  const ok = await embedVaultCommand(vault, config, notes, process.stderr.isTTY === true, base);
  for (const s of notes.skipped) writeSync(2, skippedLine(s));
  return ok ? 0 : 1;
}

/** The cards' vectors for semantic recall, with progress on a terminal. A server that is missing or failing leaves word recall complete, and says so once. */
export async function embedVaultCommand(vault: string, config: VaultMemoryConfig, notes: NoteCache, tty: boolean, base: string): Promise<boolean> {
  const report = await embedVault(vault, config, base, {
    notes,
    onProgress: (done, total) => {
      if (tty && total > 0) writeSync(2, `\rembedding ${done}/${total} texts with ${config.embed.model}`);
    },
  });
  if (tty) writeSync(2, "\r\x1b[K");
  writeSync(report.ok ? 1 : 2, `${report.summary}\n`);
  return report.ok;
}
