/** `lint`: the vault's health as a report or JSON; exits 1 when there are errors. */

import { writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { loadConfig } from "../../../src/core/config";
import { formatReport, lintVault } from "../../../src/core/lint/lint";
import { vaultFiles } from "../../../src/core/paths";

export function lintCommand(args: Args): number {
  const vault = vaultFlag(args);
  const problems: string[] = [];
  const config = loadConfig(vaultFiles.config(vault), problems);
  for (const p of problems) writeSync(2, `warning: ${p}; using defaults for it\n`);
  const findings = lintVault(vault, config.lint);
  writeSync(1, args.flags.has("json") ? JSON.stringify(findings, null, 2) + "\n" : formatReport(findings));
  return findings.some((f) => f.severity === "error") ? 1 : 0;
}
