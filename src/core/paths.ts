/** Where Vault Memory keeps its own files inside a vault. */

import { join } from "node:path";

// A dot folder: Obsidian neither indexes nor shows it, and sync tools can be told to skip it.
export const HIDDEN_DIR = ".vault-memory";

export const vaultFiles = {
  dir: (vault: string): string => join(vault, HIDDEN_DIR),
  snapshot: (vault: string): string => join(vault, HIDDEN_DIR, "snapshot.jsonl"),
  log: (vault: string): string => join(vault, HIDDEN_DIR, "vault-memory.log"),
  config: (vault: string): string => join(vault, HIDDEN_DIR, "config.json"),
  sessions: (vault: string): string => join(vault, HIDDEN_DIR, "sessions"),
  usageLog: (vault: string): string => join(vault, HIDDEN_DIR, "recall-log.jsonl"),
  digestStatus: (vault: string): string => join(vault, HIDDEN_DIR, "digest-status.json"),
};
