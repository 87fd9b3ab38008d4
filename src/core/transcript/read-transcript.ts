/** Streams a Claude Code transcript (JSON lines) into the parts capture needs, with bounded memory. */

import { closeSync, readSync, type Stats } from "node:fs";
import { FileRefused, openRegularFile } from "../io/read-file";
import { sanitize, sanitizeFrom, SeenSecrets } from "../privacy/redact";

export interface Turn {
  role: "user" | "assistant";
  text: string;
  /** 0-based index of the real prompt this turn belongs to. */
  prompt: number;
}

export interface TranscriptSummary {
  prompts: number;
  /** Characters of text Claude wrote (not tool calls, not thinking). */
  assistantChars: number;
  firstTimestamp: string;
  lastTimestamp: string;
  gitBranch: string;
  cwd: string;
  /** The conversation, less turns from its middle once it held more than MAX_KEPT_CHARS. */
  turns: Turn[];
  /** Turns left out of `turns` to stay within that bound. */
  omittedTurns: number;
  /** Lines longer than MAX_LINE_BYTES, skipped unread. */
  overlongLines: number;
  /** Whether the file was longer than MAX_TRANSCRIPT_BYTES and only its start was read. */
  cutShort: boolean;
  /**
   * The secrets its turns held, in memory only: a turn added later (the prompt being submitted)
   * that says one again loses it too.
   */
  secrets?: SeenSecrets;
}

/** A transcript that cannot be read as one: its message says why, for the hook's log. */
export class TranscriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TranscriptError";
  }
}

const CHUNK = 1 << 20;
// Only these line types are the conversation; the rest (api requests holding the whole system
// prompt, cost state, titles) are skipped without being decoded or parsed. Claude Code writes
// compact JSON, so the bytes can be searched as they are.
const USER = Buffer.from('"type":"user"');
const ASSISTANT = Buffer.from('"type":"assistant"');
// Past this a line is a tool result or a pasted file, not something a card is made from.
const MAX_TURN_CHARS = 20_000;
// One line is one message; a longer one is a pasted file or a tool's output, and keeping all of it
// to find its end is how a line buffer grew to gigabytes on a file with no newlines.
export const MAX_LINE_BYTES = 8 << 20;
// Claude Code's transcripts of long sessions run to tens of megabytes; past this the rest is left
// unread, so the Stop hook ends within its timeout whatever file it is given.
export const MAX_TRANSCRIPT_BYTES = 512 << 20;
// A hook's memory must not grow with a conversation that runs for days: past this much text the
// turns after the opening ones go first, since the start says what the session was about and
// the end what it came to, and the condensed inbox keeps only those two anyway.
const MAX_KEPT_CHARS = 4_000_000;
const HEAD_CHARS = 1_000_000;
// Dropping down to this, well below the bound, means the next turns add without dropping again:
// a conversation of a hundred thousand short turns is not scanned once per turn.
const KEEP_AFTER_DROP_CHARS = 3_500_000;

/** A conversation with nothing in it yet: what a session is before Claude Code has written its file. */
export function emptySummary(): TranscriptSummary {
  return {
    prompts: 0,
    assistantChars: 0,
    firstTimestamp: "",
    lastTimestamp: "",
    gitBranch: "",
    cwd: "",
    turns: [],
    omittedTurns: 0,
    overlongLines: 0,
    cutShort: false,
  };
}

/**
 * A turn known from a hook's payload rather than the file (the prompt being submitted, the reply
 * the Stop hook is told of), cleaned and bounded exactly as a turn read from the file is.
 */
export function turnOf(role: Turn["role"], text: string, prompt: number, secrets?: SeenSecrets): Turn {
  return { role, text: sanitize(text, secrets).slice(0, MAX_TURN_CHARS), prompt };
}

/**
 * Reads the transcript at `path`. Unknown and malformed lines are skipped, never fatal; a path
 * that is not a regular `.jsonl` file throws TranscriptError. Every turn is sanitised here, before
 * it is cut to MAX_TURN_CHARS: a cut first could halve a key into a shape no rule knows.
 */
export function readTranscript(path: string, opts: OpenOptions = {}): TranscriptSummary {
  const summary = emptySummary();
  const seenUuids = new Set<string>();
  const secrets = new SeenSecrets();
  const state: ReadState = { seen: seenUuids, lastAssistant: undefined, kept: 0, secrets };
  const fd = openTranscript(path, opts);
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer[] = [];
    let carried = 0;
    // Inside a line already known to be too long: its bytes are dropped up to the next newline.
    let skipping = false;
    let position = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, MAX_TRANSCRIPT_BYTES - position), position);
      if (n === 0) break;
      position += n;
      let start = 0;
      for (let nl = buf.indexOf(0x0a, 0); nl >= 0 && nl < n; nl = buf.indexOf(0x0a, start)) {
        if (!skipping) {
          const piece = buf.subarray(start, nl);
          if (carried + piece.length > MAX_LINE_BYTES) summary.overlongLines++;
          else handleLine(carry.length > 0 ? Buffer.concat([...carry, piece]) : piece, summary, state);
        }
        carry = [];
        carried = 0;
        skipping = false;
        start = nl + 1;
      }
      if (start < n && !skipping) {
        if (carried + (n - start) > MAX_LINE_BYTES) {
          summary.overlongLines++;
          skipping = true;
          carry = [];
          carried = 0;
        } else {
          carry.push(Buffer.from(buf.subarray(start, n)));
          carried += n - start;
        }
      }
      if (position >= MAX_TRANSCRIPT_BYTES) {
        summary.cutShort = readSync(fd, Buffer.allocUnsafe(1), 0, 1, position) > 0;
        break;
      }
    }
    if (carry.length > 0 && !summary.cutShort) handleLine(Buffer.concat(carry), summary, state);
  } finally {
    closeSync(fd);
  }
  // A secret said plainly in one turn and again in an earlier one, where no shape showed it.
  for (const t of summary.turns) t.text = secrets.hide(t.text, t.text.length >= MAX_TURN_CHARS);
  summary.secrets = secrets;
  return summary;
}

/**
 * Opens `path` only if it is a regular `.jsonl` file. A hook payload is input like any other: a
 * device (`/dev/zero` never ends), a FIFO (blocks forever on open) or some other file is refused
 * before it is read, by the one opener of files anyone may have put at a path.
 */
function openTranscript(path: string, opts: OpenOptions): number {
  if (!path.endsWith(".jsonl")) throw new TranscriptError("transcript is not a .jsonl file");
  try {
    const { fd, st } = openRegularFile(path, opts);
    const why = opts.check?.(st);
    if (why) {
      closeSync(fd);
      throw new TranscriptError(why);
    }
    return fd;
  } catch (err) {
    if (!(err instanceof FileRefused)) throw err;
    if (err.why === "missing") throw new TranscriptError("no transcript (ENOENT)");
    if (err.why === "not-regular") throw new TranscriptError(`transcript is not a regular file: ${err.message}`);
    throw new TranscriptError(`no transcript (${err.message})`);
  }
}

/** For transcripts found by listing a folder rather than named by Claude Code's hook. */
export interface OpenOptions {
  /** A link at the path is refused, not followed. */
  noFollow?: boolean;
  /** Refuses the open file by its stat, with a reason (one that another account owns). */
  check?: (st: Stats) => string;
}

type Json = Record<string, unknown>;

interface ReadState {
  seen: Set<string>;
  /** Only the latest reply can still grow: its message id, turn, and private passages still open. */
  lastAssistant: { id: string; turn: Turn; privateDepth: number } | undefined;
  /** Characters of text in the kept turns. */
  kept: number;
  secrets: SeenSecrets;
}

function handleLine(line: Buffer, s: TranscriptSummary, state: ReadState): void {
  const seen = state.seen;
  if (line.indexOf(USER) < 0 && line.indexOf(ASSISTANT) < 0) return;
  let entry: Json;
  try {
    entry = JSON.parse(line.toString("utf8")) as Json;
  } catch {
    return;
  }
  if (typeof entry !== "object" || entry === null) return;
  const uuid = typeof entry.uuid === "string" ? entry.uuid : "";
  if (uuid) {
    if (seen.has(uuid)) return;
    seen.add(uuid);
  }
  if (entry.isSidechain === true) return;
  if (typeof entry.timestamp === "string") {
    if (!s.firstTimestamp) s.firstTimestamp = entry.timestamp;
    s.lastTimestamp = entry.timestamp;
  }
  if (typeof entry.gitBranch === "string" && entry.gitBranch) s.gitBranch = entry.gitBranch;
  if (typeof entry.cwd === "string" && entry.cwd) s.cwd = entry.cwd;
  const message = entry.message as Json | undefined;
  if (!message || typeof message !== "object") return;

  if (entry.type === "user") {
    const text = realPromptText(entry, message);
    if (text === undefined) return;
    keep(s, state, { role: "user", text: sanitize(text, state.secrets).slice(0, MAX_TURN_CHARS), prompt: s.prompts });
    s.prompts++;
  } else if (entry.type === "assistant") {
    const raw = textBlocks(message.content);
    if (!raw) return;
    s.assistantChars += raw.length;
    // One response is written as one line per content block; join them by message id. A private
    // passage can open in one block and close in a later one, so what is still open carries over.
    const id = typeof message.id === "string" ? message.id : uuid;
    const last = state.lastAssistant;
    if (last && last.id === id && last.turn === s.turns[s.turns.length - 1]) {
      const { text, depth } = sanitizeFrom(raw, last.privateDepth, state.secrets);
      last.privateDepth = depth;
      const before = last.turn.text.length;
      last.turn.text = (last.turn.text + "\n" + text).slice(0, MAX_TURN_CHARS);
      state.kept += last.turn.text.length - before;
    } else {
      const { text, depth } = sanitizeFrom(raw, 0, state.secrets);
      const turn: Turn = { role: "assistant", text: text.slice(0, MAX_TURN_CHARS), prompt: Math.max(0, s.prompts - 1) };
      state.lastAssistant = { id, turn, privateDepth: depth };
      keep(s, state, turn);
    }
  }
}

/** Adds a turn; past the bound, drops the oldest turns after the opening ones. */
function keep(s: TranscriptSummary, state: ReadState, turn: Turn): void {
  s.turns.push(turn);
  state.kept += turn.text.length;
  if (state.kept <= MAX_KEPT_CHARS) return;
  let head = 0;
  for (let chars = 0; head < s.turns.length - 1 && chars + s.turns[head].text.length <= HEAD_CHARS; head++) chars += s.turns[head].text.length;
  let drop = 0;
  while (state.kept > KEEP_AFTER_DROP_CHARS && head + drop < s.turns.length - 1) state.kept -= s.turns[head + drop++].text.length;
  s.turns.splice(head, drop);
  s.omittedTurns += drop;
}

/** The prompt's text if the line is a prompt the person typed, by Claude Code's own rule. */
function realPromptText(entry: Json, message: Json): string | undefined {
  if (entry.isMeta === true || entry.isCompactSummary === true || entry.isVisibleInTranscriptOnly === true) return undefined;
  const origin = entry.origin as Json | undefined;
  if (origin && typeof origin === "object" && origin.kind !== "human") return undefined;
  const content = message.content;
  let text: string;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    if (content.some((b) => (b as Json)?.type === "tool_result")) return undefined;
    text = textBlocks(content);
  } else return undefined;
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[Request interrupted by user")) return undefined;
  // Tags Claude Code injects open the text; the ones a person types (a slash command, a shell
  // line, a private passage) do not disqualify a prompt.
  if (trimmed.startsWith("<") && !/^<(?:command-name|bash-input|private)>/i.test(trimmed)) return undefined;
  return text;
}

function textBlocks(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is Json => typeof b === "object" && b !== null && (b as Json).type === "text" && typeof (b as Json).text === "string")
    .map((b) => b.text as string)
    .join("\n");
}
