/** Turns a prompt into the lines Claude sees: score, rerank by signals, apply thresholds, format under a cap. */

import { isVaultPage } from "../card/schema";
import { join } from "node:path";
import { synonymPhrases } from "../index/index-options";
import { POSTING_WIDTH, type DocInfo, type PostingSource } from "../index/postings";
import { applyThresholds, byScore, idfOf, scoreGroups, withHintCoverage, type Scored } from "../index/scorer";
import { isAcknowledgement } from "../text/chitchat";
import { clip } from "../text/clip";
import { quotedLine } from "../text/visible";
import type { RecallRules } from "./rules";
import type { SemanticRules } from "../embed/settings";
import type { EmbedResult } from "../embed/client";
import { buildQuery, requiredMatches, withCorrections } from "./query";
import type { QueryGroup } from "../index/scorer";
import { NOTES_CLOSE, NOTES_OPEN, QUOTED_NOTES, RECALL_HEADER } from "../text/recall-header";
import { projectTier, recencyWeight, typeWeight } from "./signals";
import { writtenInCjk } from "../text/tokenizer";

export interface RecalledCard {
  /** Vault-relative path. */
  path: string;
  description: string;
  type: string;
  project: string;
  /** Epoch ms of the card's `updated` date or mtime; 0 if unknown. */
  updated: number;
  score: number;
  /** The hint the prompt matched best (its index, and its text where the source keeps it). */
  hint?: { index: number; text?: string };
}

export interface Recall {
  cards: RecalledCard[];
  /** What the hook prints; "" when nothing matched. */
  text: string;
}

export interface RecallContext {
  /** The project the prompt comes from (see resolveProject); its cards go first. */
  project?: string;
  /** Cards already injected in this session: the next-best card takes their slot. */
  seen?: ReadonlySet<string>;
  now?: number;
  /** A `msSinceStart()` time past which scoring gives up (DeadlineExceeded) instead of answering late. */
  deadline?: number;
  /** How many of text's best cards signals may reorder; a search that lists more than the hook prints needs a larger pool. */
  pool?: number;
  /** Semantic recall's answer for this prompt: stand-out by card id, and how to fuse it. */
  semantic?: SemanticMatches;
  /**
   * Every project's cards, not only `project`'s and the cards of no project (a search asked to
   * look everywhere). Off by default: another project's card is shown only when the prompt names
   * that project or the card.
   */
  allProjects?: boolean;
  /**
   * Whether the card at a vault path is there now. A snapshot copied from another vault, or a
   * card deleted since the last index, would print a path that leads nowhere: such a card is
   * passed over and the next-best takes its place.
   */
  exists?: (path: string) => boolean;
  /** The line that opens the printed block: RECALL_HEADER, or what else the cards answer (FAILURE_HEADER). */
  header?: string;
  /**
   * The text was printed by a program (a failed command's error), not typed: its words are looked
   * up as written, without spelling corrections, since an unknown identifier there is not a typo.
   */
  printed?: boolean;
}

export interface SemanticMatches {
  /**
   * By card id, how far the card's likeness to the prompt stands above the vault's other cards'
   * (see embed/calibration.ts): the nearest cards, and every card words found that has a vector.
   */
  standOut: ReadonlyMap<number, number>;
  /** The stand-out a card words found must reach, less what its words vouch for it. */
  gate: number;
  /** The stand-out at which a card is shown on meaning alone. */
  alone: number;
  weight: number;
}

// How far words vouch for a card, in spreads of stand-out, for each e-fold its word score lies
// above the minimum: a card that matches many of a pasted error's rare words needs less meaning.
// Chosen with the gate on the development work sets (docs/semantic-recall.md).
const WORDS_VOUCH = 1;
// How far words vouch for it by the share of the prompt's words it matches: 4 spreads for the
// whole prompt, counted from 30%. A card that shares one stray word with a long prompt then needs
// more meaning, one that matches most of it less. Chosen with the gate on the development work
// sets, where it moved the gate's whole trade-off up (docs/semantic-recall.md).
const SHARE_VOUCH = 4;
const SHARE_FROM = 0.3;
// How far, in spreads, a card brought by meaning alone must stand above the next card.
const ALONE_LEAD = 1;

// Signals only reorder cards that text already found; the best dozen by text are plenty.
const RERANK_POOL = 12;
// With other projects' cards left out afterwards, more are taken so that a dozen may remain.
const SCOPED_POOL = 24;
const MAX_DESCRIPTION_CHARS = 200;
const LINKED_CEILING = 0.999;

export { RECALL_HEADER };

interface Candidate {
  doc: number;
  info: DocInfo;
  score: number;
  matched: number;
  hint?: number;
  /** Left out by the rare-word gate (ThresholdRules.rareWord). */
  lacksRareWord?: boolean;
}

export function recall(prompt: string | ReadPrompt, source: PostingSource, rules: RecallRules, vaultRoot: string, ctx: RecallContext = {}): Recall {
  const words = scoreWords(prompt, source, rules, vaultRoot, ctx);
  return words ? finishRecall(words, ctx.semantic) : { cards: [], text: "" };
}

/**
 * A prompt read once for a recall: whether it is an acknowledgement ("ok continue") and the words
 * to look for. The prompt hook asks both before semantic recall's request, while scoring and when
 * fusing; read once, each question is answered once a prompt.
 */
export interface ReadPrompt {
  text: string;
  ack: boolean;
  /** Its words as written, with their prefixes and synonyms, for the source's index options. */
  written: QueryGroup[];
}

/** Reads `prompt` for `source`'s index options; `ack` when the caller has already asked. */
export function readPrompt(prompt: string | ReadPrompt, source: PostingSource, ack?: boolean): ReadPrompt {
  if (typeof prompt !== "string") return prompt;
  const options = source.indexOptions;
  return { text: prompt, ack: ack ?? isAcknowledgement(prompt), written: buildQuery(prompt, options, synonymPhrases(options)) };
}

/** The word-scored part of a recall: what finishRecall ranks, with or without meaning. */
export interface WordScores {
  source: PostingSource;
  rules: RecallRules;
  vaultRoot: string;
  ctx: RecallContext;
  ranked: Scored[];
  /** The words looked for, as scored (with their corrections): the rare-word gate reads them again. */
  groups: readonly QueryGroup[];
  t: RecallRules["thresholds"];
  need: number;
  /** The prompt in lower case, to tell whether it names a project or a card. */
  said: string;
}

/**
 * Whether a prompt can be recalled for at all: not an acknowledgement ("ok continue") and with
 * words to look for. Semantic recall asks for no vector for a prompt that is not.
 */
export function wantsRecall(prompt: string | ReadPrompt, source: PostingSource): boolean {
  const read = readPrompt(prompt, source);
  return !read.ack && read.written.length > 0;
}

/** The prompt's words scored against the cards; undefined when it has no words to look for. */
export function scoreWords(
  prompt: string | ReadPrompt,
  source: PostingSource,
  rules: RecallRules,
  vaultRoot: string,
  ctx: RecallContext = {},
): WordScores | undefined {
  const { text, ack, written } = readPrompt(prompt, source);
  if (written.length === 0) return undefined;
  // An acknowledgement's words are not looked for harder than they are written.
  const groups = ack || ctx.printed ? written : withCorrections(written, source);
  const t = { ...rules.thresholds, minScore: effectiveMinScore(rules, source.docCount, text, ack) };
  const need = requiredMatches(groups.length, t.minMatchedTerms, t.minMatchedShare ?? 0);
  // Signals can lift a card by at most their product, so cards that could not reach the floor are cut early.
  const liftCeiling = maxLift(rules);
  const ranked = scoreGroups(groups, source, (s) => s.matched >= need && s.score * liftCeiling >= t.minScore, {
    deadline: ctx.deadline,
    floor: { matched: need, score: t.minScore / liftCeiling },
    // An acknowledgement is not a question, so it cannot match one: hints add nothing to it.
    hintBonus: ack ? 0 : rules.scoring.hintBonus,
  }).slice(0, ctx.pool ?? (ctx.project && !ctx.allProjects ? SCOPED_POOL : RERANK_POOL));
  return { source, rules, vaultRoot, ctx, ranked, groups, t, need, said: text.toLowerCase() };
}

/** Signals, meaning when given, thresholds and the text: the rest of a recall. */
export function finishRecall(w: WordScores, semantic?: SemanticMatches): Recall {
  const { source, rules, ctx, ranked, t, need } = w;
  const now = ctx.now ?? Date.now();
  const candidates: Candidate[] = [];
  let words: readonly Scored[] = ranked;
  if (semantic) {
    const cjk = writtenInCjk(w.said);
    const alone = Math.max(semantic.alone, chanceStandOut(source.docCount) + 1);
    words = fuseSemantic(ranked, { ...semantic, alone }, t.minScore, need, w.groups.length, (doc) => writtenInCjk(source.doc(doc)?.description ?? "") !== cjk);
  }
  const inScope = scopeOf(ctx, w.said);
  const aboutFloor = (t.minAboutWords ?? 0) * idfOf(1, Math.max(source.docCount, 2));
  const rare = t.rareWord ? sharingRareWord(w.groups, source, t.rareWord) : undefined;
  const rareEnough = (s: Scored): boolean => {
    const held = rare?.get(s.doc) ?? 0;
    return held > 0 && held * (s.matched / w.groups.length) >= (t.rareEvidence ?? 0);
  };
  for (const s of words) {
    // Before the card's row is read: most of what the gate turns away costs nothing more.
    if ((s.about ?? Infinity) < aboutFloor) continue;
    const info = source.doc(s.doc);
    // Overview and meta pages name every card: indexed, never recalled (isVaultPage).
    if (!info || isVaultPage(info.type) || !inScope(info) || (ctx.exists && !ctx.exists(info.path))) continue;
    candidates.push({
      doc: s.doc,
      info,
      score: withHintCoverage(s, info.hintSizes) * typeWeight(info, rules.signals) * recencyWeight(info, now, rules.signals),
      matched: s.matched,
      hint: s.hint,
      // A card meaning brought alone (about Infinity) has no word to share.
      ...(rare && s.about !== Infinity && !rareEnough(s) ? { lacksRareWord: true } : {}),
    });
  }
  candidates.sort(byScore);
  if (candidates.length > 1 && rules.signals.linkBoost !== 1) {
    const top = candidates[0];
    const linked = new Set(top.info.links);
    // A boost earned from the top card lifts a card towards it, never past it: the top card is
    // the one text found best, and a card it links to is its companion, not its replacement.
    const ceiling = top.score * LINKED_CEILING;
    for (const c of candidates.slice(1)) if (linked.has(c.doc)) c.score = Math.max(c.score, Math.min(ceiling, c.score * rules.signals.linkBoost));
    candidates.sort(byScore);
  }

  const project = ctx.project ?? "";
  const seen = ctx.seen;
  // After the signals, so the share of the best card is of the best card as reranked.
  const picked = applyThresholds(
    oneOfEachFamily(candidates),
    { ...t, minMatchedTerms: need },
    {
      // A copy of a card shown earlier in the session is that card again. A card without a rare
      // word still sets the bar for the others: the gate leaves out, it does not promote.
      skip: (c) =>
        c.lacksRareWord === true || (!!seen && (seen.has(c.info.path) || (c.info.copyOf !== undefined && seen.has(source.doc(c.info.copyOf)?.path ?? "")))),
      order: (a, b) => projectTier(a.info, project) - projectTier(b.info, project),
    },
  ).map((c): RecalledCard => ({
    path: c.info.path,
    description: c.info.description,
    type: c.info.type,
    project: c.info.project,
    updated: c.info.updated,
    score: c.score,
    ...(c.hint === undefined ? {} : { hint: { index: c.hint, text: c.info.hints?.[c.hint] } }),
  }));
  return { cards: picked, text: formatRecall(picked, w.vaultRoot, rules.maxChars, ctx.header) };
}

/**
 * The cards that hold one of the text's words (the word itself, not a prefix, a synonym or a
 * correction) that few cards hold, its IDF at least `share` of a word only one card holds, and
 * how many such words each holds. Only the short posting lists of rare words are walked, and
 * they are read already.
 */
function sharingRareWord(groups: readonly QueryGroup[], source: PostingSource, share: number): Map<number, number> {
  const n = Math.max(source.docCount, 2);
  const floor = share * idfOf(1, n);
  const out = new Map<number, number>();
  // A group for each distinct word (buildQuery), so each rare word is counted once.
  for (const g of groups) {
    const list = source.postings(g.term);
    if (!list || idfOf(list.length / POSTING_WIDTH, n) < floor) continue;
    const weight = ERROR_NAME.test(g.term) ? ERROR_NAME_WEIGHT : 1;
    for (let i = 0; i < list.length; i += POSTING_WIDTH) out.set(list[i], (out.get(list[i]) ?? 0) + weight);
  }
  return out;
}

// An exception's or a warning's name (OperationalError, ConditionalCheckFailedException,
// SettingWithCopyWarning, as the index stems them) or an error code (E0277, P2024): the one word
// that says which error it is, where another rare word may be only a tool or a module that several
// errors share. It counts as two rare words (chosen on the failed commands' development set,
// docs/prompt-hook.md).
const ERROR_NAME = /[a-z](?:error|exception|warn)$|^[a-z]{1,2}\d{3,5}$/;
const ERROR_NAME_WEIGHT = 2;

/**
 * One card for each family of sync conflict copies (vault/conflicts.ts), so that a note and its
 * copies never fill the slots together: the original, in the place of the family's best-scoring
 * card, when it is a candidate; else the family's best copy.
 */
function oneOfEachFamily(candidates: Candidate[]): Candidate[] {
  if (!candidates.some((c) => c.info.copyOf !== undefined)) return candidates;
  const first = new Map<number, Candidate>();
  const out: Candidate[] = [];
  for (const c of candidates) {
    const family = c.info.copyOf ?? c.doc;
    const best = first.get(family);
    if (!best) {
      first.set(family, c);
      out.push(c);
    } else if (c.doc === family) {
      // The original scored lower than its copy: it takes the copy's place and score.
      Object.assign(best, { doc: c.doc, info: c.info, hint: c.hint, matched: Math.max(best.matched, c.matched) });
    }
  }
  return out;
}

/**
 * Whether a card may be shown for a prompt from `ctx.project`: its own cards and the cards of no
 * project always; another project's only when the prompt names that project or the card (its
 * file name, or its title), since working in one repository a person rarely wants another's
 * gotchas, and each wrong card costs context and trust.
 */
function scopeOf(ctx: RecallContext, said: string): (info: DocInfo) => boolean {
  const project = (ctx.project ?? "").toLowerCase();
  if (!project || ctx.allProjects) return () => true;
  return (info) => {
    const theirs = info.project.toLowerCase();
    if (!theirs || theirs === project) return true;
    if (namesWord(said, theirs) || namesWord(said, theirs.replace(/[-_]+/g, " "))) return true;
    const file = info.path
      .slice(info.path.lastIndexOf("/") + 1)
      .replace(/\.md$/i, "")
      .toLowerCase();
    return file.length >= 4 && (namesWord(said, file) || namesWord(said, file.replace(/[-_]+/g, " ")));
  };
}

/** Whether `text` holds `name` as a word of its own: project "app" is not named by "mapping". */
export function namesWord(text: string, name: string): boolean {
  const isWordChar = (c: string | undefined): boolean => c !== undefined && /[a-z0-9]/.test(c);
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + name.length])) return true;
  }
  return false;
}

/**
 * Adds meaning to words, and lets it veto them. Every card with a vector has a stand-out: how far
 * its likeness to the prompt lies above the vault's other cards', in spreads (see
 * embed/calibration.ts). A card words found is kept only when its stand-out, with what its words
 * vouch for it (their score, and the share of the prompt's `words` it matches), reaches the gate:
 * a card that shares a stray word with the prompt but is about something else is dropped, which
 * is how a prompt no card answers stays quiet. A card at `alone` or above is kept without words
 * too (a paraphrase, a question in another language), and counts as matching the prompt's words.
 * Above the gate meaning adds to the word score, in its units: the minimum score (times `weight`)
 * at `alone`, at most twice that. A card without a vector (written
 * since the last index, or refused) is judged by its words as before; so is a card in another
 * language than the prompt (`acrossLanguages`): a small multilingual model likens texts in one
 * language more than a question to its answer in another, so its veto there would drop the
 * pairs words found across languages.
 */
export function fuseSemantic<T extends Pick<Scored, "doc" | "score" | "matched">>(
  ranked: readonly T[],
  m: SemanticMatches,
  minScore: number,
  need: number,
  words: number,
  acrossLanguages: (doc: number) => boolean = () => false,
): (T | Scored)[] {
  const span = Math.max(m.alone - m.gate, 0.5);
  const lift = (x: number): number => m.weight * minScore * Math.min(2, Math.max(0, (x - m.gate) / span));
  const out: (T | Scored)[] = [];
  for (const s of ranked) {
    const x = m.standOut.get(s.doc);
    if (x === undefined) {
      out.push(s);
      continue;
    }
    const vouched =
      (s.score > 0 && minScore > 0 ? WORDS_VOUCH * Math.log(s.score / minScore) : 0) + (words > 0 ? SHARE_VOUCH * (s.matched / words - SHARE_FROM) : 0);
    if (x < m.alone && x + vouched < m.gate && !acrossLanguages(s.doc)) continue;
    out.push(x >= m.alone ? { ...s, score: s.score + lift(x), matched: Math.max(s.matched, need), about: Infinity } : { ...s, score: s.score + lift(x) });
  }
  // On meaning alone, only the card the prompt points to above every other, by a clear lead: a
  // prompt about nothing in particular (chit-chat in a language the vault is not written in) is
  // near many cards at once, and lifts none of them clear of the rest.
  const have = new Set(ranked.map((s) => s.doc));
  let best: [number, number] | undefined;
  let runnerUp = -Infinity;
  for (const [doc, x] of m.standOut) {
    if (!best || x > best[1]) {
      runnerUp = best ? best[1] : runnerUp;
      best = [doc, x];
    } else runnerUp = Math.max(runnerUp, x);
  }
  if (best && !have.has(best[0]) && best[1] >= m.alone && best[1] - runnerUp >= ALONE_LEAD)
    out.push({ doc: best[0], score: lift(best[1]), matched: need, about: Infinity });
  return out.sort(byScore);
}

/**
 * The stand-out the likeliest card of `cards` reaches by chance: the largest of that many draws
 * of a normal variable is about the square root of twice the log of their number (2.3 spreads
 * for 15 cards, 3.1 for 126, 4.2 for 6,300). A card brought by meaning alone must stand out a
 * spread more than that, or a large vault would answer chit-chat with whichever card chance
 * lifted.
 */
export function chanceStandOut(cards: number): number {
  return Math.sqrt(2 * Math.log(Math.max(cards, 2)));
}

/** Where a recall with meaning gets it: the hook, the MCP server and Preview recall each their own way. */
export interface MeaningSource<P> {
  /** The prompt's vector, already asked for. */
  asked: Promise<EmbedResult>;
  /** Resolves once the request is on its way: the words are scored after it, while the server works. */
  sent?: Promise<unknown>;
  /** What the search needs, read while the server works (the hook reads the cards' vectors). */
  prepare?: () => P;
  /**
   * Stand-out by card id of `source` (see SemanticMatches): the nearest cards and every card of
   * `words` (the cards words found) that has a vector; throws with a reason when it cannot.
   */
  search: (vector: Float32Array, prepared: P | undefined, words: readonly number[]) => ReadonlyMap<number, number>;
  /** Lets go of what prepare took, when the search will not run. */
  release?: (prepared: P) => void;
  /** Told why the words alone answered. */
  fellBack: (reason: string) => void;
}

/** recall() with meaning fused in; on any failure the words alone answer, and `fellBack` hears why. */
export async function recallWithMeaning<P>(
  prompt: string | ReadPrompt,
  source: PostingSource,
  rules: RecallRules,
  vaultRoot: string,
  ctx: RecallContext,
  semantic: SemanticRules,
  m: MeaningSource<P>,
): Promise<Recall> {
  if (m.sent) await Promise.race([m.sent, m.asked]);
  const words = scoreWords(prompt, source, rules, vaultRoot, ctx);
  if (!words) return { cards: [], text: "" };
  const fallBack = (why: unknown): Recall => {
    m.fellBack(why instanceof Error ? why.message : String(why));
    return finishRecall(words);
  };
  let prepared: P | undefined;
  try {
    prepared = m.prepare?.();
    // The word-ranked cards' rows are read now, while the server works: finishRecall reads them
    // again after the answer, from the snapshot reader's cache.
    for (const s of words.ranked) source.doc(s.doc);
  } catch (err) {
    if (prepared !== undefined) m.release?.(prepared);
    return fallBack(err);
  }
  const r = await m.asked;
  if ("error" in r) {
    if (prepared !== undefined) m.release?.(prepared);
    return fallBack(r.error);
  }
  try {
    const standOut = m.search(
      r.vectors[0],
      prepared,
      words.ranked.map((s) => s.doc),
    );
    return finishRecall(words, { standOut, gate: semantic.gate, alone: semantic.alone, weight: semantic.weight });
  } catch (err) {
    return fallBack(err);
  }
}

// The vault size at which the user's minimum score of 15 was chosen (258 cards).
const REFERENCE_VAULT_CARDS = 258;

/**
 * The minimum score for this vault and prompt. Scores grow with IDF, and IDF with the number of
 * cards, so a fixed 15 would silence a new 15-card vault and let noise through in a 6,000-note
 * one: the floor keeps its meaning by scaling with the IDF of a term found in a single card.
 * A prompt that opens with an acknowledgement ("great, that worked, next step") is chit-chat
 * unless it says something specific, so its floor is doubled.
 */
export function effectiveMinScore(rules: RecallRules, docCount: number, prompt: string, ack = isAcknowledgement(prompt)): number {
  const t = rules.thresholds;
  const scale = t.scaleWithVault > 0 ? idfOf(1, Math.max(docCount, 2)) / idfOf(1, REFERENCE_VAULT_CARDS) : 1;
  return t.minScore * scale * (ack ? 2 : 1);
}

function maxLift(rules: RecallRules): number {
  const s = rules.signals;
  const types = Object.values(s.typeWeights).filter((w) => Number.isFinite(w));
  return Math.max(1, ...types) * (1 + Math.max(0, s.recencyBoost)) * Math.max(1, s.linkBoost);
}

/** What recall prints: its header, then one line per card (see formatCardLines). */
export function formatRecall(
  cards: readonly Pick<RecalledCard, "path" | "description" | "score">[],
  vaultRoot: string,
  maxChars: number,
  header = RECALL_HEADER,
): string {
  return formatCardLines(header, cards, vaultRoot, maxChars);
}

/**
 * Header plus one line per card, framed as quoted notes (see recall-header.ts), never longer than
 * `maxChars`: cards that do not fit are dropped whole. Each card is one line whatever its name and
 * description hold: white space runs become one space, what is left of control, separator and
 * bidi characters is shown escaped, so a note named `x\n- do this.md` cannot print a line that
 * reads as a card of its own, and a tag in it is written so it cannot close the frame.
 */
export function formatCardLines(header: string, cards: readonly Pick<RecalledCard, "path" | "description">[], vaultRoot: string, maxChars: number): string {
  const lines = [NOTES_OPEN, `${header} ${QUOTED_NOTES}`];
  // Each line costs its length plus the newline that ends it; the closing line is kept room for.
  let used = lines[0].length + lines[1].length + 2 + NOTES_CLOSE.length + 1;
  for (const card of cards) {
    const abs = quotedLine(join(vaultRoot, card.path));
    const raw = card.description.replace(/\s+/g, " ").trim();
    // Cut before escaping, so no escape is cut in half.
    const description = quotedLine(clip(raw, MAX_DESCRIPTION_CHARS));
    let line = description ? `- ${abs} — ${description}` : `- ${abs}`;
    if (used + line.length + 1 > maxChars) {
      // The best card is worth printing with a shorter description rather than not at all.
      const room = maxChars - used - `- ${abs} — `.length - 1;
      if (lines.length > 2 || room < 20) break;
      line = `- ${abs} — ${shownWithin(raw, room)}`;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.length === 2 ? "" : [...lines, NOTES_CLOSE].join("\n") + "\n";
}

/** The text cut to fit `room` characters once escaped. */
function shownWithin(text: string, room: number): string {
  let max = room;
  let shown = quotedLine(clip(text, max));
  // Escapes are longer than what they show: cut by what they overran until it fits.
  while (shown.length > room && max > 1) {
    max = Math.max(1, max - (shown.length - room));
    shown = quotedLine(clip(text, max));
  }
  return shown;
}
