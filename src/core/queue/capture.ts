/** The Stop hook's work: decide whether a session is worth keeping, and queue it privately. */

import { join } from "node:path";
import { gitBranchOf, resolveProject } from "../project";
import { readRegularFile } from "../io/read-file";
import { emptySummary, readTranscript, turnOf, TranscriptError, MAX_LINE_BYTES, type TranscriptSummary, type Turn } from "../transcript/read-transcript";
import { extractCandidates, moreCandidates } from "./extract";
import {
  handledPath,
  inboxRelPath,
  isSafeSessionId,
  pendingPath,
  QUEUE_VERSION,
  readEntry,
  withSessionLock,
  writePending,
  type QueueEntry,
} from "./queue-store";

export interface QueueRules {
  /** Real prompts the person must have asked. */
  minPrompts: number;
  /** Characters of text Claude must have written. */
  minChars: number;
  /** Globs matched against the project name and the working folder; matching sessions are never queued. */
  excludeProjects: string[];
}

export const DEFAULT_QUEUE_RULES: QueueRules = { minPrompts: 2, minChars: 60, excludeProjects: [] };

export interface StopPayload {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  stopHookActive: boolean;
  /** The Stop hook's `last_assistant_message`: the turn's reply, for when the transcript cannot be read. */
  lastReply?: string;
}

export type CaptureResult = { queued: true; entry: QueueEntry; unread?: string } | { queued: false; reason: string };

// The condensed text is for a person and an LLM to read; past this, the middle is left out.
const MAX_CONDENSED_CHARS = 200_000;
// The words asked to keep, over every remember of one session; the tool takes 4,000 at a time.
const MAX_NOTE_CHARS = 100_000;
// Our own inbox file, read back only to add a reply to it: condensed text is far smaller.
const MAX_INBOX_BYTES = 4 << 20;

/** What to keep, as asked for in words rather than found in the conversation; sanitised by the caller. */
export interface KeepNote {
  text: string;
  /** The card the person wants it kept in, if they named one. */
  card?: string;
}

export interface CaptureOptions {
  /** Queue now, whatever the thresholds say ("remember this"). */
  wanted?: boolean;
  now?: Date;
  note?: KeepNote;
  /** The prompt being submitted, raw: Claude Code writes it to the transcript only after the prompt hook. */
  prompt?: string;
  /** Asked for mid-turn: the reply is still to come, and the Stop hook adds it. */
  midTurn?: boolean;
  /** The transcript as read already (import reads it first, to filter by date and project). */
  transcript?: TranscriptSummary;
  /** Queued by `import` from a session before the install: the digest takes it after the live ones. */
  imported?: boolean;
}

export function captureSession(vault: string, payload: StopPayload, rules: QueueRules, opts: CaptureOptions = {}): CaptureResult {
  if (!payload.sessionId) return { queued: false, reason: "no session id" };
  if (!isSafeSessionId(payload.sessionId)) return { queued: false, reason: "session id is not a plain id" };
  const project = resolveProject(payload.cwd);
  if (isExcluded(project, payload.cwd, rules.excludeProjects)) return { queued: false, reason: `project ${project} is excluded` };

  let t: TranscriptSummary;
  let unread: string | undefined;
  try {
    if (opts.transcript) t = opts.transcript;
    else if (!payload.transcriptPath) throw new TranscriptError("no transcript path");
    else t = readTranscript(payload.transcriptPath);
  } catch (err) {
    if (!(err instanceof TranscriptError)) throw err;
    // A keep asked for in words is recorded with what the hook knows, so that a transcript not
    // written yet (the first prompt) or not readable loses none of it; so is the reply the Stop
    // hook is handed, for a keep that awaits it.
    if (opts.prompt === undefined && opts.note === undefined && !payload.lastReply) return { queued: false, reason: err.message };
    t = emptySummary();
    unread = err.message;
  }
  const now = opts.now ?? new Date();
  if (opts.prompt !== undefined) t = withPrompt(t, opts.prompt, now);
  if (unread !== undefined && payload.lastReply) t = withReply(t, payload.lastReply);
  const r = queueConversation(vault, payload, project, t, rules, opts, now, unread);
  return r.queued && unread ? { ...r, unread } : r;
}

/** The conversation with the prompt being submitted as its last turn, unless the file holds it already. */
function withPrompt(t: TranscriptSummary, prompt: string, now: Date): TranscriptSummary {
  const turn = turnOf("user", prompt, t.prompts, t.secrets);
  const last = t.turns[t.turns.length - 1];
  if (!turn.text.trim() || (last?.role === "user" && last.text === turn.text)) return t;
  const iso = now.toISOString();
  // A secret the prompt shows plainly goes from the turns before it too.
  const before = t.secrets ? t.turns.map((x) => ({ ...x, text: t.secrets!.hide(x.text) })) : t.turns;
  return { ...t, prompts: t.prompts + 1, turns: [...before, turn], firstTimestamp: t.firstTimestamp || iso, lastTimestamp: iso };
}

/** The conversation with the reply the Stop hook was handed as its last turn. */
function withReply(t: TranscriptSummary, reply: string): TranscriptSummary {
  const turn = turnOf("assistant", reply, Math.max(0, t.prompts - 1), t.secrets);
  return { ...t, assistantChars: t.assistantChars + turn.text.length, turns: [...t.turns, turn] };
}

/** `unread`: why the transcript could not be read, when `t` holds only what the hook was handed. */
function queueConversation(
  vault: string,
  payload: StopPayload,
  project: string,
  t: TranscriptSummary,
  rules: QueueRules,
  opts: CaptureOptions,
  at: Date,
  unread?: string,
): CaptureResult {
  const skipped = t.overlongLines > 0 ? ` (${t.overlongLines} line(s) over ${MAX_LINE_BYTES >> 20} MiB skipped)` : "";
  const now = at.toISOString();
  // The reader has sanitised every turn: nothing here sees text before privacy has been applied.
  const turns: Turn[] = t.turns.filter((turn) => turn.text.trim() !== "");
  // The Stop hook and "remember this" can run at once for one session; read-merge-write under the
  // session's lock, or one of them writes over the other and a wanted mark is lost.
  return withSessionLock(vault, payload.sessionId, (): CaptureResult => {
    const previous = readEntry(pendingPath(vault, payload.sessionId));
    const handled = readEntry<QueueEntry & { handledAt?: string }>(handledPath(vault, payload.sessionId));
    // A keep asked for mid-turn that a digest filed before the turn ended: the rest is still wanted.
    const filedEarly = !previous && handled?.awaitingReply === true && (t.prompts > handled.prompts || t.assistantChars > handled.assistantChars);
    const wanted = opts.wanted === true || previous?.wanted === true || filedEarly;
    if (unread !== undefined) {
      const asked = opts.prompt !== undefined || opts.note !== undefined;
      // What the hook was handed goes after what is queued already, never in its place.
      if (previous && (asked || previous.awaitingReply)) return { queued: true, entry: appendTurns(vault, payload, previous, turns, { wanted, opts, now }) };
      if (!asked && !filedEarly) return { queued: false, reason: unread };
    }
    // Our hook never blocks, so a turn that another hook kept going cannot loop through it; only
    // a conversation the person asked to keep is worth recording there.
    if (payload.stopHookActive && !wanted) return { queued: false, reason: "stop hook already active" };
    const short = wanted ? undefined : tooShort(t, rules);
    if (short) return { queued: false, reason: `${short}${skipped}` };
    if (previous && !previous.awaitingReply && previous.prompts === t.prompts && previous.assistantChars === t.assistantChars && !opts.wanted) {
      return { queued: false, reason: "already queued, unchanged" };
    }
    if (!previous && handled && handled.prompts >= t.prompts && !wanted) {
      return { queued: false, reason: "already handled, unchanged" };
    }
    const entry: QueueEntry = {
      version: QUEUE_VERSION,
      sessionId: payload.sessionId,
      project,
      cwd: payload.cwd,
      gitBranch: t.gitBranch || gitBranchOf(payload.cwd),
      firstTimestamp: t.firstTimestamp,
      lastTimestamp: t.lastTimestamp,
      prompts: t.prompts,
      assistantChars: t.assistantChars,
      transcriptPath: payload.transcriptPath,
      inbox: inboxRelPath(payload.sessionId),
      candidates: extractCandidates(turns),
      queuedAt: previous?.queuedAt ?? now,
      updatedAt: now,
      ...(wanted ? { wanted: true } : {}),
      ...(opts.midTurn ? { awaitingReply: true } : {}),
      ...(handled?.handledAt ? { resumedAfter: handled.handledAt } : {}),
      // The Stop hook's rewrite of an imported session (it was resumed) makes it a live one again.
      ...(opts.imported ? { imported: previous?.imported ?? now } : {}),
      ...noteFields(mergedNote(previous, opts.note)),
    };
    writePending(vault, entry, condense(entry, turns));
    return { queued: true, entry };
  });
}

/** Why a conversation is too short to keep by the rules, or undefined when it is worth keeping. */
export function tooShort(t: Pick<TranscriptSummary, "prompts" | "assistantChars">, rules: QueueRules): string | undefined {
  if (t.prompts < rules.minPrompts) return `${t.prompts} prompt(s), fewer than ${rules.minPrompts}`;
  if (t.assistantChars < rules.minChars) return `${t.assistantChars} characters of reply, fewer than ${rules.minChars}`;
  return undefined;
}

/**
 * `previous` with turns added after its own, for when the transcript cannot be read (a folder the
 * hook may not enter, a session that keeps no files) and only the hook's payload says what was
 * said: the entry's earlier conversation, kept in its inbox, stays as it was.
 */
function appendTurns(
  vault: string,
  payload: StopPayload,
  previous: QueueEntry,
  added: readonly Turn[],
  f: { wanted: boolean; opts: CaptureOptions; now: string },
): QueueEntry {
  // The inbox's path is the session's, never what the entry on disk says it is.
  const inboxPath = inboxRelPath(payload.sessionId);
  const old = readInbox(vault, inboxPath) ?? "";
  const start = old.search(/^## (?:User|Claude) \(turn \d+\)$/m);
  const body = start >= 0 ? old.slice(start).trimEnd() : "";
  const numbers = [...body.matchAll(/^## (?:User|Claude) \(turn (\d+)\)$/gm)].map((m) => Number(m[1]));
  const next = numbers.length > 0 ? Math.max(...numbers) + 1 : 0;
  const { awaitingReply, ...rest } = previous;
  void awaitingReply;
  const entry: QueueEntry = {
    ...rest,
    inbox: inboxPath,
    transcriptPath: previous.transcriptPath || payload.transcriptPath,
    prompts: previous.prompts + added.filter((t) => t.role === "user").length,
    assistantChars: previous.assistantChars + added.reduce((n, t) => n + (t.role === "assistant" ? t.text.length : 0), 0),
    candidates: moreCandidates(previous.candidates, added, next),
    lastTimestamp: f.now,
    updatedAt: f.now,
    ...(f.wanted ? { wanted: true } : {}),
    ...(f.opts.midTurn ? { awaitingReply: true } : {}),
    ...noteFields(mergedNote(previous, f.opts.note)),
  };
  const sections = added.map((t, i) => `## ${t.role === "user" ? "User" : "Claude"} (turn ${next + i})\n\n${t.text.trim()}\n`);
  writePending(vault, entry, condense(entry, [], [body, ...sections].filter((x) => x !== "").join("\n\n")));
  return entry;
}

/** An entry's condensed conversation as written, or undefined when it cannot be read back. */
function readInbox(vault: string, inbox: string): string | undefined {
  try {
    return readRegularFile(join(vault, inbox), { maxBytes: MAX_INBOX_BYTES, noFollow: true }).toString("utf8");
  } catch {
    return undefined;
  }
}

/**
 * "Remember this" when no session can be tied to it (the MCP server was not told which one): a
 * wanted entry of its own that holds only the words to keep. Written by the same writer as every
 * entry, under the same lock, so the review sidebar and the digest treat it like any other.
 */
export function queueNote(vault: string, note: KeepNote, cwd: string, opts: { now?: Date; id?: string } = {}): QueueEntry {
  const now = opts.now ?? new Date();
  const sessionId = opts.id ?? `note-${now.getTime().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  if (!isSafeSessionId(sessionId)) throw new Error("note id is not a plain id");
  const iso = now.toISOString();
  const entry: QueueEntry = {
    version: QUEUE_VERSION,
    sessionId,
    project: resolveProject(cwd),
    cwd,
    gitBranch: cwd ? gitBranchOf(cwd) : "",
    firstTimestamp: iso,
    lastTimestamp: iso,
    prompts: 0,
    assistantChars: 0,
    transcriptPath: "",
    inbox: inboxRelPath(sessionId),
    candidates: [],
    queuedAt: iso,
    updatedAt: iso,
    wanted: true,
    ...noteFields(note),
  };
  return withSessionLock(vault, sessionId, () => {
    writePending(vault, entry, condense(entry, []));
    return entry;
  });
}

/**
 * The entry's words to keep with the new ones added: each remember of a session is kept, since the
 * tool's text is in no turn of the condensed conversation. A card named later wins.
 */
function mergedNote(previous: QueueEntry | undefined, note: KeepNote | undefined): KeepNote | undefined {
  const before = previous?.note ? { text: previous.note, card: previous.noteCard } : undefined;
  if (!note || !before) return note ?? before;
  const text = before.text.includes(note.text) ? before.text : `${before.text}\n\n${note.text}`;
  const half = MAX_NOTE_CHARS / 2;
  return { text: text.length > MAX_NOTE_CHARS ? `${text.slice(0, half)}\n\n[…]\n\n${text.slice(-half)}` : text, card: note.card ?? before.card };
}

function noteFields(note: KeepNote | undefined): Pick<QueueEntry, "note" | "noteCard"> {
  if (!note) return {};
  return { note: note.text, ...(note.card ? { noteCard: note.card } : {}) };
}

/** The conversation as markdown: prompts and replies, no tool output. `written`: turns in this form already. */
export function condense(entry: QueueEntry, turns: readonly Turn[], written = ""): string {
  // The words the person asked to keep lead, since they say what the conversation is worth.
  const asked = entry.note ? ["## Asked to keep", "", entry.note.trim(), ...(entry.noteCard ? ["", `(in the card: ${entry.noteCard})`] : []), ""] : [];
  const head = [
    `# Session ${entry.sessionId}`,
    "",
    `- project: ${entry.project}`,
    `- branch: ${entry.gitBranch || "(none)"}`,
    `- from ${entry.firstTimestamp} to ${entry.lastTimestamp}, ${entry.prompts} prompts`,
    "",
    ...asked,
  ];
  const body = turns.map((t, i) => `## ${t.role === "user" ? "User" : "Claude"} (turn ${i})\n\n${t.text.trim()}\n`);
  let text = head.join("\n") + "\n" + (written ? [written.trimEnd() + "\n", ...body] : body).join("\n");
  if (text.length > MAX_CONDENSED_CHARS) {
    const half = MAX_CONDENSED_CHARS / 2;
    text = text.slice(0, half) + "\n\n[… middle of the conversation left out …]\n\n" + text.slice(-half);
  }
  return text;
}

/** Glob match: `*` any run of characters, `?` one; against the project name or the folder. */
export function isExcluded(project: string, cwd: string, globs: readonly string[]): boolean {
  return globs.some((g) => {
    const re = new RegExp(
      "^" +
        g
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".") +
        "$",
      "i",
    );
    return re.test(project) || re.test(cwd);
  });
}
