/** `enrich`: writes recall hints for the cards that have none, or whose card changed since; resumable, `--dry-run` writes nothing. */

import { writeSync } from "node:fs";
import { numberFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { configOf } from "../settings";
import { enrichVault } from "../../../src/core/enrich/run";
import { skippedLine } from "../skipped";

export async function enrichCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const config = configOf(args, vault, (p) => writeSync(2, `warning: ${p}\n`));
  const dryRun = args.flags.has("dry-run");
  const r = await enrichVault({ vault, config, dryRun, limit: numberFlag(args, "limit"), onProgress: (l) => writeSync(1, l + "\n") });
  const cards = (n: number): string => `${n} ${n === 1 ? "card" : "cards"}`;
  writeSync(
    1,
    `${dryRun ? "dry run, nothing written: would have enriched" : "enriched"} ${cards(r.written.length)} in ${r.calls} ${r.calls === 1 ? "call" : "calls"}; ` +
      `${r.skipped.length} skipped; ${cards(r.left)} left to enrich\n`,
  );
  for (const s of r.skipped) writeSync(2, skippedLine(s));
  if (!r.ok) writeSync(2, `enrich stopped: ${r.error}\n`);
  return r.ok ? 0 : 1;
}
