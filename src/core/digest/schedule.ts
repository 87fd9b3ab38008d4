/** When the nightly digest is due: the last scheduled time, and whether a run has happened since. */

import { writeFileAtomic } from "../io/atomic";
import { readRegularFile } from "../io/read-file";
import { vaultFiles } from "../paths";
import { readDigestStatus } from "./status";

/** `HH:MM` as the settings hold a time of day; hours to 23 and minutes to 59. */
export const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** The latest moment at `time` (HH:MM, local) that is not after `now`. */
export function lastScheduled(now: Date, time: string): Date {
  const m = TIME_OF_DAY.exec(time.trim());
  const [h, min] = m ? [Number(m[1]), Number(m[2])] : [3, 0];
  const at = new Date(now);
  at.setHours(h, min, 0, 0);
  if (at.getTime() > now.getTime()) at.setDate(at.getDate() - 1);
  return at;
}

/**
 * Due when the last scheduled time is later than the last run: a night missed while Obsidian
 * was closed runs at the next start.
 */
export function isDue(now: Date, time: string, lastRun: string | undefined): boolean {
  const last = lastRun ? Date.parse(lastRun) : NaN;
  return !Number.isFinite(last) || lastScheduled(now, time).getTime() > last;
}

/**
 * When scheduling began in this vault, recorded by the first scheduler to look (Obsidian's, or a
 * system timer's `digest --if-due`). A night before that was not "missed": installing a schedule
 * must not start an LLM run at once.
 */
export function scheduledSince(vault: string, now: Date): string {
  const path = vaultFiles.digestSchedule(vault);
  try {
    const since = (JSON.parse(readRegularFile(path, { maxBytes: 4096 }).toString("utf8")) as { since?: unknown }).since;
    if (typeof since === "string" && Number.isFinite(Date.parse(since))) return since;
  } catch {
    /* not recorded yet, or unreadable: recorded now */
  }
  writeFileAtomic(path, JSON.stringify({ since: now.toISOString() }) + "\n");
  return now.toISOString();
}

/**
 * Whether a scheduled digest at `time` should run now: its last scheduled moment came after both
 * the last run (on any machine, from Obsidian or the command line) and the start of scheduling.
 * So a timer that fires at a login after a missed night runs it, and one that fires after
 * Obsidian already did tonight's run does nothing.
 */
export function nightDue(vault: string, time: string, now: Date): boolean {
  const last = [readDigestStatus(vault)?.startedAt, scheduledSince(vault, now)]
    .filter((x): x is string => !!x)
    .sort()
    .pop();
  return isDue(now, time, last);
}
