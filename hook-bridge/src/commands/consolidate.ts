/** `consolidate`: fragment cards on one subject merged into one, with the digest's LLM command (see core/digest/consolidate.ts). */

import { writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { loadSettings } from "../settings";
import { consolidateVault } from "../../../src/core/digest/consolidate-run";

export async function consolidateCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const config = loadSettings(vault, args, (p) => void writeSync(2, `warning: ${p}\n`)).config;
  const dryRun = args.flags.has("dry-run");
  const r = await consolidateVault({ vault, config, dryRun, propose: args.flags.has("propose"), say: (line) => void writeSync(2, `${line}\n`) });
  if ("error" in r) {
    writeSync(2, `consolidate stopped: ${r.error}\n`);
    return 1;
  }
  for (const line of r.lines) writeSync(1, `${line}\n`);
  return 0;
}
