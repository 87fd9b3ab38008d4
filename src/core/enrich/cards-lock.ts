/**
 * The vault's card lock, which every writer of Vault Memory's takes to read, compose and write
 * cards: the digest, `write_card` and `edit_card` in several sessions' MCP servers, and enrich
 * writing hints. It lives here, the lowest room of the write path, so that enrich and the digest
 * (which runs enrich nightly) take the same one.
 */

import { withFileLock } from "../io/file-lock";
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
