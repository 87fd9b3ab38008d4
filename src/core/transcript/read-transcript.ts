/** Streams a Claude Code transcript (JSON lines) into the parts capture needs, with bounded memory. */

import { closeSync, openSync, readSync } from "node:fs";

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
}

const CHUNK = 1 << 20;
// Only these line types are the conversation; the rest (api requests holding the whole system
// prompt, cost state, titles) are skipped without being decoded or parsed. Claude Code writes
// compact JSON, so the bytes can be searched as they are.
const USER = Buffer.from('"type":"user"');
const ASSISTANT = Buffer.from('"type":"assistant"');
// Past this a line is a tool result or a pasted file, not something a card is made from.
const MAX_TURN_CHARS = 20_000;
// A hook's memory must not grow with a conversation that runs for days: past this much text the
// turns after the opening ones go first, since the start says what the session was about and
// the end what it came to, and the condensed inbox keeps only those two anyway.
const MAX_KEPT_CHARS = 4_000_000;
const HEAD_CHARS = 1_000_000;
// Dropping down to this, well below the bound, means the next turns add without dropping again:
// a conversation of a hundred thousand short turns is not scanned once per turn.
const KEEP_AFTER_DROP_CHARS = 3_500_000;

/** Reads the transcript at `path`. Unknown and malformed lines are skipped, never fatal. */
export function readTranscript(path: string): TranscriptSummary {
  const summary: TranscriptSummary = { prompts: 0, assistantChars: 0, firstTimestamp: "", lastTimestamp: "", gitBranch: "", cwd: "", turns: [], omittedTurns: 0 };
  const seenUuids = new Set<string>();
  const state: ReadState = { seen: seenUuids, lastAssistant: undefined, kept: 0 };
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer[] = [];
    let position = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, position);
      if (n === 0) break;
      position += n;
      let start = 0;
      for (let nl = buf.indexOf(0x0a, 0); nl >= 0 && nl < n; nl = buf.indexOf(0x0a, start)) {
        const piece = buf.subarray(start, nl);
        const line = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece;
        carry = [];
        handleLine(line, summary, state);
        start = nl + 1;
      }
      if (start < n) carry.push(Buffer.from(buf.subarray(start, n)));
    }
    if (carry.length > 0) handleLine(Buffer.concat(carry), summary, state);
  } finally {
    closeSync(fd);
  }
  return summary;
}

type Json = Record<string, unknown>;

interface ReadState {
  seen: Set<string>;
  /** Only the latest reply can still grow: its message id and turn. */
  lastAssistant: { id: string; turn: Turn } | undefined;
  /** Characters of text in the kept turns. */
  kept: number;
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
    keep(s, state, { role: "user", text: text.slice(0, MAX_TURN_CHARS), prompt: s.prompts });
    s.prompts++;
  } else if (entry.type === "assistant") {
    const text = textBlocks(message.content);
    if (!text) return;
    s.assistantChars += text.length;
    // One response is written as one line per content block; join them by message id.
    const id = typeof message.id === "string" ? message.id : uuid;
    const last = state.lastAssistant;
    if (last && last.id === id && last.turn === s.turns[s.turns.length - 1]) {
      const before = last.turn.text.length;
      last.turn.text = (last.turn.text + "\n" + text).slice(0, MAX_TURN_CHARS);
      state.kept += last.turn.text.length - before;
    } else {
      const turn: Turn = { role: "assistant", text: text.slice(0, MAX_TURN_CHARS), prompt: Math.max(0, s.prompts - 1) };
      state.lastAssistant = { id, turn };
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
