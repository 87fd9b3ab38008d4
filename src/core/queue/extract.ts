/** Rule-based extraction: typed candidates for cards, pulled from a condensed conversation. */

import { clip } from "../text/clip";
import type { Turn } from "../transcript/read-transcript";

export type CandidateKind = "code" | "decision" | "constraint" | "todo" | "fact";

export interface Candidate {
  kind: CandidateKind;
  text: string;
  /** Index of the turn it came from, in the condensed conversation. */
  turn: number;
}

// Fragments shorter than this are not worth a person's attention in a review.
const MIN_CHARS = 15;
const MAX_CHARS = 600;
const MAX_CANDIDATES = 60;

// First match wins: an open question ("要不要…") is a todo before it is a constraint.
const RULES: [CandidateKind, RegExp][] = [
  [
    "decision",
    /(决定|決定|最终选|最終選|改成|改用|放弃|放棄|采用|採用|\bdecided\b|\bswitched to\b|\bwe'll use\b|\bwe will use\b|\bgoing with\b|\bchose\b|\bchosen\b)/i,
  ],
  ["todo", /(待确认|待確認|下次|之后再|之後再|\bTODO\b|\bFIXME\b|\bnext time\b|\bfollow[- ]up\b|\blater we\b)/i],
  ["constraint", /(必须|必須|不能|禁止|不要|不可以|务必|務必|\bmust\b|\bnever\b|\bmust not\b|\bdo not\b|\bdon't ever\b|\balways\b)/i],
];

// Commands, paths, versions and config values: facts that are tedious to rediscover.
const FACT =
  /(`[^`\n]{3,}`|(?:^|\s)(?:npm|npx|pnpm|yarn|git|brew|apt(?:-get)?|pip|cargo|go|docker|kubectl|node|python3?|launchctl|systemctl)\s+\S+|(?:~|\.{1,2})?\/[\w.-]+\/[\w./-]+|\bv?\d+\.\d+\.\d+\b|\b[A-Z][A-Z0-9_]{2,}=\S+)/;

const FENCE = /^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1\2[ \t]*$/gm;

export function extractCandidates(turns: readonly Turn[]): Candidate[] {
  return moreCandidates([], turns, 0);
}

/**
 * `earlier` candidates, then those of `turns`, numbered from `firstTurn`: for turns added to a
 * conversation already queued, whose own turns are no longer at hand.
 */
export function moreCandidates(earlier: readonly Candidate[], turns: readonly Turn[], firstTurn: number): Candidate[] {
  const out: Candidate[] = earlier.slice(0, MAX_CANDIDATES);
  const seen = new Set(out.map((c) => c.kind + "\u0000" + c.text));
  const push = (c: Candidate): void => {
    const key = c.kind + "\u0000" + c.text;
    if (c.text.length < MIN_CHARS || seen.has(key) || out.length >= MAX_CANDIDATES) return;
    seen.add(key);
    out.push(c);
  };
  turns.forEach((turn, i) => {
    // Code blocks verbatim, then the prose without them, sentence by sentence.
    for (const m of turn.text.matchAll(FENCE)) push({ kind: "code", text: m[0].trim(), turn: firstTurn + i });
    const prose = turn.text.replace(FENCE, " ");
    for (const sentence of sentences(prose)) {
      const kind = RULES.find(([, re]) => re.test(sentence))?.[0] ?? (FACT.test(sentence) ? "fact" : undefined);
      if (kind) push({ kind, text: clip(sentence, MAX_CHARS), turn: firstTurn + i });
    }
  });
  return out;
}

/** Sentences and list items, split at full stops of either script and at line breaks. */
function sentences(text: string): string[] {
  return text
    .replace(/([。！？])/g, "$1\n")
    .replace(/([.!?])\s+(?=[A-Z"'`([])/g, "$1\n")
    .split(/\n+/)
    .map((s) => s.replace(/^\s*(?:[-*+]|\d+\.)\s+/, "").trim())
    .filter((s) => s !== "");
}
