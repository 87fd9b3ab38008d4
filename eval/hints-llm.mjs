#!/usr/bin/env node
/**
 * A stand-in for the LLM command of `enrich`: answers each card of the batch in the prompt from a
 * file of recorded answers, one JSON line per note: {"path": "<path inside the vault>", "questions": [...]}.
 *
 *   node eval/hints-llm.mjs ANSWERS.jsonl < prompt        (or --answers FILE, or VAULT_MEMORY_HINTS_FILE)
 *
 * It may also be set as the digest's binary under the default `claude -p --output-format json`
 * command: it ignores the flags it does not know, and with `--output-format json` it wraps its
 * answer in a result object as claude does, which the digest's extractJson unwraps.
 * HINTS_LLM_LOG=FILE appends one line per call (the paths asked for); HINTS_LLM_FAIL_AFTER=N
 * answers a quota error once N calls are in that log, to test a run that stops.
 * Plain Node, no dependencies, so the evaluation can run it anywhere.
 */

import { appendFileSync, existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const file = flag("--answers") ?? args.find((a) => a.endsWith(".jsonl")) ?? process.env.VAULT_MEMORY_HINTS_FILE;
const json = flag("--output-format") === "json";

function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** path inside the recorded vault → questions */
export function loadAnswers(path) {
  const out = new Map();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const row = JSON.parse(line);
    if (typeof row.path === "string" && Array.isArray(row.questions)) out.set(row.path, row.questions);
  }
  return out;
}

/** The batch's card paths, as the enrich prompt gives them: <card path="..."> with a JSON string. */
export function promptPaths(prompt) {
  return [...prompt.matchAll(/<card path=("(?:[^"\\\n]|\\.)*")>/g)].map((m) => JSON.parse(m[1]));
}

/** The recorded answer for a vault path: the same path, or the vault path inside a memory folder. */
export function answerFor(answers, vaultPath) {
  const parts = vaultPath.split("/");
  for (let i = 0; i < parts.length; i++) {
    const hit = answers.get(parts.slice(i).join("/"));
    if (hit) return hit;
  }
  return undefined;
}

export function answerPrompt(answers, prompt) {
  const cards = promptPaths(prompt).flatMap((path) => {
    const questions = answerFor(answers, path);
    return questions ? [{ path, questions }] : [];
  });
  return { cards };
}

async function main() {
  if (!file) fail("hints-llm: no answers file (give it as an argument, --answers FILE, or VAULT_MEMORY_HINTS_FILE)", 2);
  if (!existsSync(file)) fail(`hints-llm: answers file not found: ${file}`, 2);
  let prompt = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) prompt += chunk;
  const log = process.env.HINTS_LLM_LOG;
  const failAfter = process.env.HINTS_LLM_FAIL_AFTER ? Number(process.env.HINTS_LLM_FAIL_AFTER) : Infinity;
  if (log) {
    const done = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0;
    if (done >= failAfter) fail("API Error: 429 rate limit: usage limit reached for this period");
    appendFileSync(log, JSON.stringify(promptPaths(prompt)) + "\n");
  }
  // A digest prompt (the stand-in set as the digest's binary): it writes hints only, so it skips.
  const digest = promptPaths(prompt).length === 0 && prompt.includes("Decide what to keep from one conversation");
  const answer = JSON.stringify(digest ? { action: "skip", reason: "the stand-in LLM writes recall hints only" } : answerPrompt(loadAnswers(file), prompt));
  process.stdout.write(json ? JSON.stringify({ type: "result", subtype: "success", is_error: false, result: answer }) + "\n" : answer + "\n");
}

// Imported by the evaluation for its helpers, run as a command otherwise.
if (process.argv[1]?.endsWith("hints-llm.mjs")) await main();
