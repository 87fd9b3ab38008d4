/**
 * How config.json's `sync` is read (see settings-schema.ts). Syncing sends the vault to a remote,
 * so turning it on is this computer's setting only (machine-config.ts, MACHINE_KEYS): a vault's
 * file, which any computer that shares it can write, never turns it on.
 */

import * as z from "zod/mini";
import { nonNegative, setting, trueOrFalse } from "../settings-schema";

export interface SyncSettings {
  /** Sync before and after each night's digest, and in the background when a session starts (at most hourly). */
  enabled: boolean;
  /** With `enabled`, Obsidian also syncs every this many minutes while it is open; 0 never. */
  intervalMinutes: number;
}

export const DEFAULT_SYNC: SyncSettings = { enabled: false, intervalMinutes: 0 };

export const SYNC_SCHEMA = z.object({
  enabled: setting(trueOrFalse, DEFAULT_SYNC.enabled, "true or false"),
  intervalMinutes: setting(nonNegative, DEFAULT_SYNC.intervalMinutes, "a non-negative number"),
}) satisfies z.ZodMiniType<SyncSettings, unknown>;
