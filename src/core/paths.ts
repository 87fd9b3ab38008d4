/** Where Vault Memory keeps its own files inside a vault. */

import { join } from "node:path";

// A dot folder: Obsidian neither indexes nor shows it, and sync tools can be told to skip it.
export const HIDDEN_DIR = ".vault-memory";

/**
 * Where lint's fix moves sync conflict copies, vault-relative, each at its own path below it: in
 * the dot folder, so they are no longer notes to Obsidian, recall or lint, and nothing is deleted.
 */
export const ASIDE_DIR = `${HIDDEN_DIR}/conflicts`;

export const vaultFiles = {
  dir: (vault: string): string => join(vault, HIDDEN_DIR),
  snapshot: (vault: string): string => join(vault, HIDDEN_DIR, "snapshot.jsonl"),
  log: (vault: string): string => join(vault, HIDDEN_DIR, "vault-memory.log"),
  /** The last command line a hook refused, which the next session start tells the person once. */
  refusedHook: (vault: string): string => join(vault, HIDDEN_DIR, "refused-hook.txt"),
  config: (vault: string): string => join(vault, HIDDEN_DIR, "config.json"),
  sessions: (vault: string): string => join(vault, HIDDEN_DIR, "sessions"),
  usageLog: (vault: string): string => join(vault, HIDDEN_DIR, "recall-log.jsonl"),
  /** Vectors of the cards' texts by content hash, for the model that made them (see embed/cache.ts). */
  embeddings: (vault: string): string => join(vault, HIDDEN_DIR, "embeddings.bin"),
  digestStatus: (vault: string): string => join(vault, HIDDEN_DIR, "digest-status.json"),
  /** One digest or enrich run at a time, across windows and machines (see llm/lock.ts). */
  digestLock: (vault: string): string => join(vault, HIDDEN_DIR, "digest.lock"),
  /** One writer of cards at a time: the digest, sessions' MCP servers (see digest/apply.ts). */
  cardsLock: (vault: string): string => join(vault, HIDDEN_DIR, "cards.lock"),
  /** When the plugin first scheduled nights in this vault. */
  digestSchedule: (vault: string): string => join(vault, HIDDEN_DIR, "digest-schedule.json"),
  /** The note a recall leaves when a segment it read was damaged (see snapshot/damage.ts). */
  snapshotDamage: (vault: string): string => join(vault, HIDDEN_DIR, "snapshot-damaged.json"),
  queuePending: (vault: string): string => join(vault, HIDDEN_DIR, "queue", "pending"),
  queueHandled: (vault: string): string => join(vault, HIDDEN_DIR, "queue", "handled"),
  inbox: (vault: string): string => join(vault, HIDDEN_DIR, "inbox"),
};
