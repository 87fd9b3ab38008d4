/** Signals beyond text: card type, recency, links from the top hit, and the current project. */

import type { DocInfo } from "../index/postings";

export interface SignalRules {
  /** Score multiplier per card `type`; types not listed count 1. */
  typeWeights: Record<string, number>;
  /** Days for the recency boost to halve. */
  recencyHalfLifeDays: number;
  /** The boost a card updated today gets (0.15 = +15%); it fades with age and never goes negative. */
  recencyBoost: number;
  /** Multiplier for cards the top card links to. */
  linkBoost: number;
}

export const DEFAULT_SIGNALS: SignalRules = {
  typeWeights: { decision: 1.2, debugging: 1.2, feedback: 1.1, project: 1.05, subproject: 1.05, teaching: 0.95, moc: 0.8, meta: 0.7 },
  recencyHalfLifeDays: 30,
  recencyBoost: 0.15,
  linkBoost: 1.1,
};

const DAY_MS = 86_400_000;

export function typeWeight(doc: DocInfo, rules: SignalRules): number {
  const w = Object.hasOwn(rules.typeWeights, doc.type) ? rules.typeWeights[doc.type] : undefined;
  return typeof w === "number" && Number.isFinite(w) && w >= 0 ? w : 1;
}

/** A gentle prior: 1 + boost × 0.5^(age / half-life). Never a cut-off, never below 1. */
export function recencyWeight(doc: DocInfo, now: number, rules: SignalRules): number {
  if (!doc.updated || rules.recencyHalfLifeDays <= 0) return 1;
  const ageDays = Math.max(0, (now - doc.updated) / DAY_MS);
  return 1 + rules.recencyBoost * Math.pow(0.5, ageDays / rules.recencyHalfLifeDays);
}

/** 0 for the current project's cards, 1 for global cards, 2 for other projects' cards. */
export function projectTier(doc: Pick<DocInfo, "project"> & Partial<DocInfo>, project: string): number {
  if (!doc.project) return 1;
  return project && doc.project.toLowerCase() === project.toLowerCase() ? 0 : 2;
}
