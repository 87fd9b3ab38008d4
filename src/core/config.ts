/** Settings shared by the plugin and the hook bridge, with defaults and a forgiving loader. */

import { readFileSync } from "node:fs";
import { DEFAULT_SCORING, DEFAULT_THRESHOLDS } from "./index/scorer";
import type { RecallRules } from "./snapshot/format";
import type { ScopeRules } from "./vault/scan";

export interface VaultMemoryConfig extends ScopeRules {
  recall: RecallRules;
}

export const DEFAULT_MAX_CHARS = 2000;

export function defaultConfig(): VaultMemoryConfig {
  return {
    memoryFolder: "",
    excludeFolders: ["meta/digest"],
    recall: { scoring: { ...DEFAULT_SCORING }, thresholds: { ...DEFAULT_THRESHOLDS }, maxChars: DEFAULT_MAX_CHARS },
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
  }
  return cfg;
}

/** Reads `config.json`; a missing file means defaults, a broken one means defaults plus a problem. */
export function loadConfig(path: string, problems: string[] = []): VaultMemoryConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return defaultConfig();
  }
  try {
    return mergeConfig(JSON.parse(text), problems);
  } catch (err) {
    problems.push(`${path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    return defaultConfig();
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
