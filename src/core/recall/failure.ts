/**
 * What recall looks for when a command Claude ran fails (Claude Code's PostToolUseFailure): the
 * error's own words. The telling lines of a failure are its last ones (the exception, the exit
 * status, the compiler's summary), so those are kept, with the command's first words, which name
 * the tool; the "Exit code N" line Claude Code puts first says nothing of the cause.
 */

import type { RecallRules } from "./rules";

const MAX_LINES = 30;
const MAX_CHARS = 4000;
const MAX_COMMAND_CHARS = 200;

export function failureQuery(error: string, command = ""): string {
  const lines = error
    .split(/\r?\n/)
    .filter((l) => !/^\s*exit code \d+\s*$/i.test(l))
    .filter((l) => l.trim() !== "");
  let tail = lines.slice(-MAX_LINES).join("\n");
  if (tail.length > MAX_CHARS) tail = tail.slice(tail.length - MAX_CHARS);
  const head = command.trim().slice(0, MAX_COMMAND_CHARS);
  return head ? `${head}\n${tail}` : tail;
}

// A failure is what debugging cards are written about: among cards its words found, they go first.
const DEBUGGING_FIRST = 1.5;

/** The rules recall uses for a failed command: the prompt's, with debugging cards weighed up. */
export function failureRules(rules: RecallRules): RecallRules {
  const typeWeights = { ...rules.signals.typeWeights };
  typeWeights.debugging = (typeWeights.debugging ?? 1) * DEBUGGING_FIRST;
  return { ...rules, signals: { ...rules.signals, typeWeights } };
}
