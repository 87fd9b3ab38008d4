/** The cards' vectors for the snapshot on disk: what `index`, `embed`, the digest and a repaired snapshot share. */

import type { VaultMemoryConfig } from "../config";
import { vaultFiles } from "../paths";
import { SnapshotReader } from "../snapshot/read";
import { NoteCache } from "../vault/note-cache";
import { isCard } from "../vault/scan";
import { VectorCache, type Quantized } from "./cache";
import { embedCards, type EmbedReport } from "./embed-cards";
import { vectorsPathOf, writeVectors } from "./vectors";

export interface VaultEmbedding extends EmbedReport {
  /** Cards with vectors, of those the snapshot holds. */
  cards: number;
  /** One line saying what was done, for a log or a terminal. */
  summary: string;
}

/**
 * Embeds the vault's cards through the cache and writes their vectors beside the snapshot whose
 * headerSum is `base`, numbered as it numbers its cards. `offline`: the cache alone, no request
 * (a session start that rebuilt a damaged snapshot must not wait on a server); cards it lacks
 * have no vectors until the next index. A server that is missing or failing leaves word recall
 * complete, and the summary says so.
 */
export async function embedVault(vault: string, config: VaultMemoryConfig, base: string, opts: { notes?: NoteCache; offline?: boolean; onProgress?: (done: number, total: number) => void } = {}): Promise<VaultEmbedding> {
  const e = config.embed;
  const notes = opts.notes ?? new NoteCache(vault);
  const cards = notes.cards(notes.list((p) => isCard(p, config)));
  const path = vaultFiles.embeddings(vault);
  const cache = VectorCache.open(path, e.model);
  const report = await embedCards(cards, e, config.index.hintsProperty, cache, opts.onProgress, opts.offline);
  cache.save(path);
  const snapshot = vaultFiles.snapshot(vault);
  const reader = SnapshotReader.open(snapshot);
  let byId: (Quantized[] | undefined)[];
  try {
    byId = Array.from({ length: reader.idLimit }, (_, id) => {
      const card = reader.doc(id)?.path;
      return card === undefined ? undefined : report.vectors.get(card);
    });
  } finally {
    reader.close();
  }
  writeVectors(vectorsPathOf(snapshot), base, e.model, cache.dim, byId);
  const counted = byId.filter((v) => v !== undefined).length;
  const what = `${report.embedded} ${report.embedded === 1 ? "text" : "texts"} embedded, ${report.reused} from the cache`;
  const summary = report.ok ? `semantic recall: ${what}, ${counted} cards with ${e.model} at ${e.url}` : `semantic recall: stopped (${report.error}); ${what}. Word recall is complete.`;
  return { ...report, cards: counted, summary };
}
