/** `import`: the Claude Code sessions from before the install, queued for the digest. */

import { writeSync } from "node:fs";
import { isatty } from "node:tty";
import { stringFlag, UsageError, type Args } from "../args";
import { vaultFlag } from "../vault";
import { loadSettings } from "../settings";
import { importHistory, importLines, type ImportReport } from "../../../src/core/queue/import";
import { claudeProjectsDir } from "../../../src/core/transcript/projects";
import { IMPORT_CHILD_PROTOCOL } from "../../../src/core/queue/import-child";

// Reading a thousand transcripts takes seconds; a run still reading after this is in a folder far
// larger than a person's history, and the next run takes what is left.
const IMPORT_BUDGET_MS = 10 * 60_000;
// Sessions a dry run names one by one; the rest are counted.
const MAX_LISTED = 20;

export function importCommand(args: Args): number {
  const vault = vaultFlag(args);
  const json = args.flags.has("json");
  const emit = (line: object): void => void writeSync(1, JSON.stringify(line) + "\n");
  const warn = (p: string): void => (json ? emit({ warning: p }) : void writeSync(2, `warning: ${p}\n`));
  const config = loadSettings(vault, args, warn, false).config;
  const from = stringFlag(args, "from") ?? claudeProjectsDir();
  const since = sinceFlag(stringFlag(args, "since"));
  const tty = !json && isatty(2);
  let report: ImportReport;
  // Stopped half-way (Ctrl-C, Obsidian closing), nothing is lost: each session is queued by an
  // atomic write under its lock, and the next run passes by what is queued already.
  try {
    report = importHistory(vault, {
      from,
      rules: config.queue,
      since,
      project: stringFlag(args, "project"),
      dryRun: args.flags.has("dry-run"),
      uid: process.getuid?.(),
      deadline: Date.now() + IMPORT_BUDGET_MS,
      onProgress: (done, total, queued) => {
        // On a terminal, one line rewritten in place; Obsidian gets a line now and then.
        if (tty && (done % 25 === 0 || done === total))
          writeSync(2, `\rreading transcripts: ${done} of ${total}, ${queued} to queue${done === total ? "\n" : ""}`);
        else if (json && (done % 100 === 0 || done === total)) emit({ progress: `${done} of ${total} transcripts read, ${queued} to queue` });
      },
    });
  } catch (err) {
    // A folder that is not there is one readable line, not a stack.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`${from} does not exist: no Claude Code transcripts to import (or name their folder with --from)`);
    throw err;
  }
  if (json) {
    emit({ protocol: IMPORT_CHILD_PROTOCOL, report });
    return 0;
  }
  for (const line of importLines(report, config.digest.maxEntries)) writeSync(1, `${line}\n`);
  if (report.dryRun)
    for (const s of report.queued.slice(0, MAX_LISTED))
      writeSync(1, `  ${s.lastTimestamp.slice(0, 10) || "no date"}  ${s.project || "(no project)"}  ${s.prompts} prompts  ${s.sessionId}\n`);
  if (report.dryRun && report.queued.length > MAX_LISTED) writeSync(1, `  … and ${report.queued.length - MAX_LISTED} more\n`);
  return 0;
}

/** `--since`: a day (YYYY-MM-DD, from its local midnight) or a moment in ISO 8601. */
export function sinceFlag(v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const d = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : /^\d{4}-\d{2}-\d{2}T/.test(v) ? new Date(v) : undefined;
  if (!d || !Number.isFinite(d.getTime()) || (day && d.getDate() !== Number(day[3])))
    throw new UsageError(`--since takes a date (2026-01-31) or an ISO time, not "${v}"`);
  return d;
}
