/** Settings shared by the plugin and the hook bridge, with defaults and a forgiving loader. */

import { TIME_OF_DAY } from "./digest/schedule";
import { ignoredVaultKeys, machineKeysOf, overlay, readSettingsFile, userFileOf, userSettingsFor, withoutMachineKeys } from "./machine-config";
import { vaultFiles } from "./paths";
import { DEFAULT_HINTS_PROPERTY } from "./card/hints";
import { isRelatedHeadingSetting } from "./card/related-heading";
import type { IndexSettings } from "./index/index-options";
import { DEFAULT_SCORING, DEFAULT_THRESHOLDS } from "./index/scorer";
import { DEFAULT_DIGEST, type DigestSettings } from "./digest/settings";
import { DEFAULT_ENRICH, LANGUAGE_TAG, MAX_QUESTIONS, type EnrichSettings } from "./enrich/settings";
import { DEFAULT_LINT_SETTINGS, type LintSettings } from "./lint/types";
import { DEFAULT_QUEUE_RULES, type QueueRules } from "./queue/capture";
import { DEFAULT_SIGNALS } from "./recall/signals";
import type { RecallRules } from "./recall/rules";
import { DEFAULT_EMBED, semanticRulesOf, type EmbedSettings } from "./embed/settings";
import type { ScopeRules } from "./vault/scan";

/** How new cards are written. */
export interface CardSettings {
  /** The heading of new related sections; "" follows the heading most of the vault's cards have. */
  relatedHeading: string;
}

/** The session brief (see recall/brief.ts). */
export interface BriefSettings {
  /** Whether a session starts with the brief in Claude's context. */
  enabled: boolean;
  /** Its cap in characters, header included. */
  maxChars: number;
}

export const DEFAULT_BRIEF: BriefSettings = { enabled: true, maxChars: 1500 };

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
}

export const DEFAULT_MAX_CHARS = 2000;

export function defaultConfig(): VaultMemoryConfig {
  return {
    memoryFolder: "",
    excludeFolders: ["meta/digest"],
    recall: {
      scoring: { ...DEFAULT_SCORING },
      thresholds: { ...DEFAULT_THRESHOLDS },
      maxChars: DEFAULT_MAX_CHARS,
      signals: { ...DEFAULT_SIGNALS, typeWeights: { ...DEFAULT_SIGNALS.typeWeights } },
    },
    brief: { ...DEFAULT_BRIEF },
    index: { stem: true, foldChinese: true, splitKana: true, prefixLength: 5, synonymsNote: "meta/synonyms.md", hintsProperty: DEFAULT_HINTS_PROPERTY },
    queue: { ...DEFAULT_QUEUE_RULES, excludeProjects: [] },
    lint: { ...DEFAULT_LINT_SETTINGS, disabled: [], excludeFolders: [...DEFAULT_LINT_SETTINGS.excludeFolders] },
    digest: { ...DEFAULT_DIGEST, command: [...DEFAULT_DIGEST.command] },
    enrich: { ...DEFAULT_ENRICH },
    cards: { relatedHeading: "" },
    embed: { ...DEFAULT_EMBED },
  };
}

/**
 * Defaults overlaid with whatever in `raw` has the right type. A wrong value is reported, not
 * fatal: a typo in a setting must not switch recall off.
 */
export function mergeConfig(raw: unknown, problems: string[] = []): VaultMemoryConfig {
  const cfg = defaultConfig();
  if (raw === undefined) return cfg;
  if (!isObject(raw)) {
    problems.push("config is not a JSON object");
    return cfg;
  }
  if (typeof raw.memoryFolder === "string") cfg.memoryFolder = raw.memoryFolder;
  else if (raw.memoryFolder !== undefined) problems.push("memoryFolder must be a string");
  if (Array.isArray(raw.excludeFolders) && raw.excludeFolders.every((f) => typeof f === "string")) {
    cfg.excludeFolders = raw.excludeFolders;
  } else if (raw.excludeFolders !== undefined) problems.push("excludeFolders must be a list of strings");
  if (isObject(raw.recall)) {
    const r = raw.recall;
    overlayNumbers(cfg.recall.scoring as unknown as Record<string, number>, r.scoring, "recall.scoring", problems);
    overlayNumbers(cfg.recall.thresholds as unknown as Record<string, number>, r.thresholds, "recall.thresholds", problems);
    if (typeof r.maxChars === "number" && r.maxChars > 0) cfg.recall.maxChars = r.maxChars;
    else if (r.maxChars !== undefined) problems.push("recall.maxChars must be a positive number");
    if (isObject(r.signals)) {
      const { typeWeights, ...numbers } = r.signals;
      const signals = cfg.recall.signals;
      overlayNumbers(signals as unknown as Record<string, number>, numbers, "recall.signals", problems);
      if (isObject(typeWeights)) {
        // Replaced whole: the person's table is the table, so removing a type removes its weight.
        const table = Object.create(null) as Record<string, number>;
        for (const [k, v] of Object.entries(typeWeights)) {
          if (typeof v === "number" && Number.isFinite(v) && v >= 0) table[k.toLowerCase()] = v;
          else problems.push(`recall.signals.typeWeights.${k} must be a non-negative number`);
        }
        signals.typeWeights = table;
      } else if (typeWeights !== undefined) problems.push("recall.signals.typeWeights must be an object");
    }
  }
  if (isObject(raw.brief)) {
    const { enabled, maxChars } = raw.brief;
    if (typeof enabled === "boolean") cfg.brief.enabled = enabled;
    else if (enabled !== undefined) problems.push("brief.enabled must be true or false");
    // Claude Code shows a hook's output whole up to 10,000 characters; past that, a preview.
    if (typeof maxChars === "number" && Number.isInteger(maxChars) && maxChars >= 200 && maxChars <= 10_000) cfg.brief.maxChars = maxChars;
    else if (maxChars !== undefined) problems.push("brief.maxChars must be a whole number from 200 to 10000");
  }
  if (isObject(raw.queue)) {
    const q = raw.queue;
    const { excludeProjects, ...numbers } = q;
    overlayNumbers(cfg.queue as unknown as Record<string, number>, numbers, "queue", problems);
    if (Array.isArray(excludeProjects) && excludeProjects.every((g) => typeof g === "string")) cfg.queue.excludeProjects = excludeProjects;
    else if (excludeProjects !== undefined) problems.push("queue.excludeProjects must be a list of strings");
  }
  if (isObject(raw.lint)) {
    const { disabled, excludeFolders, ...numbers } = raw.lint;
    overlayNumbers(cfg.lint as unknown as Record<string, number>, numbers, "lint", problems);
    for (const [key, value] of [["disabled", disabled], ["excludeFolders", excludeFolders]] as const) {
      if (Array.isArray(value) && value.every((x) => typeof x === "string")) cfg.lint[key] = value;
      else if (value !== undefined) problems.push(`lint.${key} must be a list of strings`);
    }
  }
  if (isObject(raw.digest)) {
    const { command, time, binary, model, reportCommand, ...numbers } = raw.digest;
    overlayNumbers(cfg.digest as unknown as Record<string, number>, numbers, "digest", problems);
    if (Array.isArray(command) && command.length > 0 && command.every((x) => typeof x === "string")) cfg.digest.command = command;
    else if (command !== undefined) problems.push("digest.command must be a non-empty list of strings");
    if (typeof time === "string" && TIME_OF_DAY.test(time.trim())) cfg.digest.time = time.trim();
    else if (time !== undefined) problems.push("digest.time must look like 03:00");
    for (const [key, value] of [["binary", binary], ["model", model], ["reportCommand", reportCommand]] as const) {
      if (typeof value === "string") cfg.digest[key] = value;
      else if (value !== undefined) problems.push(`digest.${key} must be a string`);
    }
  }
  if (isObject(raw.enrich)) {
    const { alsoLanguage, ...numbers } = raw.enrich;
    const e = cfg.enrich;
    overlayNumbers(e as unknown as Record<string, number>, numbers, "enrich", problems);
    // Whole numbers in range: a batch of 0 cards or 2.5 questions would ask for nothing useful.
    e.perNight = Math.floor(e.perNight);
    if (!Number.isInteger(e.batchSize) || e.batchSize < 1 || e.batchSize > 20) {
      problems.push("enrich.batchSize must be a whole number from 1 to 20");
      e.batchSize = DEFAULT_ENRICH.batchSize;
    }
    if (!Number.isInteger(e.questionsPerCard) || e.questionsPerCard < 1 || e.questionsPerCard > MAX_QUESTIONS) {
      problems.push(`enrich.questionsPerCard must be a whole number from 1 to ${MAX_QUESTIONS}`);
      e.questionsPerCard = DEFAULT_ENRICH.questionsPerCard;
    }
    if (typeof alsoLanguage === "string" && LANGUAGE_TAG.test(alsoLanguage.trim())) e.alsoLanguage = alsoLanguage.trim();
    else if (alsoLanguage !== undefined) problems.push('enrich.alsoLanguage must be a language tag such as "en" or "zh-TW", or ""');
  }
  if (isObject(raw.embed)) {
    const { enabled, provider, url, model, allowRemote, ...numbers } = raw.embed;
    const e = cfg.embed;
    overlayNumbers(e as unknown as Record<string, number>, numbers, "embed", problems);
    if (!(e.budgetMs >= 10 && e.budgetMs <= 5000)) {
      problems.push("embed.budgetMs must be from 10 to 5000");
      e.budgetMs = DEFAULT_EMBED.budgetMs;
    }
    if (!(e.floor >= 0 && e.floor < 1)) {
      problems.push("embed.floor must be from 0 to under 1");
      e.floor = DEFAULT_EMBED.floor;
    }
    if (!Number.isInteger(e.batchSize) || e.batchSize < 1 || e.batchSize > 256) {
      problems.push("embed.batchSize must be a whole number from 1 to 256");
      e.batchSize = DEFAULT_EMBED.batchSize;
    }
    if (!(e.runBudgetSec >= 1 && e.runBudgetSec <= 86_400)) {
      problems.push("embed.runBudgetSec must be from 1 to 86400 seconds");
      e.runBudgetSec = DEFAULT_EMBED.runBudgetSec;
    }
    for (const [key, value] of [["enabled", enabled], ["allowRemote", allowRemote]] as const) {
      if (typeof value === "boolean") e[key] = value;
      else if (value !== undefined) problems.push(`embed.${key} must be true or false`);
    }
    if (provider === "ollama" || provider === "openai") e.provider = provider;
    else if (provider !== undefined) problems.push('embed.provider must be "ollama" or "openai"');
    for (const [key, value] of [["url", url], ["model", model]] as const) {
      if (typeof value === "string" && value.trim() !== "") e[key] = value.trim();
      else if (value !== undefined) problems.push(`embed.${key} must be a non-empty string`);
    }
  }
  if (isObject(raw.cards)) {
    const h = raw.cards.relatedHeading;
    if (typeof h === "string" && isRelatedHeadingSetting(h.trim())) cfg.cards.relatedHeading = h.trim();
    else if (h !== undefined) problems.push('cards.relatedHeading must be "" (follow the vault) or one heading such as "## Related"');
  }
  if (isObject(raw.index)) {
    const i = raw.index;
    for (const key of ["stem", "foldChinese", "splitKana"] as const) {
      if (typeof i[key] === "boolean") cfg.index[key] = i[key];
      else if (i[key] !== undefined) problems.push(`index.${key} must be true or false`);
    }
    if (typeof i.prefixLength === "number" && Number.isInteger(i.prefixLength) && i.prefixLength >= 0) cfg.index.prefixLength = i.prefixLength;
    else if (i.prefixLength !== undefined) problems.push("index.prefixLength must be a whole number");
    if (typeof i.synonymsNote === "string") cfg.index.synonymsNote = i.synonymsNote;
    else if (i.synonymsNote !== undefined) problems.push("index.synonymsNote must be a string");
    // A property name, not a path: YAML keys with spaces or colons would need quoting everywhere.
    if (typeof i.hintsProperty === "string" && /^[A-Za-z0-9_-]{1,40}$/.test(i.hintsProperty)) cfg.index.hintsProperty = i.hintsProperty;
    else if (i.hintsProperty !== undefined) problems.push("index.hintsProperty must be a property name of letters, digits, - or _");
  }
  return cfg;
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
  let mine: Record<string, unknown>;
  if (sources.given) mine = sources.given;
  else {
    let shared = "";
    let user: Record<string, unknown> = {};
    try {
      user = readSettingsFile(userFile, { notPrivate: (why) => (shared = why) }) ?? {};
    } catch (err) {
      problems.push((err as Error).message);
    }
    mine = userSettingsFor(user, vault);
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
    problems.push((err as Error).message);
    return {};
  }
}

function overlayNumbers(target: Record<string, number>, source: unknown, where: string, problems: string[]): void {
  if (source === undefined) return;
  if (!isObject(source)) {
    problems.push(`${where} must be an object`);
    return;
  }
  for (const key of Object.keys(target)) {
    const v = source[key];
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) target[key] = v;
    else if (v !== undefined) problems.push(`${where}.${key} must be a non-negative number`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// Their homes are the modules that use them; they are here too so that callers holding a config
// need one import.
export { indexOptionsOf, type IndexSettings } from "./index/index-options";
export { isCard } from "./vault/scan";
