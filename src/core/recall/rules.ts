/** What recall is told to do: scoring, thresholds, signals and the output cap, as settings hold them and the snapshot header records them. */

import type { ScoringRules, ThresholdRules } from "../index/scorer";
import type { SignalRules } from "./signals";

export interface RecallRules {
  scoring: ScoringRules;
  thresholds: ThresholdRules;
  /** Hard cap on the characters recall prints. */
  maxChars: number;
  signals: SignalRules;
}
