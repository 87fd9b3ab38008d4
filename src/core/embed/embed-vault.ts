/** The cards' vectors for the snapshot on disk: what `index`, `embed`, the digest and a repaired snapshot share. */

import { vaultFiles } from "../paths";
import { SnapshotReader } from "../snapshot/read";
import { NoteCache } from "../vault/note-cache";
import { isCard, type ScopeRules } from "../vault/scan";
import type { EmbedSettings } from "./settings";
import { VectorCache, type Quantized } from "./cache";
import { passageIdentity } from "./profile";
import { embedCards, type EmbedReport } from "./embed-cards";
import { escapeControl } from "../text/visible";
import { vectorsPathOf, writeVectors } from "./vectors";
import { calibrate, describeCalibration, MIN_CALIBRATION_CARDS, type Calibration } from "./calibration";

export interface VaultEmbedding extends EmbedReport {
  /** Cards with vectors, of those the snapshot holds. */
  cards: number;
  /** One line saying what was done, for a log or a terminal. */
  summary: string;
  /** The vault's calibration for the model (see calibration.ts), when it could be measured. */
  calibration?: Calibration;
}

/**
 * Embeds the vault's cards through the cache and writes their vectors beside the snapshot whose
 * headerSum is `base`, numbered as it numbers its cards. `offline`: the cache alone, no request
 * (a session start that rebuilt a damaged snapshot must not wait on a server); cards it lacks
 * have no vectors until the next index. A server that is missing or failing leaves word recall
 * complete, and the summary says so.
 */
/** The settings embedVault reads: a VaultMemoryConfig is one (this room does not import config.ts, which is above it). */
export interface EmbedVaultSettings extends ScopeRules {
  embed: EmbedSettings;
  index: { hintsProperty: string; synonymsNote: string };
}

export async function embedVault(
  vault: string,
  config: EmbedVaultSettings,
  base: string,
  opts: { notes?: NoteCache; offline?: boolean; onProgress?: (done: number, total: number) => void; budgetSec?: number } = {},
): Promise<VaultEmbedding> {
  const e = config.embed;
  const notes = opts.notes ?? new NoteCache(vault);
  const cards = notes.cards(notes.list((p) => isCard(p, config)));
  const path = vaultFiles.embeddings(vault);
  // Kept by the model and how its passages are marked: vectors of two kinds are never mixed.
  const cache = VectorCache.open(path, passageIdentity(e));
  const budgetSec = opts.budgetSec ?? e.runBudgetSec;
  const report = await embedCards(cards, e, config.index.hintsProperty, cache, {
    onProgress: opts.onProgress,
    offline: opts.offline,
    budgetMs: budgetSec * 1000,
  });
  cache.save(path);
  const snapshot = vaultFiles.snapshot(vault);
  const reader = SnapshotReader.open(snapshot);
  let paths: (string | undefined)[];
  try {
    paths = Array.from({ length: reader.idLimit }, (_, id) => reader.doc(id)?.path);
  } finally {
    reader.close();
  }
  const byId = paths.map((p) => (p === undefined ? undefined : report.vectors.get(p)));
  const questions = paths.map((p) => (p === undefined ? undefined : report.questions.get(p)));
  const present = (vs: readonly (Quantized[] | undefined)[]): Quantized[][] => vs.filter((v): v is Quantized[] => v !== undefined);
  const calibration = calibrate(present(byId), report.background);
  const questionCalibration = calibrate(present(questions), report.background);
  const header = writeVectors(vectorsPathOf(snapshot), base, e.model, cache.dim, byId, calibration, {
    byId: questions,
    ...(questionCalibration ? { calibration: questionCalibration } : {}),
  });
  const counted = byId.filter((v) => v !== undefined).length;
  const hinted = header.questions ? present(questions).length : 0;
  return {
    ...report,
    cards: counted,
    summary: summaryOf(report, counted, hinted, e, describeCalibration(calibration, counted)),
    ...(calibration ? { calibration } : {}),
  };
}

/** The one line a run ends with: what was embedded, and what stopped it or was refused, naming the server. */
function summaryOf(report: EmbedReport, counted: number, hinted: number, e: EmbedSettings, calibration: string): string {
  const what = `${report.embedded} ${report.embedded === 1 ? "text" : "texts"} embedded, ${report.reused} from the cache`;
  const server = `${e.model} at ${e.url}`;
  const refused =
    report.refused.length === 0
      ? ""
      : `; ${report.refused.length} ${report.refused.length === 1 ? "card" : "cards"} not embedded, ${refusedText(report.refused)}`;
  const changed = report.modelChanged ? `; ${e.model} answered otherwise than the model that made the cached vectors, so every card was embedded again` : "";
  if (report.error !== undefined)
    return `semantic recall: stopped (${report.error}; ${server}); ${what}, ${counted} cards with vectors${changed}${refused}; ${calibration}. Word recall is complete.`;
  const hints =
    hinted > 0
      ? ` (the recall hints of ${hinted} as questions)`
      : report.questions.size > 0 && report.questions.size < MIN_CALIBRATION_CARDS
        ? ` (recall hints count from ${MIN_CALIBRATION_CARDS} cards with hints; ${report.questions.size} have them)`
        : "";
  const hintsLeft =
    report.refusedHints.length === 0
      ? ""
      : `; the recall hints of ${report.refusedHints.length} ${report.refusedHints.length === 1 ? "card" : "cards"} left out, ${refusedText(report.refusedHints)}`;
  return `semantic recall: ${what}, ${counted} cards with ${server}${hints}${changed}${refused}${hintsLeft}; ${calibration}${refused ? ". Word recall is complete." : ""}`;
}

/** The refused cards by reason: "the server's vector is all zeros for a.md, b.md". */
function refusedText(refused: EmbedReport["refused"]): string {
  const byReason = new Map<string, string[]>();
  for (const r of refused) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.path]);
  return [...byReason]
    .map(([reason, paths]) => `${reason} for ${paths.slice(0, 5).map(escapeControl).join(", ")}${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}`)
    .join("; ");
}
