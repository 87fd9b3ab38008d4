/**
 * What recall looks for when a command Claude ran fails (Claude Code's PostToolUseFailure): the
 * error's own words. A failing command prints much that is not the failure (progress, log lines,
 * the project's paths), and those words match every card of the project; what a card that
 * explains the failure shares with it is in the lines that say what went wrong. So the lines that
 * read as an error are kept, the last of them, and the last few lines when none does; the command
 * and Claude Code's "Exit code N" line are not (measured on a blind set, docs/prompt-hook.md).
 */

import type { RecallRules } from "./rules";

// Words that mark a line as the failure's own, in the tools' usual English. Some failures name
// themselves in none of the words an error message uses: a race detector's report (Go's
// "WARNING: DATA RACE", ThreadSanitizer's "data race"), a crash ("Segmentation fault (core
// dumped)", "Aborted (core dumped)"), a deadlock; their lines are the failure too.
const TELLING =
  /error|fail|fatal|exception|panic|denied|refused|not found|cannot|can't|could not|unable|invalid|timed? ?out|conflict|undefined|mismatch|unsupported|unknown|missing|no such|data race|race detected|segmentation fault|core dumped|deadlock|\bE\d{3,}\b|\b[A-Z]\d{3,}\b|[a-z]+Error\b|\bERR/i;
const MAX_TELLING_LINES = 12;
const FALLBACK_LINES = 3;
const MAX_CHARS = 4000;

// A log line's time stamp (2026-07-22T07:20:04.006+0000, 2026-07-22 07:20, 20260722T072004,
// 17:42:09.113), also inside a longer name (run_2026-07-22T07:10:01): its numbers are rare in a
// vault, so they would pass for the error's own rare words, and they dilute the share of the
// error's words that the card which explains it matches. A date without a time stays: it may be
// what the error is about (an API version such as 2023-10-16, a release).
const TIME_STAMP = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?|\d{8}T\d{6}(?:Z|[+-]\d{4})?|\b\d\d:\d\d:\d\d(?:[.,]\d+)?/g;

export function failureQuery(error: string): string {
  const lines = error.split(/\r?\n/).filter((l) => l.trim() !== "" && !/^\s*exit code \d+\s*$/i.test(l));
  const telling = lines.filter((l) => TELLING.test(l)).slice(-MAX_TELLING_LINES);
  const text = (telling.length > 0 ? telling : lines.slice(-FALLBACK_LINES)).join("\n").replace(TIME_STAMP, " ");
  return text.length > MAX_CHARS ? text.slice(text.length - MAX_CHARS) : text;
}

// Commands whose non-zero exit reports a result, not an error: the files differ, no line or
// process matched, the test was false, the path is not there. No card explains that.
const RESULT_COMMANDS = new Set(["diff", "cmp", "grep", "egrep", "fgrep", "rg", "ag", "test", "[", "[[", "ls", "stat", "pgrep", "pidof", "which"]);
// Words that run the rest of the line as a command of its own.
const WRAPPERS = new Set(["sudo", "env", "command", "time", "nice", "nohup"]);
// A formatter's check mode exits non-zero when it would change a file: a result too.
const FORMATTER = /^(?:fmt|format|[a-z]*fmt|prettier|black|isort)$/;
const CHECK_FLAG = /^--?check$/;

/**
 * Whether `command` is one whose failing exit reports a result rather than an error (diff,
 * grep, test, ls, a formatter's `--check`…): the last command of the line, past variable
 * assignments and wrappers such as `sudo`. Nothing is looked up for it.
 */
export function reportsResult(command: string): boolean {
  const last = command.split(/&&|\|\||;|\|/).pop() ?? "";
  const words = last.trim().split(/\s+/);
  let at = 0;
  while (at < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]) || WRAPPERS.has(words[at]))) at++;
  const name = (words[at] ?? "").slice((words[at] ?? "").lastIndexOf("/") + 1);
  if (RESULT_COMMANDS.has(name)) return true;
  const rest = words.slice(at);
  return rest.some((w) => FORMATTER.test(w)) && rest.some((w) => CHECK_FLAG.test(w));
}

// A failure is what debugging cards are written about: among cards its words found, they go first.
const DEBUGGING_FIRST = 1.5;
// A card must match this share of the failure's words: a lookalike error of the same project
// shares its paths and tools, the explained one its words (chosen on the development set).
const MIN_SHARE = 0.25;
// And share words few cards hold (see ThresholdRules.rareWord): the error's code, exception or
// module, where a lookalike error shares only the project's common words, or one word with a
// card about another error of the same tool. One such word is enough for a card that matches
// 60% of the error's words; below that it takes two, and three below 30% (rareEvidence; both
// chosen on the development set, docs/prompt-hook.md).
const RARE_WORD = 0.75;
const RARE_EVIDENCE = 0.6;

/** The rules recall uses for a failed command: the prompt's, debugging cards weighed up, project overviews left out, the share and rare-word gates. */
export function failureRules(rules: RecallRules): RecallRules {
  const typeWeights = { ...rules.signals.typeWeights };
  typeWeights.debugging = (typeWeights.debugging ?? 1) * DEBUGGING_FIRST;
  // A project's overview describes the project, not an error, and shares its paths and tools
  // with every failure in it.
  typeWeights.project = 0;
  typeWeights.subproject = 0;
  const thresholds = {
    ...rules.thresholds,
    minMatchedShare: Math.max(rules.thresholds.minMatchedShare ?? 0, MIN_SHARE),
    rareWord: Math.max(rules.thresholds.rareWord ?? 0, RARE_WORD),
    rareEvidence: Math.max(rules.thresholds.rareEvidence ?? 0, RARE_EVIDENCE),
  };
  return { ...rules, thresholds, signals: { ...rules.signals, typeWeights } };
}
