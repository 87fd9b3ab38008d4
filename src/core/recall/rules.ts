/** What recall is told to do: scoring, thresholds, signals and the output cap, as settings hold them and the snapshot header records them. */

import type { ScoringRules, ThresholdRules } from "../index/scorer";
import type { SignalRules } from "./signals";
import type { SemanticRules } from "../embed/settings";

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
