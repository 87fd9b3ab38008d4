/** Semantic recall's settings: a local embedding model the person runs, off unless they turn it on. */

import { insideVaultProblem } from "../io/program-path";
import { readSettingsFile, userFileOf, userSettingsFor } from "../machine-config";

export type EmbedProvider = "ollama" | "openai";

/** What the prompt hook needs to ask for the prompt's vector and fuse it (see trustedSemantic below); recall/rules keeps it in a snapshot's rules. */
export interface SemanticRules {
  provider: "ollama" | "openai";
  url: string;
  model: string;
  budgetMs: number;
  allowRemote: boolean;
  /** The stand-out (see embed/calibration.ts) a card words found needs to be shown; what its words add lowers it. */
  gate: number;
  /** The stand-out at which a card is shown on meaning alone, sharing no words with the prompt. */
  alone: number;
  /** How much meaning counts against words (see fuseSemantic in recall/recall.ts). */
  weight: number;
  /** This machine's mark for a question, when its settings name one (see profile.ts); never the snapshot's. */
  queryPrefix?: string;
  inputType?: "auto" | "send" | "omit";
}

export interface EmbedSettings {
  enabled: boolean;
  /** Ollama's `/api/embed`, or the OpenAI-compatible `/v1/embeddings` (LM Studio, llama.cpp, vLLM, TEI). */
  provider: EmbedProvider;
  /** The server's base URL; only this is ever contacted. */
  url: string;
  model: string;
  /** The prompt hook waits at most this long for the prompt's vector, then answers from words alone. */
  budgetMs: number;
  /** A URL that is not this computer is used only once the person has confirmed it. */
  allowRemote: boolean;
  /** Texts per request at index time. */
  batchSize: number;
  /**
   * The most one `index` or `embed` run spends embedding, in seconds, whatever the server does:
   * what was embedded by then is kept and the next run goes on from there.
   */
  runBudgetSec: number;
  /**
   * How far above the rest of the vault, in spreads (its calibration's), a card's likeness to the
   * prompt must be for a card words found to be shown: meaning's veto on a shared stray word.
   */
  gate: number;
  /** The same for a card that shares too few words to be found by them: shown on meaning alone. */
  alone: number;
  /** A card at `alone` gains this many times the minimum score (see fuseSemantic). */
  weight: number;
  /** What goes before a question's text ("query: " for e5); "auto" for the model's preset (see profile.ts). */
  queryPrefix: string;
  /** What goes before a card's text ("passage: " for e5); "auto" for the model's preset. */
  passagePrefix: string;
  /** Whether a request says which side its texts are on (`input_type`), for a server that marks them itself; "auto" by the model. */
  inputType: "auto" | "send" | "omit";
}

export const DEFAULT_EMBED: EmbedSettings = {
  enabled: false,
  provider: "ollama",
  url: "http://127.0.0.1:11434",
  model: "bge-m3",
  budgetMs: 150,
  allowRemote: false,
  batchSize: 16,
  // The old single request's allowance (a model's first load fits), now for the whole run.
  runBudgetSec: 120,
  // Chosen on the development sets with multilingual-e5-small (docs/semantic-recall.md); in
  // spreads, the same measure whatever the model.
  gate: 3.5,
  alone: 4,
  weight: 1,
  queryPrefix: "auto",
  passagePrefix: "auto",
  inputType: "auto",
};

/**
 * How long the server may take where a person asked and waits anyway (Preview recall, the MCP
 * search, similar cards, the digest), rather than on every prompt (`budgetMs`).
 */
export const PATIENT_EMBED_MS = 2000;

/** How to get the suggested model, for the settings and the docs. */
export const SUGGESTED_PULL = "ollama pull bge-m3";

/** Why `url` cannot be used, or "" when it can: http(s) only, and this computer unless allowed. */
export function endpointProblem(url: string, allowRemote: boolean): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return `${u.protocol} is not http or https`;
  if (u.username || u.password) return "the URL must not hold a user name or password";
  if (!allowRemote && !isLoopback(u.hostname)) return `${u.hostname} is not this computer: confirm a remote embedding server in the settings first`;
  return "";
}

export function isLoopback(host: string): boolean {
  const h = bareHost(host).toLowerCase();
  return h === "localhost" || h === "::1" || (isIPv4(h) && h.startsWith("127."));
}

// Host checks without regular expressions: these run before the prompt hook's request leaves,
// and V8 compiles a regular expression on its first use.

/** A URL's host without the brackets an IPv6 address is written in. */
export function bareHost(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** Four dot-separated numbers of one to three digits. */
export function isIPv4(host: string): boolean {
  const parts = host.split(".");
  return parts.length === 4 && parts.every((p) => p.length >= 1 && p.length <= 3 && [...p].every((c) => c >= "0" && c <= "9"));
}

/** The recall rules a snapshot records: the settings' own, with semantic recall's only when it is on. */
export function semanticRulesOf(e: EmbedSettings): SemanticRules | undefined {
  if (!e.enabled) return undefined;
  return { provider: e.provider, url: e.url, model: e.model, budgetMs: e.budgetMs, allowRemote: e.allowRemote, gate: e.gate, alone: e.alone, weight: e.weight };
}

/** The embedding server this machine sets for a vault: the per-user settings file's, never the vault's. */
export interface MachineEmbed {
  provider: EmbedProvider;
  url: string;
  model: string;
  allowRemote: boolean;
  /** The question's mark and whether to say which side it is on (see profile.ts): part of what is sent. */
  queryPrefix?: string;
  inputType?: "auto" | "send" | "omit";
  /** The file it was read from, for the log. */
  file: string;
}

/**
 * The server, its kind, its model and whether it may be another computer, for `vault`, from the
 * per-user settings file: a vault is a file others may write, and whoever can write it must not
 * choose where the person's prompts go. The reason there is none otherwise, for the log.
 */
export function machineEmbed(vault: string, configFlag?: string, env: NodeJS.ProcessEnv = process.env): MachineEmbed | string {
  const file = userFileOf(configFlag, env);
  let mine: Record<string, unknown>;
  try {
    mine = userSettingsFor(readSettingsFile(file, { private: true }), vault);
  } catch (err) {
    return `${(err as Error).message}; no embedding server is used`;
  }
  const e = mine.embed as Partial<EmbedSettings> | undefined;
  if (!e || e.enabled !== true) return `the snapshot asks for semantic recall, but it is not turned on in ${file}, the settings of this computer`;
  const provider = e.provider ?? DEFAULT_EMBED.provider;
  const url = typeof e.url === "string" && e.url.trim() !== "" ? e.url.trim() : DEFAULT_EMBED.url;
  const model = typeof e.model === "string" && e.model.trim() !== "" ? e.model.trim() : DEFAULT_EMBED.model;
  if (provider !== "ollama" && provider !== "openai") return `embed.provider in ${file} is not "ollama" or "openai"`;
  // A settings file reached inside the vault (a link, XDG_CONFIG_HOME there) is the vault's writers', not this computer's.
  const inVault = insideVaultProblem(file, vault);
  if (inVault) return `${inVault}; settings that send text elsewhere are read only from outside it, so no embedding server is used`;
  const queryPrefix = typeof e.queryPrefix === "string" && e.queryPrefix.length <= 64 ? e.queryPrefix : undefined;
  const inputType = e.inputType === "send" || e.inputType === "omit" ? e.inputType : undefined;
  return {
    provider,
    url,
    model,
    allowRemote: e.allowRemote === true,
    file,
    ...(queryPrefix !== undefined ? { queryPrefix } : {}),
    ...(inputType ? { inputType } : {}),
  };
}

/**
 * The snapshot's semantic rules with their destination taken from this machine (machineEmbed):
 * the snapshot's model must be the one set there, since its vectors were made with it. The
 * reason there is none otherwise, for the log.
 */
export function semanticOn(fromSnapshot: SemanticRules, machine: MachineEmbed | string): SemanticRules | string {
  if (typeof machine === "string") return machine;
  const { provider, url, model, allowRemote, file, queryPrefix, inputType } = machine;
  if (model !== fromSnapshot.model) return `the snapshot's vectors are of ${fromSnapshot.model}, but ${file} sets ${model}: index again`;
  return { ...fromSnapshot, provider, url, model, allowRemote, ...(queryPrefix !== undefined ? { queryPrefix } : {}), ...(inputType ? { inputType } : {}) };
}

/** semanticOn with this machine's settings read now: for the MCP server, which asks per search. */
export function trustedSemantic(fromSnapshot: SemanticRules, vault: string, configFlag?: string, env: NodeJS.ProcessEnv = process.env): SemanticRules | string {
  return semanticOn(fromSnapshot, machineEmbed(vault, configFlag, env));
}
