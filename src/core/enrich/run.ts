/** `enrichVault`: a whole enrich run on a vault, under the digest's lock, binary and budgets. */

import type { VaultMemoryConfig } from "../config";
import { settingsCommand } from "../llm/llm";
import { acquireLock, releaseLock } from "../llm/lock";
import { sendToCommand } from "../llm/run-command";
import { vaultFiles } from "../paths";
import { dueCards, enrichCards, type EnrichReport } from "./enrich";
import { diskStore, type CardStore } from "./store";

export type { EnrichReport } from "./enrich";

export interface EnrichVaultOptions {
  /** Absolute path of the vault. */
  vault: string;
  config: VaultMemoryConfig;
  /** The environment of the LLM command (and where its binary is looked up); defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** At most this many cards, on top of the call budget. */
  limit?: number;
  /** Ask the LLM and report what would be written, writing nothing. */
  dryRun?: boolean;
  onProgress?: (line: string) => void;
  /** Where cards are read and written; the vault's files by default, Obsidian in the plugin. */
  store?: CardStore;
}

export async function enrichVault(opts: EnrichVaultOptions): Promise<EnrichReport> {
  const store = opts.store ?? diskStore(opts.vault, opts.config);
  const settings = opts.config.digest;
  // A run that cannot start still says how many cards wait, so it does not read as "all done".
  const stopped = async (error: string): Promise<EnrichReport> => {
    const { due, unreadable } = await dueCards(store, opts.config);
    return { ok: false, error, dryRun: !!opts.dryRun, calls: 0, written: [], skipped: [], left: due.length + unreadable.length };
  };
  // One lock with the digest: both call the same LLM on the same cards, and a night's run must
  // not find its budget, or a card it is extending, taken by an enrich started by hand.
  const lockPath = vaultFiles.digestLock(opts.vault);
  if (!opts.dryRun) {
    const lock = acquireLock(lockPath);
    if (!lock.ok) return await stopped(`a digest or another enrich is running (${lock.holder.host}, pid ${lock.holder.pid}, since ${lock.holder.startedAt})`);
  }
  try {
    const llm = settingsCommand(settings, opts.env, opts.vault);
    if ("error" in llm) return await stopped(llm.error);
    return await enrichCards({
      store,
      config: opts.config,
      ask: (prompt) => sendToCommand(llm.command, prompt, { timeoutMs: settings.timeoutSec * 1000, cwd: opts.vault, env: opts.env }),
      maxCalls: settings.maxCalls,
      limit: opts.limit,
      dryRun: opts.dryRun,
      onProgress: opts.onProgress,
    });
  } finally {
    if (!opts.dryRun) releaseLock(lockPath);
  }
}
