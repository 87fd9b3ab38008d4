/** `sync`: this computer's changes to the vault's git remote, and the other computers' back. */

import { writeSync } from "node:fs";
import { stringFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { loadSettings } from "../settings";
import { bridgeEntry, freshen } from "../freshen";
import type { VaultMemoryConfig } from "../../../src/core/config";
import { rewriteIndexPages } from "../../../src/core/digest/run";
import { SYNC_CHILD_PROTOCOL, type SyncChildLine } from "../../../src/core/sync/child";
import { reportLines } from "../../../src/core/sync/report";
import { syncVault, type SyncReport } from "../../../src/core/sync/sync";

export function syncCommand(args: Args): number {
  const vault = vaultFlag(args);
  const dryRun = args.flags.has("dry-run");
  // Obsidian runs it with --json: every line out is then one JSON object, progress as it goes, then the report.
  const json = args.flags.has("json");
  const emit = (line: SyncChildLine): void => void writeSync(1, JSON.stringify(line) + "\n");
  const warn = (p: string): void => (json ? emit({ warning: p }) : void writeSync(2, `warning: ${p}\n`));
  const say = (line: string): void => (json ? emit({ progress: line }) : void writeSync(2, `${line}\n`));
  const config = loadSettings(vault, args, warn, false).config;
  const report = syncWith(vault, config, stringFlag(args, "config"), say, { force: args.flags.has("force"), dryRun });
  if (json) {
    emit({ protocol: SYNC_CHILD_PROTOCOL, report });
    return report.ok ? 0 : 1;
  }
  for (const line of reportLines(report, dryRun)) writeSync(1, `${line}\n`);
  if (!report.ok) {
    writeSync(2, `sync stopped: ${report.error ?? "failed"}\n`);
    for (const d of report.refused?.deletions.slice(0, 40) ?? []) writeSync(2, `  would delete ${d}\n`);
    if ((report.refused?.deletions.length ?? 0) > 40) writeSync(2, `  … and ${report.refused!.deletions.length - 40} more\n`);
  }
  return report.ok ? 0 : 1;
}

/**
 * A sync with what comes after a merge: the generated pages written again from the merged cards,
 * and the snapshot brought up to date with the cards that arrived, so the next prompt recalls them.
 */
export function syncWith(
  vault: string,
  config: VaultMemoryConfig,
  configFlag: string | undefined,
  say: (line: string) => void,
  opts: { force?: boolean; dryRun?: boolean } = {},
): SyncReport {
  const report = syncVault({ vault, ...opts, onProgress: say, regenerate: () => rewriteIndexPages(vault, config) });
  if (report.received > 0 && !opts.dryRun) {
    try {
      // Settings handed on stdin (Obsidian's digest) cannot be handed to an index started apart.
      const { notice } = freshen(vault, config, say, bridgeEntry(), configFlag === "-" ? undefined : configFlag);
      if (notice) say(notice);
    } catch (err) {
      say(`the snapshot was not brought up to date: ${err instanceof Error ? err.message : String(err)}; run index`);
    }
  }
  return report;
}
