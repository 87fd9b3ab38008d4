/**
 * `import`: the sessions from before the install, queued for the digest as the Stop hook would
 * have queued them (same rules, same reader, same redaction), marked as imported.
 */

import { resolveProject } from "../project";
import { readTranscript, TranscriptError, type TranscriptSummary } from "../transcript/read-transcript";
import { listTranscripts, type TranscriptFile } from "../transcript/projects";
import { captureSession, isExcluded, tooShort, type QueueRules } from "./capture";
import { handledPath, pendingPath, readEntry, type QueueEntry } from "./queue-store";

export interface ImportOptions {
  /** A Claude Code projects folder (claudeProjectsDir() by default, chosen by the caller). */
  from: string;
  rules: QueueRules;
  /** Only sessions active on or after this. */
  since?: Date;
  /** Only sessions of this project (the name cards carry in `project`), compared without case. */
  project?: string;
  /** Read and count, write nothing. */
  dryRun?: boolean;
  /** The account whose transcripts are read; undefined reads any (Windows has no uid). */
  uid?: number;
  /** Stops reading once this passes (milliseconds since the epoch); the next run takes the rest. */
  deadline?: number;
  now?: Date;
  /** Called after each transcript: how many are done of how many, and how many were queued. */
  onProgress?: (done: number, total: number, queued: number) => void;
}

export interface ImportedSession {
  sessionId: string;
  project: string;
  lastTimestamp: string;
  prompts: number;
}

export interface ImportReport {
  from: string;
  dryRun: boolean;
  /** Transcripts found in the folder. */
  found: number;
  /** Queued now (or, in a dry run, that would be), newest first. */
  queued: ImportedSession[];
  /** Queued or filed already, by an earlier import or the Stop hook. */
  known: number;
  /** Too short to keep by the Stop hook's rules. */
  short: number;
  /** In a project the settings exclude. */
  excluded: number;
  /** Before `since`, or of another project than the one asked for. */
  outside: number;
  /** Not read, with why: not a regular file, another account's, unreadable. */
  refused: { path: string; why: string }[];
  /** Not reached: the time ran out, or the folder held more than is listed. The next run takes them. */
  left: number;
  /** Why the run ended before the last transcript. */
  stopped?: string;
}

/**
 * Queues the folder's sessions worth keeping, newest first. Idempotent: a session queued or filed
 * already, and not changed since, is passed by without being read again, so a second run adds
 * nothing and takes seconds. Each transcript is read by the Stop hook's reader: bounded in size,
 * redacted before anything is kept, a FIFO or device refused without being opened for long.
 */
export function importHistory(vault: string, o: ImportOptions): ImportReport {
  const listing = listTranscripts(o.from, { uid: o.uid });
  const files = [...listing.files].sort((a, b) => b.mtimeMs - a.mtimeMs || a.sessionId.localeCompare(b.sessionId));
  const report: ImportReport = {
    from: o.from,
    dryRun: o.dryRun === true,
    found: files.length + listing.refused.length + (listing.cut ?? 0),
    queued: [],
    known: 0,
    short: 0,
    excluded: 0,
    outside: 0,
    refused: listing.refused,
    left: listing.cut ?? 0,
  };
  if (listing.cut) report.stopped = `the folder holds more transcripts than one run lists (${listing.files.length})`;
  const now = o.now ?? new Date();
  const since = o.since?.getTime();
  const check = o.uid === undefined ? undefined : ownedBy(o.uid);
  for (let i = 0; i < files.length; i++) {
    if (o.deadline !== undefined && Date.now() > o.deadline) {
      report.left += files.length - i;
      report.stopped = "out of time";
      break;
    }
    const f = files[i];
    // A file last written before the date holds no turn after it: passed by unread.
    if (since !== undefined && f.mtimeMs < since) report.outside++;
    else if (knownAlready(vault, f)) report.known++;
    else one(vault, f, o, report, { now, since, check });
    o.onProgress?.(i + 1, files.length, report.queued.length);
  }
  return report;
}

function one(
  vault: string,
  f: TranscriptFile,
  o: ImportOptions,
  report: ImportReport,
  at: { now: Date; since: number | undefined; check: ((st: { uid: number }) => string) | undefined },
): void {
  let t: TranscriptSummary;
  try {
    t = readTranscript(f.path, { noFollow: true, check: at.check });
  } catch (err) {
    if (!(err instanceof TranscriptError)) throw err;
    report.refused.push({ path: f.path, why: err.message });
    return;
  }
  const last = Date.parse(t.lastTimestamp);
  if (at.since !== undefined && Number.isFinite(last) && last < at.since) return void report.outside++;
  const project = resolveProject(t.cwd);
  if (o.project !== undefined && project.toLowerCase() !== o.project.toLowerCase()) return void report.outside++;
  if (isExcluded(project, t.cwd, o.rules.excludeProjects)) return void report.excluded++;
  if (tooShort(t, o.rules)) return void report.short++;
  const session: ImportedSession = { sessionId: f.sessionId, project, lastTimestamp: t.lastTimestamp, prompts: t.prompts };
  if (o.dryRun) return void report.queued.push(session);
  const r = captureSession(vault, { sessionId: f.sessionId, transcriptPath: f.path, cwd: t.cwd, stopHookActive: false }, o.rules, {
    transcript: t,
    imported: true,
    now: at.now,
  });
  if (r.queued) report.queued.push(session);
  else report.known++;
}

/**
 * Whether the session is in the queue or filed already, and its transcript has not been written
 * since: a session that went on after it was queued is read again, and its entry brought up to date.
 */
function knownAlready(vault: string, f: TranscriptFile): boolean {
  const entry: (QueueEntry & { handledAt?: string }) | undefined = readEntry(pendingPath(vault, f.sessionId)) ?? readEntry(handledPath(vault, f.sessionId));
  if (!entry) return false;
  const at = Date.parse(entry.handledAt ?? entry.updatedAt);
  return Number.isFinite(at) && f.mtimeMs <= at;
}

function ownedBy(uid: number): (st: { uid: number }) => string {
  return (st) => (st.uid === uid ? "" : `owned by another account (uid ${st.uid})`);
}

/** The import's outcome in a few lines for a person: what was queued, what was passed by and why. */
export function importLines(r: ImportReport, perNight: number): string[] {
  const n = r.queued.length;
  const verb = r.dryRun ? "would queue" : "queued";
  const lines = [`${verb} ${n} session${n === 1 ? "" : "s"} of ${r.found} found in ${r.from}`];
  const passed = [
    r.known && `${r.known} queued or filed already`,
    r.short && `${r.short} too short to keep`,
    r.excluded && `${r.excluded} in excluded projects`,
    r.outside && `${r.outside} outside the dates or project asked for`,
    r.refused.length && `${r.refused.length} not read`,
  ].filter(Boolean);
  if (passed.length > 0) lines.push(`passed by: ${passed.join(", ")}`);
  for (const x of r.refused.slice(0, 5)) lines.push(`  not read: ${x.path}: ${x.why}`);
  if (r.refused.length > 5) lines.push(`  … and ${r.refused.length - 5} more not read`);
  if (r.stopped) lines.push(`${r.stopped}: ${r.left} transcript${r.left === 1 ? "" : "s"} not reached; run import again to go on`);
  if (n > 0 && !r.dryRun && perNight > 0) {
    const nights = Math.ceil(n / perNight);
    lines.push(
      `the nightly digest takes up to ${perNight} a night, after the day's own conversations: about ${nights} night${nights === 1 ? "" : "s"} (or run \`digest --limit N\` now)`,
    );
  }
  return lines;
}
