/** What recall is told to do: scoring, thresholds, signals and the output cap, as settings hold them and the snapshot header records them. */

import type { ScoringRules, ThresholdRules } from "../index/scorer";
import type { SignalRules } from "./signals";

export interface RecallRules {
  scoring: ScoringRules;
  thresholds: ThresholdRules;
  /** Hard cap on the characters recall prints. */
  maxChars: number;
  signals: SignalRules;
  /**
   * Present only when semantic recall is on, so that with it off the snapshot, and every recall,
   * is byte for byte what it was before there was semantic recall.
   */
  semantic?: SemanticRules;
}

/** What the prompt hook needs to ask for the prompt's vector and fuse it (see embed/settings.ts). */
export interface SemanticRules {
  provider: "ollama" | "openai";
  url: string;
  model: string;
  budgetMs: number;
  allowRemote: boolean;
  /** Cosine under this adds nothing. */
  floor: number;
  /** How much meaning counts against words (see fuseSemantic in recall.ts). */
  weight: number;
}
