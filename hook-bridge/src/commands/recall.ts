/** `recall`: the UserPromptSubmit hook. Prints matched cards, or nothing; always exits 0. */

import { writeSync } from "node:fs";
import { numberFlag, type Args } from "../args";
import { readStdinSync } from "../stdin";
import { vaultFlag } from "../vault";
import { appendLog } from "../../../src/core/io/log";
import { vaultFiles } from "../../../src/core/paths";
import { recall } from "../../../src/core/recall/recall";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import type { RecallRules } from "../../../src/core/snapshot/format";

// Far inside Claude Code's hook timeout (we register 10 s; its default is 30 s). Every step is
// synchronous, so the deadline is checked between steps rather than by a timer.
const DEFAULT_DEADLINE_MS = 2000;

export function recallCommand(args: Args): number {
  let logPath = "";
  const failOpen = (reason: string): number => {
    if (logPath) appendLog(logPath, "recall", reason);
    return 0;
  };
  try {
    const vault = vaultFlag(args);
    logPath = vaultFiles.log(vault);
    const deadline = numberFlag(args, "deadline-ms") ?? DEFAULT_DEADLINE_MS;

    const prompt = promptOf(readStdinSync());
    if (prompt === undefined) return failOpen("stdin is not a UserPromptSubmit hook payload");

    const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
    try {
      const result = recall(prompt, reader, withOverrides(reader.header.rules, args), vault);
      // Printing late is worse than printing nothing: Claude Code may already have moved on.
      const elapsed = performance.now();
      if (elapsed > deadline) return failOpen(`gave up: recall took ${Math.round(elapsed)} ms, over the ${deadline} ms deadline`);
      if (result.text) writeSync(1, result.text);
    } finally {
      reader.close();
    }
    return 0;
  } catch (err) {
    return failOpen(err instanceof Error ? err.message : String(err));
  }
}

function promptOf(stdin: string): string | undefined {
  try {
    const payload = JSON.parse(stdin) as unknown;
    if (payload && typeof payload === "object" && typeof (payload as { prompt?: unknown }).prompt === "string") {
      return (payload as { prompt: string }).prompt;
    }
  } catch {
    /* malformed */
  }
  return undefined;
}

function withOverrides(rules: RecallRules, args: Args): RecallRules {
  const t = { ...rules.thresholds };
  t.maxCards = numberFlag(args, "max-cards") ?? t.maxCards;
  t.minScore = numberFlag(args, "min-score") ?? t.minScore;
  return { ...rules, thresholds: t, maxChars: numberFlag(args, "max-chars") ?? rules.maxChars };
}
