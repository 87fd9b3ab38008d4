/** `remind`: the SessionStart hook. One short line when conversations wait in the queue. */

import { readFileSync, writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { appendLog } from "../../../src/core/io/log";
import { vaultFiles } from "../../../src/core/paths";
import { listPending } from "../../../src/core/queue/queue-store";

interface DigestStatus {
  finishedAt?: string;
  ok?: boolean;
  error?: string;
}

export function remindCommand(args: Args, now = new Date()): number {
  let logPath = "";
  try {
    const vault = vaultFlag(args);
    logPath = vaultFiles.log(vault);
    const text = reminder(vault, now);
    if (text) writeSync(1, text + "\n");
  } catch (err) {
    if (logPath) appendLog(logPath, "remind", err instanceof Error ? err.message : String(err));
  }
  return 0;
}

export function reminder(vault: string, now: Date): string {
  const pending = listPending(vault);
  if (pending.length === 0) return "";
  const oldest = pending[0].queuedAt;
  const status = digestStatus(vault);
  const last = !status?.finishedAt
    ? "the nightly digest has not run yet"
    : status.ok
      ? `the nightly digest last ran ${ago(status.finishedAt, now)}`
      : `the nightly digest failed ${ago(status.finishedAt, now)}${status.error ? ` (${status.error.slice(0, 80)})` : ""}`;
  const n = pending.length;
  return `Vault Memory: ${n} conversation${n === 1 ? "" : "s"} wait${n === 1 ? "s" : ""} to become cards (oldest queued ${ago(oldest, now)}); ${last}.`;
}

function digestStatus(vault: string): DigestStatus | undefined {
  try {
    return JSON.parse(readFileSync(vaultFiles.digestStatus(vault), "utf8")) as DigestStatus;
  } catch {
    return undefined;
  }
}

function ago(iso: string, now: Date): string {
  const ms = now.getTime() - new Date(iso).getTime();
  if (!Number.isFinite(ms)) return "at an unknown time";
  const h = Math.round(ms / 3_600_000);
  if (h < 1) return "less than an hour ago";
  if (h < 48) return `${h} hour${h === 1 ? "" : "s"} ago`;
  return `${Math.round(h / 24)} days ago`;
}
