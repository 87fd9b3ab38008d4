/** `lint`: the vault's health as a report or JSON; exits 1 when there are errors. */

import { writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { configOf } from "../settings";
import { formatReport, lintScope, lintVault } from "../../../src/core/lint/lint";
import { readNotesInWorker } from "../lint-reader";
import { skippedLine } from "../skipped";

export function lintCommand(args: Args): number {
  const vault = vaultFlag(args);
  const config = configOf(args, vault, (p) => writeSync(2, `warning: ${p}\n`));
  const findings = lintVault(vault, config.lint, undefined, readNotesInWorker, lintScope(config), (s) => writeSync(2, skippedLine(s)));
  writeSync(1, args.flags.has("json") ? JSON.stringify(findings, null, 2) + "\n" : formatReport(findings));
  return findings.some((f) => f.severity === "error") ? 1 : 0;
}
