/** When the nightly digest is due: the last scheduled time, and whether a run has happened since. */

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
