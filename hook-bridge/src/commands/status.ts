/** `status`: the vault's memory at a glance, for a person at a terminal or a script (`--json`). */

import { existsSync, writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { loadSettings } from "../settings";
import { vaultFiles } from "../../../src/core/paths";
import { listPending } from "../../../src/core/queue/queue-store";
import { readDigestStatus, type DigestStatus } from "../../../src/core/digest/status";
import { readSyncStatus, type SyncStatus } from "../../../src/core/sync/sync";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { overlayPathOf } from "../../../src/core/snapshot/format";
import { plural, relativeTime } from "../../../src/core/text/wording";
import { escapeControl } from "../../../src/core/text/visible";
import { recentUsageText } from "../../../src/core/recall/usage-log";

export interface VaultStatus {
  vault: string;
  snapshot: { cards: number; writtenAt: string } | { error: string };
  /** Conversations waiting for the digest: the day's own, those `import` queued, those held for review. */
  queue: { waiting: number; imported: number; held: number; oldestQueuedAt?: string };
  digest?: Partial<DigestStatus>;
  sync: { enabled: boolean; last?: SyncStatus };
  /** Of the last prompts recall logged, how many the resident recall server answered. */
  recall: { prompts: number; resident: number };
}

// The prompts `status` looks back over, and the recall log's tail it reads for them.
const RECENT_PROMPTS = 100;
const RECENT_BYTES = 256 << 10;

export function statusCommand(args: Args): number {
  const vault = vaultFlag(args);
  const config = loadSettings(vault, args, (p) => void writeSync(2, `warning: ${p}\n`), false).config;
  const s = vaultStatus(vault, config.sync.enabled);
  if (args.flags.has("json")) writeSync(1, JSON.stringify(s, null, 2) + "\n");
  else for (const line of statusLines(s)) writeSync(1, `${line}\n`);
  return 0;
}

export function vaultStatus(vault: string, syncEnabled: boolean): VaultStatus {
  const pending = listPending(vault);
  const imported = pending.filter((e) => e.imported && !e.held).length;
  const held = pending.filter((e) => e.held).length;
  return {
    vault,
    snapshot: snapshotOf(vault),
    queue: { waiting: pending.length - imported - held, imported, held, ...(pending.length > 0 ? { oldestQueuedAt: pending[0].queuedAt } : {}) },
    digest: readDigestStatus(vault),
    sync: { enabled: syncEnabled, last: readSyncStatus(vault) },
    recall: recentRecalls(vault),
  };
}

/** Who answered the last prompts: the resident recall server, or the hook's own process. */
function recentRecalls(vault: string): VaultStatus["recall"] {
  let text = "";
  try {
    text = recentUsageText(vaultFiles.usageLog(vault), RECENT_BYTES);
  } catch {
    /* no log to read: no prompts */
  }
  // The first line of a tail may be cut; a line that does not parse is not counted.
  const lines = text.split("\n").slice(-RECENT_PROMPTS - 1);
  let prompts = 0;
  let resident = 0;
  for (const line of lines.slice(-RECENT_PROMPTS)) {
    try {
      const entry = JSON.parse(line) as { resident?: unknown; cards?: unknown; prompt?: unknown };
      // read_card's lines (the MCP server's) are not prompts.
      if (!Array.isArray(entry.cards) || entry.prompt === "read_card") continue;
      prompts++;
      if (entry.resident === true) resident++;
    } catch {
      /* a cut or damaged line */
    }
  }
  return { prompts, resident };
}

/** The cards recall reads and when they were read from the vault: the base snapshot, or its overlay when one is newer. */
function snapshotOf(vault: string): VaultStatus["snapshot"] {
  const path = vaultFiles.snapshot(vault);
  if (!existsSync(path)) return { error: "no snapshot yet: run index" };
  try {
    const header = read(path);
    const overlay = existsSync(overlayPathOf(path)) ? tryRead(overlayPathOf(path)) : undefined;
    const current = overlay?.overlay?.base === header.headerSum ? overlay : undefined;
    return { cards: current?.overlay?.cards ?? header.cards, writtenAt: current?.createdAt ?? header.createdAt };
  } catch (err) {
    return { error: `the snapshot cannot be read (${err instanceof Error ? err.message : String(err)}): run index` };
  }
}

function read(path: string): SnapshotReader["header"] {
  const r = SnapshotReader.open(path);
  try {
    return r.header;
  } finally {
    r.close();
  }
}

function tryRead(path: string): SnapshotReader["header"] | undefined {
  try {
    return read(path);
  } catch {
    return undefined;
  }
}

export function statusLines(s: VaultStatus, now = Date.now()): string[] {
  const ago = (iso: string | undefined): string => {
    const t = iso ? Date.parse(iso) : NaN;
    return Number.isFinite(t) ? relativeTime(t, now) : "at an unknown time";
  };
  const q = s.queue;
  const parts = [
    q.waiting > 0 && `${plural(q.waiting, "conversation")} to become cards`,
    q.imported > 0 && `${plural(q.imported, "session")} imported from before the install`,
    q.held > 0 && `${plural(q.held, "conversation")} held for your review in the queue sidebar`,
  ].filter(Boolean);
  const d = s.digest;
  const digest = !d?.finishedAt
    ? "has not run yet"
    : d.ok
      ? `ran ${ago(d.finishedAt)}: ${d.created ?? 0} created, ${d.extended ?? 0} extended, ${d.skipped ?? 0} skipped${d.failed ? `, ${d.failed} could not be filed` : ""}`
      : `failed ${ago(d.finishedAt)}${d.error ? `: ${escapeControl(d.error.slice(0, 200))}` : ""}`;
  const last = s.sync.last;
  const sync = !s.sync.enabled
    ? "off on this computer"
    : !last
      ? "on; has not run yet"
      : last.ok
        ? `on; last synced ${ago(last.finishedAt)}`
        : `on; failed ${ago(last.finishedAt)}${last.error ? `: ${escapeControl(last.error.slice(0, 200))}` : ""}`;
  return [
    `vault:    ${escapeControl(s.vault)}`,
    `cards:    ${"error" in s.snapshot ? s.snapshot.error : `${plural(s.snapshot.cards, "note")} in the snapshot, read from the vault ${ago(s.snapshot.writtenAt)}`}`,
    `queue:    ${parts.length === 0 ? "empty" : `${parts.join("; ")}${q.oldestQueuedAt ? ` (oldest queued ${ago(q.oldestQueuedAt)})` : ""}`}`,
    `digest:   ${digest}`,
    `sync:     ${sync}`,
    `recall:   ${
      s.recall.prompts === 0
        ? "no prompt recalled yet"
        : `${s.recall.resident} of the last ${plural(s.recall.prompts, "prompt")} answered by the resident recall server, the rest by the hook's own process`
    }`,
  ];
}
