/**
 * The vault's card lock, which every writer of Vault Memory's takes to read, compose and write
 * cards: the digest, `write_card` and `edit_card` in several sessions' MCP servers, and enrich
 * writing hints. It lives here, the lowest room of the write path, so that enrich and the digest
 * (which runs enrich nightly) take the same one.
 */

import { LockHeld, takeFileLock, withFileLock } from "../io/file-lock";
import { vaultFiles } from "../paths";

// Cards are written by the digest, by several sessions' MCP servers and by Obsidian at once; a
// write takes milliseconds, and a holder this old has died (one that ended is seen at once).
const CARDS_LOCK_STALE_MS = 60_000;
const CARDS_LOCK_WAIT_MS = 30_000;

/**
 * Runs `fn` holding the vault's card lock: one writer of Vault Memory's at a time reads, composes
 * and writes cards, so two sessions extending one card each keep their section, and the snapshot
 * is brought up to both.
 */
export function withCardsLock<T>(vault: string, fn: () => T): T {
  return withFileLock(vaultFiles.cardsLock(vault), fn, { staleMs: CARDS_LOCK_STALE_MS, waitMs: CARDS_LOCK_WAIT_MS, what: "the vault's cards" });
}

/**
 * The card lock if it is free now (taken over if its holder died), for Obsidian's window, which
 * must never wait on another process: its release, or undefined when another writer holds it.
 */
export function tryCardsLock(vault: string): (() => void) | undefined {
  try {
    return takeFileLock(vaultFiles.cardsLock(vault), { staleMs: CARDS_LOCK_STALE_MS, waitMs: 0, what: "the vault's cards" });
  } catch (err) {
    if (err instanceof LockHeld) return undefined;
    throw err;
  }
}
