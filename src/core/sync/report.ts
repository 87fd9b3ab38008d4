/** What a sync did, in the person's words: the terminal's lines, the night's, and Obsidian's notice. */

import type { SyncReport } from "./sync";

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
