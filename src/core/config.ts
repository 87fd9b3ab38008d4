/**
 * Settings shared by the plugin and the hook bridge: each room's schema (its `settings.ts`, with
 * the defaults), joined here, and a forgiving loader. No room below imports this file (those that
 * read several rooms' settings take just those); digest/ and enrich/ above it, the bridge and the
 * plugin take the whole config from here.
 */

import { insideVaultProblem } from "./io/program-path";
import * as z from "zod/mini";
import {
  ignoredVaultKeys,
  machineKeysOf,
  overlay,
  readSettingsFile,
  SMTP_PASSWORD_ENV,
  SMTP_PASSWORD_KEY,
  userFileOf,
  userSettingsFor,
  withoutMachineKeys,
} from "./machine-config";
import { vaultFiles } from "./paths";
import { defaultsOf, readSettings } from "./settings-schema";
import { CARDS_SCHEMA } from "./card/settings";
import { DIGEST_SCHEMA } from "./digest/settings";
import { EMBED_SCHEMA } from "./embed/settings-schema";
import { semanticRulesOf } from "./embed/settings";
import { ENRICH_SCHEMA } from "./enrich/settings";
import { INDEX_SCHEMA } from "./index/settings";
import { LINT_SCHEMA } from "./lint/settings";
import { QUEUE_SCHEMA } from "./queue/settings";
import type { RecallRules } from "./recall/rules";
import { BRIEF_SCHEMA, RECALL_SCHEMA } from "./recall/settings";
import { SCOPE_SCHEMA } from "./vault/settings";
import { SYNC_SCHEMA, type SyncSettings } from "./sync/settings";
import type { IndexSettings } from "./index/index-options";
import type { DigestSettings } from "./digest/settings";
import type { EnrichSettings } from "./enrich/settings";
import type { EmbedSettings } from "./embed/settings";
import type { LintSettings } from "./lint/types";
import type { QueueRules } from "./queue/capture";
import type { BriefSettings } from "./recall/settings";
import type { CardSettings } from "./card/settings";
import type { ScopeRules } from "./vault/scan";

/** config.json: the scope at its top level, then one room per part of the product. */
export const CONFIG_SCHEMA = z.extend(SCOPE_SCHEMA, {
  recall: RECALL_SCHEMA,
  brief: BRIEF_SCHEMA,
  index: INDEX_SCHEMA,
  queue: QUEUE_SCHEMA,
  lint: LINT_SCHEMA,
  digest: DIGEST_SCHEMA,
  enrich: ENRICH_SCHEMA,
  cards: CARDS_SCHEMA,
  embed: EMBED_SCHEMA,
  sync: SYNC_SCHEMA,
});

export interface VaultMemoryConfig extends ScopeRules {
  recall: RecallRules;
  brief: BriefSettings;
  index: IndexSettings;
  queue: QueueRules;
  lint: LintSettings;
  digest: DigestSettings;
  enrich: EnrichSettings;
  cards: CardSettings;
  embed: EmbedSettings;
  sync: SyncSettings;
}

export function defaultConfig(): VaultMemoryConfig {
  return defaultsOf(CONFIG_SCHEMA);
}

/**
 * Defaults overlaid with whatever in `raw` has the right type. A wrong value is its key's default
 * and a message in `problems` ("digest.maxCalls: expected a non-negative number, got "ten"; using
 * 30"), as is a key that is not a setting: a typo in a setting must not switch recall off.
 */
export function mergeConfig(raw: unknown, problems: string[] = []): VaultMemoryConfig {
  // Type-checked: what the schema reads is a VaultMemoryConfig.
  return readSettings(CONFIG_SCHEMA, raw, "", problems);
}

/** What a snapshot records of the settings: recall's rules, and semantic recall's only when it is on. */
export function recallRulesOf(config: VaultMemoryConfig): RecallRules {
  const semantic = semanticRulesOf(config.embed);
  return semantic ? { ...config.recall, semantic } : config.recall;
}

/** Where a command's settings come from on this machine (see machine-config.ts). */
export interface SettingsSources {
  /** The per-user file, or the file a `--config FILE` flag names; default: userConfigPath(env). */
  userFile?: string;
  /** Settings handed over whole (Obsidian's, on stdin with `--config -`): they are this machine's own. */
  given?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
}

export interface LoadedSettings {
  config: VaultMemoryConfig;
  /** The per-user file read, for messages. */
  userFile: string;
  /** Machine keys the vault's config.json sets that were not used, as "room.key". */
  ignored: string[];
}

/**
 * A vault's settings as a command runs with them: the vault's config.json for what it may decide
 * (recall tuning, lint, the queue's rules), this machine's settings for what runs and where text
 * goes, and this machine's values over the vault's for everything else. A problem in either file
 * is reported, never fatal, as mergeConfig's are.
 */
export function loadVaultConfig(vault: string, sources: SettingsSources = {}, problems: string[] = []): LoadedSettings {
  const env = sources.env ?? process.env;
  const userFile = sources.userFile ?? userFileOf(undefined, env);
  const vaultRaw = readOrReport(vaultFiles.config(vault), problems);
  if (vaultRaw[SMTP_PASSWORD_KEY] !== undefined)
    problems.push(
      `${vaultFiles.config(vault)} holds ${SMTP_PASSWORD_KEY}, which is not used: a password is never read from the vault, which others may read and write; set it in ${userFile} (yours alone) or ${SMTP_PASSWORD_ENV}`,
    );
  let mine: Record<string, unknown>;
  if (sources.given) mine = sources.given;
  else {
    let shared = "";
    let user: Record<string, unknown> = {};
    try {
      user = readSettingsFile(userFile, { notPrivate: (why) => (shared = why) }) ?? {};
    } catch (err) {
      problems.push(`${(err as Error).message}; its settings are not used`);
    }
    mine = userSettingsFor(user, vault);
    // A file reached inside the vault (a link to it, XDG_CONFIG_HOME there) is as much the vault's
    // other writers' as the vault's own config.json.
    const inVault = insideVaultProblem(userFile, vault);
    if (inVault) shared = `${inVault}, which others may write`;
    // A file another account can write must not choose what runs as this one.
    if (shared && Object.keys(machineKeysOf(mine)).length > 0) {
      problems.push(`${shared}; its settings that run a program or send text elsewhere are not used`);
      mine = withoutMachineKeys(mine);
    }
  }
  const raw = overlay(withoutMachineKeys(vaultRaw), mine);
  const ignored = ignoredVaultKeys(vaultRaw, raw);
  return { config: mergeConfig(raw, problems), userFile, ignored };
}

/** Why the vault's own machine settings were not used, and how the person can use them. */
export function ignoredMessage(vault: string, loaded: LoadedSettings): string {
  if (loaded.ignored.length === 0) return "";
  return (
    `${vaultFiles.config(vault)} sets ${loaded.ignored.join(", ")}, which ${loaded.ignored.length === 1 ? "is" : "are"} not used: ` +
    `settings that run a program or send your text to a server are read only from this computer (${loaded.userFile}), never from the vault, ` +
    `which others may write. To use them here, run the bridge's "trust --vault" command: it shows them and copies them there with --yes`
  );
}

function readOrReport(path: string, problems: string[]): Record<string, unknown> {
  try {
    return readSettingsFile(path) ?? {};
  } catch (err) {
    problems.push(`${(err as Error).message}; its settings are not used`);
    return {};
  }
}

// Their homes are the modules that use them; they are here too so that callers holding a config
// need one import.
export { indexOptionsOf, type IndexSettings } from "./index/index-options";
export { isCard } from "./vault/scan";
export { DEFAULT_BRIEF, DEFAULT_MAX_CHARS, type BriefSettings } from "./recall/settings";
export type { CardSettings } from "./card/settings";
