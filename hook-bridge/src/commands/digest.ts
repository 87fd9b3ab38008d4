/** `digest`: the nightly digest for cron users; `--dry-run` shows the planned actions and writes nothing. */

import { writeSync } from "node:fs";
import { numberFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { vaultConfig } from "../settings";
import { runDigest } from "../../../src/core/digest/run";

export async function digestCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const config = vaultConfig(vault);
  const dryRun = args.flags.has("dry-run");
  const report = await runDigest({ vault, config, dryRun, limit: numberFlag(args, "limit"), onProgress: (l) => writeSync(1, l + "\n") });
  if (!report.ok && report.results.length === 0 && report.failures.length === 0) {
    // Stopped before the first entry: a summary of zeros ("dry run, nothing written: would have
    // created 0…") would read as if the queue were empty.
    writeSync(2, `digest stopped: ${report.error}; ${report.left} ${report.left === 1 ? "conversation waits" : "conversations wait"} in the queue\n`);
    return 1;
  }
  const created = report.results.filter((r) => r.outcome.action === "created").length;
  const extended = report.results.filter((r) => r.outcome.action === "extended").length;
  const skipped = report.results.filter((r) => r.outcome.action === "skipped").length;
  writeSync(
    1,
    `${dryRun ? "dry run, nothing written: would have " : ""}created ${created}, extended ${extended}, skipped ${skipped}, failed ${report.failures.length}; ${report.left} left in the queue` +
      (report.reportPath ? `; report: ${report.reportPath}` : "") +
      "\n",
  );
  for (const f of report.failures) writeSync(2, `failed ${f.sessionId}: ${f.reason}\n`);
  if (report.notify) writeSync(2, `warning: ${report.notify}\n`);
  if (!report.ok) writeSync(2, `digest stopped: ${report.error}\n`);
  return report.ok ? 0 : 1;
}
