/** Consolidation as a run of its own (`consolidate`) or as the digest's monthly pass: the LLM command, the lock, the snapshot after. */

import { readTextIfAny } from "../io/read-file";
import { writeFileAtomic } from "../io/atomic";
import { join } from "node:path";
import { baseName } from "../card/card";
import type { VaultMemoryConfig } from "../config";
import { settingsCommand } from "../llm/llm";
import { acquireLock, releaseLock } from "../llm/lock";
import { sendToCommand, type CommandResult } from "../llm/run-command";
import { vaultFiles } from "../paths";
import { NoteCache } from "../vault/note-cache";
import { withCardsLock } from "./apply";
import { consolidate, type ConsolidateReport } from "./consolidate";
import { snapshotAfterWrite, vectorsAfterWrite } from "./write-now";

// The pass runs once a month: fragments gather slowly, and each group is an LLM call.
export const CONSOLIDATE_EVERY_DAYS = 30;

const statusPath = (vault: string): string => join(vaultFiles.dir(vault), "consolidate-status.json");

/** Whether the monthly pass is due: none has finished in the last CONSOLIDATE_EVERY_DAYS days. */
export function consolidationDue(vault: string, now: Date): boolean {
  try {
    const s = JSON.parse(readTextIfAny(statusPath(vault), { maxBytes: 1 << 14 }) ?? "null") as { finishedAt?: string } | null;
    const at = Date.parse(s?.finishedAt ?? "");
    return !Number.isFinite(at) || now.getTime() - at >= CONSOLIDATE_EVERY_DAYS * 86_400_000;
  } catch {
    return true;
  }
}

export function noteConsolidated(vault: string, now: Date): void {
  writeFileAtomic(statusPath(vault), JSON.stringify({ finishedAt: now.toISOString() }) + "\n");
}

/** The report's lines: each merge, and each group kept apart with why. */
export function consolidateLines(r: ConsolidateReport, dryRun = false): string[] {
  const link = (p: string): string => `[[${baseName(p)}]]`;
  if (r.proposed.length > 0)
    return [
      `proposed ${r.proposed.length} merge${r.proposed.length === 1 ? "" : "s"} of the ${r.groups.length} group${r.groups.length === 1 ? "" : "s"} found, for you to accept or dismiss in the queue sidebar (${r.calls} LLM call${r.calls === 1 ? "" : "s"})`,
      ...r.proposed.map((m) => `- ${link(m.primary)} would take in ${m.merged.map(link).join(", ")}`),
      ...r.kept.map((k) => `- kept apart: ${k.paths.map(link).join(", ")}: ${k.reason}`),
    ];
  return [
    `${dryRun ? "would merge" : "merged"} ${r.merges.length} group${r.merges.length === 1 ? "" : "s"} of the ${r.groups.length} found (${r.calls} LLM call${r.calls === 1 ? "" : "s"})`,
    ...r.merges.map(
      (m) =>
        `- ${link(m.primary)} ${dryRun ? "would take in" : "took in"} ${m.merged.map(link).join(", ")}${dryRun ? "" : " (now status: merged, linking to it)"}`,
    ),
    ...r.kept.map((k) => `- kept apart: ${k.paths.map(link).join(", ")}: ${k.reason}`),
  ];
}

export interface ConsolidateRunOptions {
  vault: string;
  config: VaultMemoryConfig;
  dryRun?: boolean;
  /** Write the merges as proposals for the queue sidebar rather than making them. */
  propose?: boolean;
  env?: NodeJS.ProcessEnv;
  now?: Date;
  say?: (line: string) => void;
}

/** `consolidate`: under the digest's lock, with its LLM command and call budget. */
export async function consolidateVault(o: ConsolidateRunOptions): Promise<{ report: ConsolidateReport; lines: string[] } | { error: string }> {
  const llm = settingsCommand(o.config.digest, o.env, o.vault);
  if ("error" in llm) return { error: llm.error };
  const lockPath = vaultFiles.digestLock(o.vault);
  const now = o.now ?? new Date();
  if (!o.dryRun) {
    const lock = acquireLock(lockPath, now.getTime());
    if (!lock.ok) return { error: `a digest is running (${lock.holder.host}, pid ${lock.holder.pid}, since ${lock.holder.startedAt})` };
  }
  try {
    const notes = new NoteCache(o.vault);
    const ask = (prompt: string): Promise<CommandResult> =>
      sendToCommand(llm.command, prompt, { timeoutMs: o.config.digest.timeoutSec * 1000, cwd: o.vault, env: o.env });
    const report = await consolidate({
      vault: o.vault,
      config: o.config,
      notes,
      ask,
      maxCalls: o.config.digest.maxCalls,
      dryRun: o.dryRun,
      propose: o.propose,
      now,
      say: o.say,
    });
    if (!o.dryRun) {
      if (report.merges.length > 0) {
        // Under the cards lock, as every write brings the snapshot up to date; its vectors after it.
        const update = withCardsLock(o.vault, () => snapshotAfterWrite(o.vault, o.config, new NoteCache(o.vault)));
        await vectorsAfterWrite(o.vault, o.config, update);
      }
      noteConsolidated(o.vault, now);
    }
    return { report, lines: consolidateLines(report, o.dryRun) };
  } finally {
    if (!o.dryRun) releaseLock(lockPath);
  }
}
