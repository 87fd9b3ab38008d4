/** `sync`: this computer's changes to the vault's git remote, and the other computers' back. */

import { writeSync } from "node:fs";
import { stringFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { loadSettings } from "../settings";
import { bridgeEntry, freshen } from "../freshen";
import type { VaultMemoryConfig } from "../../../src/core/config";
import { rewriteIndexPages } from "../../../src/core/digest/run";
import { syncVault, type SyncReport } from "../../../src/core/sync/sync";

export function syncCommand(args: Args): number {
  const vault = vaultFlag(args);
  const dryRun = args.flags.has("dry-run");
  const config = loadSettings(vault, args, (p) => void writeSync(2, `warning: ${p}\n`), false).config;
  const report = syncWith(vault, config, stringFlag(args, "config"), (line) => void writeSync(2, `${line}\n`), { force: args.flags.has("force"), dryRun });
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

/** What a sync did, a line a thing, for the person and the night's report. */
export function reportLines(r: SyncReport, dryRun = false): string[] {
  const out: string[] = [];
  if (r.recovered) out.push("finished a sync that was stopped half-way");
  if (dryRun && r.planned) {
    out.push(`dry run, nothing written: would commit ${r.planned.outgoing.length} ${r.planned.outgoing.length === 1 ? "file" : "files"}`);
    for (const l of r.planned.outgoing.slice(0, 40)) out.push(`  ${l}`);
    out.push(`${r.planned.incoming} ${r.planned.incoming === 1 ? "commit waits" : "commits wait"} on ${r.upstream}`);
    return out;
  }
  if (!r.upstream) return out;
  const parts = [
    r.committed > 0 ? `committed ${r.committed} ${r.committed === 1 ? "file" : "files"}` : "nothing to commit here",
    r.received > 0 ? `merged ${r.received} ${r.received === 1 ? "commit" : "commits"} from ${r.upstream}` : `nothing new on ${r.upstream}`,
    r.pushed ? "pushed" : r.ok ? "nothing to push" : "not pushed",
  ];
  out.push(parts.join("; "));
  for (const p of r.merged) out.push(`merged ${p}: changed on both computers`);
  for (const p of r.kept) out.push(`kept ${p}: deleted on one computer, changed on the other`);
  for (const c of r.conflicts) out.push(`conflict in ${c.path}: kept this computer's version; the other's is ${c.copy}`);
  for (const p of r.skipped) out.push(`not synced: ${p}, a note at the vault's root named like the folder beside it`);
  return out;
}
