/** `embed`: the cards' vectors for semantic recall, for the snapshot on disk (Obsidian runs it after it writes one). */

import { writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { configOf } from "../settings";
import type { VaultMemoryConfig } from "../../../src/core/config";
import { VectorCache, type Quantized } from "../../../src/core/embed/cache";
import { embedCards } from "../../../src/core/embed/embed-cards";
import { vectorsPathOf, writeVectors } from "../../../src/core/embed/vectors";
import { vaultFiles } from "../../../src/core/paths";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { isCard } from "../../../src/core/vault/scan";

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
  return (await embedVault(vault, config, new NoteCache(vault), process.stderr.isTTY === true, base)) ? 0 : 1;
}

/** The cards' vectors for semantic recall. A server that is missing or failing leaves word recall complete, and says so once. */
export async function embedVault(vault: string, config: VaultMemoryConfig, notes: NoteCache, tty: boolean, base: string): Promise<boolean> {
  const e = config.embed;
  const cards = notes.list((p) => isCard(p, config)).map((f) => notes.card(f));
  const path = vaultFiles.embeddings(vault);
  const cache = VectorCache.open(path, e.model);
  const report = await embedCards(cards, e, config.index.hintsProperty, cache, (done, total) => {
    if (tty && total > 0) writeSync(2, `\rembedding ${done}/${total} texts with ${e.model}`);
  });
  if (tty) writeSync(2, "\r\x1b[K");
  cache.save(path);
  const what = `${report.embedded} ${report.embedded === 1 ? "text" : "texts"} embedded, ${report.reused} from the cache`;
  // Numbered as the snapshot numbers its cards, so the hook reads them by the ids it scores.
  const snapshot = vaultFiles.snapshot(vault);
  const reader = SnapshotReader.open(snapshot);
  let byId: (Quantized[] | undefined)[];
  try {
    byId = Array.from({ length: reader.idLimit }, (_, id) => {
      const path = reader.doc(id)?.path;
      return path === undefined ? undefined : report.vectors.get(path);
    });
  } finally {
    reader.close();
  }
  writeVectors(vectorsPathOf(snapshot), base, e.model, cache.dim, byId);
  if (report.ok) writeSync(1, `semantic recall: ${what}, ${report.vectors.size} cards with ${e.model} at ${e.url}\n`);
  else writeSync(2, `semantic recall: stopped (${report.error}); ${what}. Word recall is complete.\n`);
  return report.ok;
}
