/** `index`: builds the snapshot from the vault on disk, without Obsidian; and the cards' vectors, when semantic recall is on. */

import { writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { vaultConfig } from "../settings";
import type { VaultMemoryConfig } from "../../../src/core/config";
import { VectorCache, type Quantized } from "../../../src/core/embed/cache";
import { vectorsPathOf, writeVectors } from "../../../src/core/embed/vectors";
import { recallRulesOf } from "../../../src/core/config";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { embedCards } from "../../../src/core/embed/embed-cards";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { vaultFiles } from "../../../src/core/paths";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { isCard } from "../../../src/core/vault/scan";

export async function indexCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const config = vaultConfig(vault);

  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  // Kept only for the embedding that follows: holding every note's text and card doubled the
  // peak memory of a 50,000-note index.
  const notes = config.embed.enabled ? new NoteCache(vault) : undefined;
  const { index, failed } = buildIndexFromDisk(
    vault,
    config,
    ({ done, total }) => {
      if (tty) writeSync(2, `\rindexing ${done}/${total} notes`);
    },
    notes,
  );
  if (tty) writeSync(2, "\r\x1b[K");
  const target = vaultFiles.snapshot(vault);
  const header = writeSnapshot(target, index, recallRulesOf(config));
  const seconds = ((performance.now() - started) / 1000).toFixed(2);

  for (const f of failed) writeSync(2, `skipped ${f.path}: ${f.reason}\n`);
  const mb = ((header.bodyBytes + 1024) / 1e6).toFixed(1);
  writeSync(1, `indexed ${header.cards} cards, ${header.terms} terms in ${seconds} s → ${target} (${mb} MB)\n`);
  if (notes) await embedVault(vault, config, notes, tty, header.headerSum ?? "");
  return 0;
}

/** The cards' vectors for semantic recall. A server that is missing or failing leaves word recall complete, and says so once. */
async function embedVault(vault: string, config: VaultMemoryConfig, notes: NoteCache, tty: boolean, base: string): Promise<void> {
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
}
