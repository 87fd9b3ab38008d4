/** How the views word counts and times: plurals that agree, and times relative to now with the exact one kept for hover. */

/** "1 finding", "3 findings"; `many` for words whose plural is not the word plus "s". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

const UNITS: [unit: Intl.RelativeTimeFormatUnit, ms: number][] = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["week", 7 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** "just now", "5 minutes ago", "yesterday", "in 3 hours": the largest whole unit, as people say it. */
export function relativeTime(when: number, now = Date.now()): string {
  const diff = when - now;
  if (Math.abs(diff) < 45_000) return "just now";
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms || unit === "minute") return format.format(Math.round(diff / ms), unit);
  }
  return "just now";
}

/** The exact local time, for a tooltip beside a relative one: "1 Dec 2026, 08:00". */
export function exactTime(when: number): string {
  return new Date(when).toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}
