/** The Stop hook's work: decide whether a session is worth keeping, and queue it privately. */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sanitize } from "../privacy/redact";
import { resolveProject } from "../project";
import { readTranscript, type Turn } from "../transcript/read-transcript";
import { extractCandidates } from "./extract";
import { handledPath, inboxRelPath, isSafeSessionId, pendingPath, QUEUE_VERSION, readEntry, writePending, type QueueEntry } from "./queue-store";

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
}

export type CaptureResult = { queued: true; entry: QueueEntry } | { queued: false; reason: string };

// The condensed text is for a person and an LLM to read; past this, the middle is left out.
const MAX_CONDENSED_CHARS = 200_000;

export function captureSession(vault: string, payload: StopPayload, rules: QueueRules, opts: { wanted?: boolean; now?: Date } = {}): CaptureResult {
  if (payload.stopHookActive) return { queued: false, reason: "stop hook already active" };
  if (!isSafeSessionId(payload.sessionId)) return { queued: false, reason: "session id is not a plain id" };
  if (!payload.transcriptPath || !existsSync(payload.transcriptPath)) return { queued: false, reason: "no transcript" };
  const project = resolveProject(payload.cwd);
  if (isExcluded(project, payload.cwd, rules.excludeProjects)) return { queued: false, reason: `project ${project} is excluded` };

  const t = readTranscript(payload.transcriptPath);
  if (!opts.wanted) {
    if (t.prompts < rules.minPrompts) return { queued: false, reason: `${t.prompts} prompt(s), fewer than ${rules.minPrompts}` };
    if (t.assistantChars < rules.minChars) return { queued: false, reason: `${t.assistantChars} characters of reply, fewer than ${rules.minChars}` };
  }

  const now = (opts.now ?? new Date()).toISOString();
  // Privacy first: nothing below sees a turn before it has been sanitised.
  const turns: Turn[] = t.turns.map((turn) => ({ ...turn, text: sanitize(turn.text) })).filter((turn) => turn.text.trim() !== "");
  const previous = readEntry(pendingPath(vault, payload.sessionId));
  const handled = readEntry<QueueEntry & { handledAt?: string }>(handledPath(vault, payload.sessionId));
  if (previous && previous.prompts === t.prompts && previous.assistantChars === t.assistantChars && !opts.wanted) {
    return { queued: false, reason: "already queued, unchanged" };
  }
  if (!previous && handled && handled.prompts >= t.prompts && !opts.wanted) {
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
    ...(opts.wanted || previous?.wanted ? { wanted: true } : {}),
    ...(handled?.handledAt ? { resumedAfter: handled.handledAt } : {}),
  };
  writePending(vault, entry, condense(entry, turns));
  return { queued: true, entry };
}

/** The conversation as markdown: prompts and replies, no tool output. */
export function condense(entry: QueueEntry, turns: readonly Turn[]): string {
  const head = [
    `# Session ${entry.sessionId}`,
    "",
    `- project: ${entry.project}`,
    `- branch: ${entry.gitBranch || "(none)"}`,
    `- from ${entry.firstTimestamp} to ${entry.lastTimestamp}, ${entry.prompts} prompts`,
    "",
  ];
  const body = turns.map((t, i) => `## ${t.role === "user" ? "User" : "Claude"} (turn ${i})\n\n${t.text.trim()}\n`);
  let text = head.join("\n") + "\n" + body.join("\n");
  if (text.length > MAX_CONDENSED_CHARS) {
    const half = MAX_CONDENSED_CHARS / 2;
    text = text.slice(0, half) + "\n\n[… middle of the conversation left out …]\n\n" + text.slice(-half);
  }
  return text;
}

/** Glob match: `*` any run of characters, `?` one; against the project name or the folder. */
export function isExcluded(project: string, cwd: string, globs: readonly string[]): boolean {
  return globs.some((g) => {
    const re = new RegExp("^" + g.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$", "i");
    return re.test(project) || re.test(cwd);
  });
}

/** The branch from `.git/HEAD`, read rather than asked of git: hooks spawn no processes. */
function gitBranchOf(cwd: string): string {
  for (let dir = cwd; dir && dir !== join(dir, ".."); dir = join(dir, "..")) {
    try {
      const head = readFileSync(join(dir, ".git", "HEAD"), "utf8").trim();
      return head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : head.slice(0, 12);
    } catch {
      /* not here */
    }
  }
  return "";
}
