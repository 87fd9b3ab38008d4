/** The nightly digest: queue → cards, then tidy, snapshot, commit and report. Run by the plugin and by cron. */

import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { baseName, hasFrontmatterBlock, parseCard } from "../card/card";
import { isCard, recallRulesOf, type VaultMemoryConfig } from "../config";
import type { MemoryIndex } from "../index/memory-index";
import { buildIndexFromDisk } from "../index/build-from-disk";
import { ChangedSince, rewriteText, writeFileAtomic, writeFileExclusive } from "../io/atomic";
import { formatReport, lintScope, lintVault, recallHistory } from "../lint/lint";
import { vaultFiles } from "../paths";
import {
  digestOrder,
  handledPath,
  holdEntry,
  listPending,
  markHandled,
  pendingPath,
  readEntry,
  readInbox,
  type HandledEntry,
  type QueueEntry,
} from "../queue/queue-store";
import { instructionIn } from "../text/instructions";
import { entrySubject, summarize } from "../queue/review";
import { similarCards, type SimilarCard } from "../recall/similar";
import { meaningTwin, similarWithMeaning } from "../recall/similar-meaning";
import { embedVault } from "../embed/embed-vault";
import { frontmatterBlock } from "../card/write-card";
import { writeSnapshot } from "../snapshot/write";
import { NoteCache } from "../vault/note-cache";
import { MAX_NOTE_BYTES, readNote } from "../vault/scan";
import { FileRefused, readRegularFile, readTextIfAny } from "../io/read-file";
import { escapeControl } from "../text/visible";
import { commandProblem, shellWords } from "../io/program-path";
import { validateAnswer, type DigestAction } from "./answer";
import { AnswerError, extractJson } from "../llm/answer";
import { applyAction, vaultRelatedHeading, withCardsLock, type Applied } from "./apply";
import { commitVault, type GitOutcome } from "./git";
import { callFailed, classifyFailure, endsRun, failureReason, settingsCommand } from "../llm/llm";
import { acquireLock, releaseLock } from "../llm/lock";
import { writeDigestStatus, type DigestStatus } from "./status";
import { MEMORY_INDEX, overviewPages, updateMemoryIndex, type MemoryIndexUpdate } from "./pages";
import type { Card } from "../card/card";
import { buildPrompt } from "./prompt";
import { defaultRules } from "./rules-note";
import { GENERATED_MARK, RULES_NOTE } from "../card/schema";
import { checkBeforeCreate, existingCards, type ExistingCards, type DuplicateOf } from "./dedupe";
import { archiveUnused, MAX_ARCHIVED_PER_NIGHT, type RetireReport } from "./retire";
import { consolidate, type ConsolidateReport } from "./consolidate";
import { consolidateLines, consolidationDue, noteConsolidated } from "./consolidate-run";
import { sendToCommand, type CommandResult } from "../llm/run-command";
import { mailReport, type MailContext } from "./mail";
import { enrichCards, type EnrichReport } from "../enrich/enrich";
import { diskStore } from "../enrich/store";

export { DEFAULT_DIGEST, type DigestSettings } from "./settings";

// As many as the LLM can weigh for an append without the prompt growing much.
const SIMILAR_CARDS = 5;

export interface DigestOptions {
  vault: string;
  config: VaultMemoryConfig;
  dryRun?: boolean;
  /** At most this many entries, on top of the budget. */
  limit?: number;
  /** Only these queue entries (the review sidebar's "Digest this one now"). */
  sessionIds?: readonly string[];
  now?: Date;
  onProgress?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The run's view of the vault; a test passes its own to count the reads. */
  notes?: NoteCache;
  /** Said in the night's report: which of the vault's own settings were not used, and why (see machine-config.ts). */
  settingsNotice?: string;
  /**
   * Stops the night without waiting for a deadline: the LLM call or report command under way is
   * killed with all it started, as at its deadline, and a stopped call ends the night as a call
   * with no answer in its time does. What the night wrote is kept, and its report written.
   */
  signal?: AbortSignal;
  /** How to mail the report when digest.mail names a server: the bridge loads its mail bundle (see mail.ts). */
  mail?: MailContext;
}

export interface DigestReport {
  ok: boolean;
  error?: string;
  dryRun: boolean;
  results: { sessionId: string; outcome: Applied }[];
  failures: { sessionId: string; reason: string }[];
  left: number;
  lint?: string;
  git?: GitOutcome;
  reportPath?: string;
  /** Why the report command failed, or the mail did not go, when either happened. */
  notify?: string;
  /** Recall hints written after the queue, when there was budget left. */
  enriched?: EnrichReport;
  /** Cards that may contradict an older card of the same project and subject (lint's possible-contradiction). */
  contradictions?: { path: string; message: string }[];
  /** The month's consolidation, when it ran tonight (digest.consolidate). */
  consolidated?: ConsolidateReport;
  /** Cards archived as unused tonight (digest.archiveUnused), and why none could be. */
  retired?: RetireReport;
  /** What the report says of MEMORY.md: the person's text kept beside the index, a list cut to fit, markers that do not pair. */
  memoryIndex?: string[];
  /** With semantic recall on: why similar cards were found by words alone, and what embedding the night's snapshot did. */
  semantic?: string[];
  /** The vault's own settings for what runs and where text goes that this computer did not use. */
  settingsNotice?: string;
  startedAt: string;
  finishedAt: string;
}

export async function runDigest(opts: DigestOptions): Promise<DigestReport> {
  const now = opts.now ?? new Date();
  const say = opts.onProgress ?? (() => {});
  // What waits is known before anything can stop the run, so a run that stops at once still
  // reports the queue as it is, not as empty.
  const report: DigestReport = {
    ok: true,
    dryRun: !!opts.dryRun,
    results: [],
    failures: [],
    left: listPending(opts.vault).length,
    startedAt: now.toISOString(),
    finishedAt: "",
    ...(opts.settingsNotice ? { settingsNotice: opts.settingsNotice } : {}),
  };
  const lockPath = vaultFiles.digestLock(opts.vault);
  if (!opts.dryRun) {
    const lock = acquireLock(lockPath, now.getTime());
    if (!lock.ok)
      return finish(
        opts,
        { ...report, ok: false, error: `another digest is running (${lock.holder.host}, pid ${lock.holder.pid}, since ${lock.holder.startedAt})` },
        false,
      );
  }
  try {
    const llm = settingsCommand(opts.config.digest, opts.env, opts.vault);
    if ("error" in llm) return await finish(opts, { ...report, ok: false, error: llm.error });
    const run = startRun(opts, report, now, say, llm.command);
    await digestQueue(run);
    // Nothing came of the queue at all: the night did not do its work, whatever the reasons.
    if (report.ok && report.failures.length > 0 && report.results.length === 0) {
      report.ok = false;
      report.error = `every conversation tried failed (${report.failures.length}); the first: ${report.failures[0].reason}`;
    }
    report.left = listPending(opts.vault).length - (opts.dryRun ? report.results.length : 0);
    await enrichAfterQueue(run);
    // After the queue, so a card tonight's conversations extended is judged as used.
    // Once a month, within what is left of the night's calls: fragments merged before the unused are judged.
    if (opts.config.digest.consolidate && report.ok && run.calls < opts.config.digest.maxCalls && consolidationDue(opts.vault, now)) {
      report.consolidated = await consolidate({
        vault: opts.vault,
        config: opts.config,
        notes: run.notes,
        ask: run.ask,
        maxCalls: opts.config.digest.maxCalls - run.calls,
        dryRun: opts.dryRun,
        propose: opts.config.digest.reviewMerges,
        now,
        say,
      });
      run.calls += report.consolidated.calls;
      if (!opts.dryRun) {
        noteConsolidated(opts.vault, now);
        run.notes.refresh();
      }
    }
    if (opts.config.digest.archiveUnused && report.ok) {
      report.retired = archiveUnused(opts.vault, opts.config, run.notes, now, !!opts.dryRun);
      for (const a of report.retired.archived) say(`  ${opts.dryRun ? "would archive" : "archived"} ${a.path} (unused)`);
    }
    if (!opts.dryRun) {
      // Enrich wrote hints into cards: listed again, and those cards read again.
      run.notes.refresh();
      await tidy(opts, report, now, run.heading, run.notes, say, run.meaningFailed);
    }
    for (const s of run.notes.skipped) say(`skipped ${escapeControl(s.path)}: ${escapeControl(s.reason)}`);
    // Awaited here so that the lock is held until the report command is done too.
    return await finish(opts, report);
  } finally {
    if (!opts.dryRun) releaseLock(lockPath);
  }
}

/** One run: what it read once, how it asks the LLM, and what it has done so far. */
interface DigestRun {
  opts: DigestOptions;
  report: DigestReport;
  now: Date;
  say: (line: string) => void;
  ask: (prompt: string) => Promise<CommandResult>;
  notes: NoteCache;
  heading: string;
  rules: string;
  /** LLM calls made so far, against the digest's maxCalls. */
  calls: number;
  /** The embedding server failed tonight: similar cards are found by words alone from then on. */
  meaningFailed: boolean;
  /** The cards' texts, for the check before a card is created: read at the first create, kept up to date after. */
  existing?: ExistingCards;
}

/** Reads what a run needs once: the notes, the related heading and the card-writing rules. */
function startRun(opts: DigestOptions, report: DigestReport, now: Date, say: (line: string) => void, command: string[]): DigestRun {
  const settings = opts.config.digest;
  const ask = (prompt: string): Promise<CommandResult> =>
    sendToCommand(command, prompt, { timeoutMs: settings.timeoutSec * 1000, cwd: opts.vault, env: opts.env, signal: opts.signal });
  // Read once a night: the night's own cards follow it, so they cannot tip it.
  const notes = opts.notes ?? new NoteCache(opts.vault);
  const heading = vaultRelatedHeading(notes, opts.config);
  const rulesPath = join(opts.vault, RULES_NOTE);
  // Created only where no note is: one the person writes at the same moment is theirs.
  if (!existsSync(rulesPath) && !opts.dryRun) writeFileExclusive(rulesPath, defaultRules(heading));
  const rules = readRules(rulesPath, heading, say);
  return { opts, report, now, say, ask, notes, heading, rules, calls: 0, meaningFailed: false };
}

/** Sends each queued conversation to the LLM and applies its answer, within the night's budget. */
async function digestQueue(run: DigestRun): Promise<void> {
  const { opts } = run;
  const settings = opts.config.digest;
  // An entry held for the person's review waits for them, unless they ask for it by name.
  const pending = digestOrder(listPending(opts.vault)).filter((e) => (opts.sessionIds ? opts.sessionIds.includes(e.sessionId) : !e.held));
  const take = Math.min(settings.maxEntries, opts.limit ?? Infinity);
  // The vault is read once, and again only after a night's write changed it.
  let vaultState: VaultState | undefined;
  for (const entry of pending.slice(0, take)) {
    if (run.calls >= settings.maxCalls) break;
    run.say(`digesting ${entry.sessionId} (${entry.project || "no project"})`);
    vaultState ??= readVaultState(run.notes, opts.config);
    const step = await digestEntry(run, entry, vaultState);
    if (step === "stop") break;
    if (step === "wrote") vaultState = undefined;
  }
}

/** One conversation: asked of the LLM with its similar cards; says whether the vault changed or the run must stop. */
async function digestEntry(run: DigestRun, entry: QueueEntry, state: VaultState): Promise<"wrote" | "unchanged" | "stop"> {
  const { opts, report } = run;
  const earlier = opts.dryRun ? undefined : unfinished(opts.vault, entry);
  if (earlier) {
    try {
      return applyAndHandle(run, entry, earlier.action, state.cards, earlier.offered, true);
    } catch (err) {
      report.failures.push({ sessionId: entry.sessionId, reason: err instanceof Error ? err.message : String(err) });
      return "unchanged";
    }
  }
  const conversation = conversationOf(opts.vault, entry);
  // Each offered card as it is now on disk; one gone since the vault was read is not offered.
  const offered = new Map<string, number>();
  const similar = (await similarFor(run, entry, conversation, state.index)).flatMap((c) => {
    const mtime = mtimeOf(join(opts.vault, c.path));
    if (mtime === undefined) return [];
    offered.set(c.path, mtime);
    return [{ ...c, name: baseName(c.path) }];
  });
  run.calls++;
  const r = await run.ask(buildPrompt(run.rules, entry, conversation, similar, opts.config.enrich.alsoLanguage));
  if (callFailed(r)) {
    const reason = failureReason(r, opts.config.digest.timeoutSec);
    report.failures.push({ sessionId: entry.sessionId, reason });
    if (!endsRun(classifyFailure(r))) return "unchanged";
    report.ok = false;
    report.error = `stopped: ${reason}`;
    return "stop";
  }
  try {
    // Read once: the meaning check and the write both take the checked answer.
    const action = validateAnswer(extractJson(r.stdout));
    return applyAnswer(run, entry, action, state.cards, offered, await twinOf(run, action));
  } catch (err) {
    report.failures.push({ sessionId: entry.sessionId, reason: err instanceof Error ? err.message : String(err) });
    return "unchanged";
  }
}

/** Applies the LLM's checked answer; throws when it is refused. */
function applyAnswer(
  run: DigestRun,
  entry: QueueEntry,
  action: DigestAction,
  cards: string[],
  offered: Map<string, number>,
  twin?: string,
): "wrote" | "unchanged" {
  if (action.action === "skip" && entry.wanted) throw new AnswerError("the person asked to remember this conversation; it cannot be skipped");
  // A conversation can be steered: text that orders an assistant about is not written into a card,
  // where it would reach Claude on every recall; the person decides in the queue sidebar.
  const orders = ordersIn(action);
  if (orders !== undefined) {
    const reason = `held for review: the answer would write text that reads as instructions to an assistant ("${escapeControl(orders.slice(0, 80))}") into ${action.action === "append" ? action.target : "a new card"}`;
    if (!run.opts.dryRun) holdEntry(run.opts.vault, entry.sessionId, reason, run.now);
    run.report.failures.push({ sessionId: entry.sessionId, reason });
    run.say(`  ${reason}`);
    return "unchanged";
  }
  return applyAndHandle(run, entry, action, cards, offered, false, twin);
}

/** With semantic recall on, the card an answer's new card means as no other (see meaningTwin); undefined otherwise. */
async function twinOf(run: DigestRun, action: DigestAction): Promise<string | undefined> {
  if (!run.opts.config.embed.enabled || run.meaningFailed || action.action !== "create") return undefined;
  return meaningTwin(run.opts.vault, run.opts.config.embed, `${action.frontmatter.name}\n${action.frontmatter.description}\n${action.body}`);
}

/** The first text of an answer that reads as instructions to an assistant: what it would write into a card. */
function ordersIn(action: DigestAction): string | undefined {
  if (action.action === "skip") return undefined;
  const texts =
    action.action === "append"
      ? [action.section, ...(action.questions ?? [])]
      : [action.body, action.frontmatter.name, action.frontmatter.description, ...(action.frontmatter.aliases ?? []), ...(action.questions ?? [])];
  for (const t of texts) {
    const found = typeof t === "string" ? instructionIn(t) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Writes the answer's card and marks its entry handled, as one step a crash or a held lock can
 * interrupt and the next run completes: the answer is kept beside the entry (its journal) before
 * any card is written, and a run that finds it applies it again only where it is not already on
 * disk (a card of this session with its name, a section already in its card), then marks the
 * entry handled without asking the LLM again. So a conversation never becomes two cards.
 */
function applyAndHandle(
  run: DigestRun,
  entry: QueueEntry,
  action: DigestAction,
  cards: string[],
  offered: Map<string, number>,
  recovering: boolean,
  twin?: string,
): "wrote" | "unchanged" {
  const { opts, now } = run;
  const journal = journalPath(opts.vault, entry.sessionId);
  // Check before creating: a card the vault holds already is extended with what it lacks, or
  // nothing is written. Decided before the journal, so that a run finishing this one does the same.
  let duplicateOf: DuplicateOf | undefined;
  if (!recovering && action.action === "create") {
    const checked = checkBeforeCreate(action, existingCardsOf(run), ownCards(opts.vault, entry.sessionId), twin);
    if (checked.duplicateOf) {
      duplicateOf = checked.duplicateOf;
      action = checked.action;
      const mtime = mtimeOf(join(opts.vault, duplicateOf.path));
      if (mtime !== undefined) offered.set(duplicateOf.path, mtime);
    }
  }
  if (!opts.dryRun && !recovering && action.action !== "skip")
    writeFileAtomic(journal, JSON.stringify({ version: entryVersion(entry), action, offered: [...offered] }) + "\n");
  const apply = (): Applied => {
    const done = recovering ? alreadyApplied(run, entry, action) : undefined;
    if (done) return done;
    return applyAction(action, {
      vault: opts.vault,
      cards,
      notes: run.notes.list().map((f) => f.path),
      offered,
      sessionId: entry.sessionId,
      date: now.toISOString().slice(0, 10),
      dryRun: !!opts.dryRun,
      synonymsNote: opts.config.index.synonymsNote,
      hintsProperty: opts.config.index.hintsProperty,
      relatedHeading: run.heading,
      // As the night read it: a card that has lost its frontmatter since is being saved.
      hadFrontmatter: (p) => hasFrontmatterBlock(run.notes.lastRead(p) ?? ""),
    });
  };
  // One writer of cards at a time, beside sessions writing through the MCP server.
  const applied = opts.dryRun ? apply() : withCardsLock(opts.vault, apply);
  const outcome: Applied = duplicateOf ? { ...applied, duplicateOf } : applied;
  const wrote = !opts.dryRun && outcome.action !== "skipped";
  if (wrote) {
    run.notes.refresh();
    const text = readTextIfAny(join(opts.vault, outcome.path), { maxBytes: MAX_NOTE_BYTES });
    if (text !== undefined) run.existing?.set({ path: outcome.path, name: parseCard(outcome.path, text).name, text });
  }
  run.report.results.push({ sessionId: entry.sessionId, outcome });
  // A dry run wrote nothing, and must not read as if it had.
  run.say(
    `  ${opts.dryRun ? (WOULD[outcome.action] ?? `would be ${outcome.action}`) : outcome.action} ${outcome.path || outcome.detail}${recovering ? " (finishing an earlier run)" : ""}`,
  );
  if (!opts.dryRun) {
    try {
      markHandled(opts.vault, entry.sessionId, { action: outcome.action, detail: outcome.path || outcome.detail }, now, entry);
      rmSync(journal, { force: true });
    } catch (err) {
      // The card stands; the journal lets the next run mark the entry without writing it again.
      const reason = `${outcome.action} ${outcome.path || "it"}, but its queue entry could not be marked handled (${err instanceof Error ? err.message : String(err)}); the next run finishes it without asking again`;
      run.report.failures.push({ sessionId: entry.sessionId, reason });
      run.say(`  ${reason}`);
    }
  }
  return wrote ? "wrote" : "unchanged";
}

/** The vault's cards as the check before creating compares them, read at the night's first create. */
function existingCardsOf(run: DigestRun): ExistingCards {
  return (run.existing ??= existingCards(run.notes, run.opts.config));
}

/** The cards an earlier digest of this conversation wrote (its handled record), when it was filed before. */
function ownCards(vault: string, sessionId: string): string[] {
  const handled = readEntry<HandledEntry>(handledPath(vault, sessionId));
  const o = handled?.outcome;
  return o && (o.action === "created" || o.action === "extended") && o.detail ? [o.detail] : [];
}

/** Where a digest keeps an answer while it writes it (see applyAndHandle). */
function journalPath(vault: string, sessionId: string): string {
  return `${pendingPath(vault, sessionId)}.applying`;
}

const entryVersion = (e: QueueEntry): string => `${e.updatedAt} ${e.prompts}`;

/**
 * An earlier run's answer for this entry, when it began writing it and did not finish: the same
 * version of the entry (one that grew since is asked about anew), its answer checked again.
 */
function unfinished(vault: string, entry: QueueEntry): { action: DigestAction; offered: Map<string, number> } | undefined {
  try {
    const j = JSON.parse(readTextIfAny(journalPath(vault, entry.sessionId), { maxBytes: 1 << 20 }) ?? "null") as {
      version?: unknown;
      action?: unknown;
      offered?: unknown;
    } | null;
    if (!j || j.version !== entryVersion(entry) || !Array.isArray(j.offered)) return undefined;
    const offered = new Map(j.offered.filter((o): o is [string, number] => Array.isArray(o) && typeof o[0] === "string" && typeof o[1] === "number"));
    return { action: validateAnswer(j.action), offered };
  } catch {
    return undefined;
  }
}

/** What an interrupted run already wrote of `action`: the card of this session with its name, or the section in its card. */
function alreadyApplied(run: DigestRun, entry: QueueEntry, action: DigestAction): Applied | undefined {
  if (action.action === "skip") return undefined;
  const source = `session ${entry.sessionId}`;
  if (action.action === "create") {
    for (const f of run.notes.list((p) => isCard(p, run.opts.config))) {
      let card: Card;
      try {
        card = run.notes.card(f);
      } catch {
        continue;
      }
      if (card.frontmatter.source === source && card.name === action.frontmatter.name)
        return { action: "created", path: f.path, detail: action.frontmatter.description, linked: [], synonyms: [] };
    }
    return undefined;
  }
  let text: string;
  try {
    text = readNote(join(run.opts.vault, action.target));
  } catch {
    return undefined;
  }
  return text.includes(action.section.trim()) && text.includes(`_From ${source}._`)
    ? { action: "extended", path: action.target, detail: action.section.split("\n")[0].slice(0, 120), linked: [], synonyms: [] }
    : undefined;
}

/**
 * The cards offered to extend: by meaning too with semantic recall on (asked of the opening
 * question, as the sidebar does); words alone when the server or the vectors cannot be used,
 * said once a night.
 */
async function similarFor(run: DigestRun, entry: QueueEntry, conversation: string, index: MemoryIndex): Promise<SimilarCard[]> {
  // A conversation filed before (it went on since) is offered the card it made first: extending
  // it is what "extend before create" means for the same conversation.
  const own = ownCards(run.opts.vault, entry.sessionId).flatMap((path) => {
    const doc = index.docByPath(path);
    return doc ? [{ path, description: doc.description, score: Infinity }] : [];
  });
  const found = await similarByRun(run, entry, conversation, index);
  return [...own, ...found.filter((c) => !own.some((o) => o.path === c.path))].slice(0, SIMILAR_CARDS);
}

async function similarByRun(run: DigestRun, entry: QueueEntry, conversation: string, index: MemoryIndex): Promise<SimilarCard[]> {
  const { opts } = run;
  const subject = entrySubject(entry, conversation);
  const words = (): SimilarCard[] => similarCards(subject, index, SIMILAR_CARDS, opts.config.recall.scoring.hintBonus);
  if (run.meaningFailed) return words();
  const fused = await similarWithMeaning({
    vault: opts.vault,
    config: opts.config,
    source: index,
    text: subject,
    meaning: summarize(entry, conversation).firstPrompt || subject,
    limit: SIMILAR_CARDS,
  });
  if (fused === undefined) return words();
  if (Array.isArray(fused)) return fused;
  run.meaningFailed = true;
  const line = `semantic recall: ${fused.error}; similar cards by words alone tonight`;
  (run.report.semantic ??= []).push(line);
  run.say(line);
  return words();
}

/**
 * After the queue, inside the same lock and budget: a few cards a night get their hints, so a
 * vault catches up without one long run, and a night that stopped on quota asks nothing more.
 */
async function enrichAfterQueue(run: DigestRun): Promise<void> {
  const { opts, report } = run;
  const settings = opts.config.digest;
  if (!(report.ok && opts.config.enrich.perNight > 0 && run.calls < settings.maxCalls)) return;
  const enriched = await enrichCards({
    store: diskStore(opts.vault, opts.config),
    config: opts.config,
    ask: run.ask,
    maxCalls: settings.maxCalls - run.calls,
    limit: opts.config.enrich.perNight,
    dryRun: opts.dryRun,
    onProgress: run.say,
  });
  report.enriched = enriched;
  if (!enriched.ok) {
    report.ok = false;
    report.error = `enrich ${enriched.error ?? "stopped"}`;
  }
}

const WOULD: Record<string, string> = { created: "would create", extended: "would extend", skipped: "would skip" };

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * MEMORY.md's index and the overview pages, written again from the notes: what the report says of
 * MEMORY.md, and the pages that changed. The digest writes them each night, and sync after a
 * merge, so that they are never merged line by line.
 */
export function writeIndexPages(vault: string, notes: NoteCache, now: Date, heading: string): { said: string[]; written: string[] } {
  const cards = notes.cards(notes.list());
  const written: string[] = [];
  const memory = join(vault, MEMORY_INDEX);
  // What cannot be read (too large, not a file) is told by writeMemoryIndex, or left where it is.
  const peek = (abs: string): string | undefined => {
    try {
      return readTextIfAny(abs, { maxBytes: MAX_NOTE_BYTES });
    } catch {
      return undefined;
    }
  };
  const before = peek(memory);
  // The recall log's count per card is what "most recalled" means; without a log, recency decides.
  const said = writeMemoryIndex(vault, cards, recallHistory(vault)?.count ?? new Map());
  if (peek(memory) !== before) written.push(MEMORY_INDEX);
  for (const [path, text] of Object.entries(overviewPages(cards, now.toISOString().slice(0, 10), heading))) {
    const abs = join(vault, path);
    // A page the person wrote by hand is theirs; only pages we generated are replaced, and
    // what cannot be read as a note (a FIFO, a huge file) is left where it is. A page the person
    // takes over (the mark taken out) as it is written is theirs too.
    const ours = (current: string | undefined): string | undefined => (current === undefined || current.includes(GENERATED_MARK) ? text : undefined);
    try {
      if (rewriteText(abs, () => readTextIfAny(abs, { maxBytes: MAX_NOTE_BYTES }), ours)) written.push(path);
    } catch {
      continue;
    }
  }
  return { said, written };
}

/** writeIndexPages for a vault and its settings, outside a night (sync's merge). */
export function rewriteIndexPages(vault: string, config: VaultMemoryConfig, now = new Date()): string[] {
  const notes = new NoteCache(vault);
  return writeIndexPages(vault, notes, now, vaultRelatedHeading(notes, config)).written;
}

/** Index pages, snapshot (and its cards' vectors, with semantic recall on), lint. */
async function tidy(
  opts: DigestOptions,
  report: DigestReport,
  now: Date,
  heading: string,
  notes: NoteCache,
  say: (line: string) => void,
  offline: boolean,
): Promise<void> {
  const { said } = writeIndexPages(opts.vault, notes, now, heading);
  if (said.length > 0) report.memoryIndex = said;
  // The index pages just written are notes too: the snapshot skips MEMORY.md, lint reads them all.
  notes.refresh();
  const { index, scan } = buildIndexFromDisk(opts.vault, opts.config, undefined, notes);
  const header = writeSnapshot(vaultFiles.snapshot(opts.vault), index, recallRulesOf(opts.config), new Date(), scan);
  // The vectors belong to the snapshot they were written for: without new ones the prompt hook
  // would use words alone until Obsidian or `index` embedded again. Only the night's new and
  // changed texts are sent; the rest come from the cache.
  if (opts.config.embed.enabled) {
    // A server that failed tonight is not waited on again: the vectors come from the cache, and
    // what the night changed is embedded at the next index.
    const embedded = await embedVault(opts.vault, opts.config, header.headerSum ?? "", { notes, offline });
    (report.semantic ??= []).push(embedded.summary);
    say(embedded.summary);
  }
  const findings = lintVault(opts.vault, opts.config.lint, now.getTime(), notes, lintScope(opts.config));
  report.lint = formatReport(findings).split("\n")[0];
  // Nothing is decided for the person: a card that may turn an older one around is named for them to judge.
  const turned = findings.filter((f) => f.rule === "possible-contradiction");
  if (turned.length > 0) report.contradictions = turned.map((f) => ({ path: f.file, message: f.message }));
}

const MARKERS = "`<!-- vault-memory:index:start -->` and `<!-- vault-memory:index:end -->`";

/**
 * MEMORY.md with tonight's index, written only when it changed, and what the report says of it.
 * The text the digest did not write is kept byte for byte (see updateMemoryIndex), so a file that
 * is not UTF-8, which would not read back the same, is left as it is.
 */
function writeMemoryIndex(vault: string, cards: readonly Card[], recalls: ReadonlyMap<string, number>): string[] {
  const abs = join(vault, MEMORY_INDEX);
  const read = (): string | undefined => {
    let bytes: Buffer;
    try {
      bytes = readRegularFile(abs, { maxBytes: MAX_NOTE_BYTES });
    } catch (err) {
      if (err instanceof FileRefused && err.why === "missing") return undefined;
      throw err;
    }
    const text = bytes.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes)) throw new NotUtf8();
    return text;
  };
  let update: MemoryIndexUpdate | undefined;
  try {
    // Made again from a save of the person's that comes in as it is written: theirs is kept.
    rewriteText(abs, read, (existing) => {
      update = updateMemoryIndex(existing, cards, recalls);
      return update.text !== undefined && update.text !== existing ? update.text : undefined;
    });
  } catch (err) {
    if (err instanceof NotUtf8) return ["MEMORY.md was not updated: it is not UTF-8 text, and the digest never rewrites text it did not write."];
    if (err instanceof ChangedSince) return ["MEMORY.md was not updated: it kept changing while the night wrote it."];
    return [`MEMORY.md was not updated: ${err instanceof Error ? err.message : String(err)}.`];
  }
  return update ? memoryIndexLines(update) : [];
}

/** MEMORY.md's bytes are not UTF-8: the digest leaves text it cannot read back the same alone. */
class NotUtf8 extends Error {}

function memoryIndexLines(u: MemoryIndexUpdate): string[] {
  if (u.outcome === "damaged") {
    return [
      `MEMORY.md was not updated: its lines ${MARKERS} do not pair up (each must be there once, the start first). Put them back, or delete both and the next night adds the index again.`,
    ];
  }
  const out: string[] = [];
  if (u.outcome === "added")
    out.push(
      `MEMORY.md was not written by the digest, so your text in it is kept as it was; the index of cards is now in a section of its own after it, between ${MARKERS}, and each night replaces only what is between those two lines.`,
    );
  if (u.outcome === "migrated")
    out.push(
      `MEMORY.md: the index earlier releases wrote over the whole file is now between ${MARKERS}; what you write outside those two lines is yours, and no night replaces it.`,
    );
  if (u.listed === 0 && u.total > 0)
    out.push(
      `MEMORY.md has no room for the index: the text outside it is ${u.own.lines} lines, ${u.own.bytes} bytes, and Claude Code reads 200 lines or 25 KB of the file; search_memory and moc/knowledge-overview have every card.`,
    );
  else if (u.listed < u.total)
    out.push(
      `MEMORY.md lists the ${u.listed} most recalled of ${u.total} cards, so that Claude Code reads all of it (200 lines, 25 KB); search_memory and moc/knowledge-overview have them all.`,
    );
  return out;
}

/** Commits everything the night wrote, the report included; a refused commit is added to the report. */
function snapshotToGit(opts: DigestOptions, report: DigestReport, now: Date): void {
  const names = report.results.filter((r) => r.outcome.path).map((r) => `- ${r.outcome.action} ${r.outcome.path}`);
  report.git = commitVault(opts.vault, `vault-memory digest ${now.toISOString().slice(0, 10)}\n\n${names.join("\n") || "- no cards changed"}`);
  if (report.git.status === "refused" && report.reportPath) {
    const abs = join(opts.vault, report.reportPath);
    writeFileAtomic(
      abs,
      `${readNote(abs).trimEnd()}\n\n**Not committed:** the commit would delete ${report.git.deletions} files, more than 30. Check the vault, then commit by hand.\n`,
    );
  }
}

async function finish(opts: DigestOptions, report: DigestReport, writeStatus = true): Promise<DigestReport> {
  report.finishedAt = new Date().toISOString();
  if (opts.dryRun) return report;
  const date = report.startedAt.slice(0, 10);
  report.reportPath = `meta/digest/${date}.md`;
  const text = reportNote(report);
  const abs = join(opts.vault, report.reportPath);
  // Several runs in a day add to the day's note rather than replace it; what is at its name and
  // is not a note of ours (a FIFO, a huge file) is replaced by the report.
  const previous = previousReport(abs);
  writeFileAtomic(abs, previous ? `${previous.trimEnd()}\n\n---\n\n${text.replace(/^---\n[\s\S]*?\n---\n/, "")}` : text);
  // The lock-holder case writes nothing of its own, so it has nothing to commit either.
  if (writeStatus) snapshotToGit(opts, report, new Date(report.startedAt));
  if (writeStatus) writeDigestStatus(opts.vault, statusOf(report));
  await pipeReport(opts, report, text);
  const mailed = await mailReport({
    vault: opts.vault,
    settings: opts.config.digest.mail,
    deadlineSec: opts.config.digest.timeoutSec,
    summary: { date, ok: report.ok, error: report.error, ...counts(report), left: report.left },
    report: text,
    reportPath: report.reportPath,
    mailer: opts.mail,
    env: opts.env,
    signal: opts.signal,
  });
  if (mailed) report.notify = report.notify ? `${report.notify}; ${mailed}` : mailed;
  // What did not reach the person is in the status too, for the next session's and `schedule status`'s reader.
  if (writeStatus && report.notify) writeDigestStatus(opts.vault, statusOf(report));
  return report;
}

function statusOf(report: DigestReport): DigestStatus {
  return {
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    ok: report.ok,
    error: report.error,
    created: count(report, "created"),
    extended: count(report, "extended"),
    skipped: count(report, "skipped"),
    enriched: report.enriched?.written.length ?? 0,
    failed: report.failures.length,
    left: report.left,
    git: report.git?.status,
    ...(report.notify ? { notify: report.notify } : {}),
  };
}

const counts = (r: DigestReport): { created: number; extended: number; skipped: number; failed: number } => ({
  created: count(r, "created"),
  extended: count(r, "extended"),
  skipped: count(r, "skipped"),
  failed: r.failures.length,
});

/** Pipes the report to digest.reportCommand, when one is set; its failure goes to report.notify. */
async function pipeReport(opts: DigestOptions, report: DigestReport, text: string): Promise<void> {
  const cmd = opts.config.digest.reportCommand.trim();
  const refused = cmd ? commandProblem(shellWords(cmd), opts.vault, opts.env) : "";
  if (refused) report.notify = `report command not run: ${refused}; put the program outside the vault, in a folder only you can write`;
  else if (cmd) {
    // The same runner and deadline as an LLM call: a hung mailer holds the lock no longer than a
    // hung model would, and what it started is killed with it.
    const secs = opts.config.digest.timeoutSec;
    const r = await sendToCommand(process.platform === "win32" ? ["cmd", "/c", cmd] : ["/bin/sh", "-c", cmd], text, {
      timeoutMs: secs * 1000,
      env: opts.env,
      signal: opts.signal,
    });
    if (r.timedOut) report.notify = `report command: no end within ${secs} s, stopped`;
    else if (r.stopped) report.notify = "report command: stopped with the night";
    else if (r.code !== 0)
      report.notify = `report command failed (${r.code === null ? "no exit code" : `exit ${r.code}`}): ${(r.stderr || r.stdout).trim().slice(0, 300)}`;
  }
}

const count = (r: DigestReport, action: Applied["action"]): number => r.results.filter((x) => x.outcome.action === action).length;

export function reportNote(r: DigestReport): string {
  const secs = ((Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000).toFixed(0);
  const link = (p: string): string => `[[${baseName(p)}]]`;
  const lines = [
    frontmatterBlock([
      ["name", `Digest ${r.startedAt.slice(0, 10)}`],
      ["description", `What the nightly digest did on ${r.startedAt.slice(0, 10)}`],
      ["type", "meta"],
      ["tags", ["digest"]],
    ]),
    `# Digest ${r.startedAt.slice(0, 16).replace("T", " ")}`,
    "",
    r.ok ? `Finished in ${secs} s.` : `**Stopped:** ${r.error ?? "unknown error"} (after ${secs} s).`,
    "",
    `## Cards created (${count(r, "created")})`,
    ...r.results
      .filter((x) => x.outcome.action === "created")
      .map((x) => `- ${link(x.outcome.path)} — ${x.outcome.detail}${x.outcome.linked.length ? ` (linked with ${x.outcome.linked.map(link).join(", ")})` : ""}`),
    "",
    `## Cards extended (${count(r, "extended")})`,
    ...r.results
      .filter((x) => x.outcome.action === "extended")
      .map(
        (x) =>
          `- ${link(x.outcome.path)} — ${x.outcome.detail}${x.outcome.duplicateOf ? ` (${duplicateWords(x.outcome.duplicateOf)}; extended with what it lacked instead)` : ""}`,
      ),
    "",
    ...synonymLines(r),
    `## Skipped (${count(r, "skipped")})`,
    ...r.results.filter((x) => x.outcome.action === "skipped").map((x) => `- ${x.sessionId}: ${x.outcome.detail}`),
    "",
    ...enrichedLines(r),
    ...(r.consolidated
      ? [
          r.consolidated.proposed.length > 0
            ? `## Merges proposed (${r.consolidated.proposed.length})`
            : `## Fragments merged (${r.consolidated.merges.length})`,
          ...consolidateLines(r.consolidated, r.dryRun),
          "",
        ]
      : []),
    ...retiredLines(r),
    `## Failures (${r.failures.length})`,
    ...r.failures.map((f) => `- ${f.sessionId}: ${f.reason} (kept in the queue)`),
    "",
    `Queue left: ${r.left}.`,
    ...(r.lint ? [`Lint: ${r.lint}`] : []),
    ...(r.contradictions?.length
      ? ["", `## Cards that may contradict older ones (${r.contradictions.length})`, ...r.contradictions.map((c) => `- [[${baseName(c.path)}]] ${c.message}`)]
      : []),
    ...(r.memoryIndex ?? []),
    ...(r.semantic ?? []).map((line) => line.replace(/^semantic recall/, "Semantic recall")),
    ...(r.settingsNotice ? ["", `**Settings not used:** ${r.settingsNotice}.`] : []),
    "",
  ];
  return lines.join("\n");
}

/** The cards archived as unused, each with the one step that gives it back. */
function retiredLines(r: DigestReport): string[] {
  const t = r.retired;
  if (!t) return [];
  const link = (p: string): string => `[[${baseName(p)}]]`;
  return [
    `## Cards archived as unused (${t.archived.length})`,
    ...t.archived.map(
      (a) => `- ${link(a.path)} — last used ${a.lastUsed > 0 ? new Date(a.lastUsed).toISOString().slice(0, 10) : "never, as far as the recall log goes"}`,
    ),
    ...(t.archived.length > 0
      ? ["To give one back: the command Restore archived card in Obsidian, or `vault-memory restore --vault <vault> --card <path>`."]
      : []),
    ...(t.more > 0 ? [`${t.more} more unused cards wait for the next nights (at most ${MAX_ARCHIVED_PER_NIGHT} a night).`] : []),
    ...(t.waiting ? [`None archived: ${t.waiting}.`] : []),
    ...t.failed.map((f) => `- not archived: ${link(f.path)} — ${f.reason}`),
    "",
  ];
}

/** Why a new card was the existing one again, for the report. */
function duplicateWords(d: DuplicateOf): string {
  const pct = `${Math.round(d.share * 100)}%`;
  if (d.why === "text") return `a new card would have repeated it: ${pct} of its text was here`;
  if (d.why === "name") return `a new card of the same name (${pct} of its text here)`;
  if (d.why === "meaning") return `a new card that means what it says, in other words (semantic recall)`;
  return `this conversation made it before (${pct} of the new card's text here)`;
}

/** Cards given recall hints after the queue, and those that were due but got none. */
function enrichedLines(r: DigestReport): string[] {
  const e = r.enriched;
  if (!e) return [];
  const link = (p: string): string => `[[${baseName(p)}]]`;
  return [
    `## Cards enriched (${e.written.length})`,
    ...e.written.map((w) => `- ${link(w.path)} — ${w.questions.length} ${w.questions.length === 1 ? "question" : "questions"}`),
    ...e.skipped.map((x) => `- not enriched: ${link(x.path)} — ${x.reason}`),
    `Cards left to enrich: ${e.left}.`,
    "",
  ];
}

/** Words the person used that the cards did not: listed so they can be checked in the synonyms note. */
function synonymLines(r: DigestReport): string[] {
  const groups = r.results.flatMap((x) => x.outcome.synonyms);
  return groups.length === 0 ? [] : [`## Synonyms added (${groups.length})`, ...groups.map((g) => `- ${g.join(", ")}`), ""];
}

function conversationOf(vault: string, e: QueueEntry): string {
  try {
    return readInbox(vault, e);
  } catch {
    return e.candidates.map((c) => c.text).join("\n");
  }
}

interface VaultState {
  cards: string[];
  index: MemoryIndex;
}

function readVaultState(notes: NoteCache, config: VaultMemoryConfig): VaultState {
  // The index first: the cards it could not read are left out of the list after it.
  const index = buildIndexFromDisk(notes.vault, config, undefined, notes).index;
  return { cards: notes.list((p) => isCard(p, config)).map((f) => f.path), index };
}

/**
 * The card-writing rules note, or the default rules when there is none; one that cannot be read
 * as a note (a FIFO, a huge file) is left as it is, the default rules used and the reason said.
 */
function readRules(path: string, heading: string, say: (line: string) => void): string {
  try {
    return readNote(path);
  } catch (err) {
    if (!(err instanceof FileRefused && err.why === "missing"))
      say(`${RULES_NOTE} cannot be read (${escapeControl(err instanceof Error ? err.message : String(err))}); the default rules are used tonight`);
    return defaultRules(heading);
  }
}

function previousReport(abs: string): string {
  try {
    return readTextIfAny(abs, { maxBytes: MAX_NOTE_BYTES }) ?? "";
  } catch {
    return "";
  }
}
