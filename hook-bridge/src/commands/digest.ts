/** `digest`: the nightly digest for cron users; `--dry-run` shows the planned actions and writes nothing. */

import { existsSync, realpathSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { numberFlag, stringFlag, type Args } from "../args";
import { UsageError, vaultFlag } from "../vault";
import { listPending } from "../../../src/core/queue/queue-store";
import { loadSettings } from "../settings";
import { ignoredMessage } from "../../../src/core/config";
import { DIGEST_CHILD_PROTOCOL, type DigestChildLine } from "../../../src/core/digest/child";
import { runDigest } from "../../../src/core/digest/run";
import { syncWith } from "./sync";
import { reportLines } from "../../../src/core/sync/report";
import { TIME_OF_DAY, nightDue } from "../../../src/core/digest/schedule";
import type { SendMail } from "../../../src/core/digest/mail";
import { MAIL_FILE } from "../../../src/core/install/hook-commands";
import { SMTP_PASSWORD_ENV } from "../../../src/core/machine-config";

export async function digestCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  // A system timer's run (see `schedule`): only when tonight's run at that time has not happened
  // yet, here or in Obsidian, and something waits; otherwise it ends at once and says nothing, as
  // Obsidian's own schedule does, so a timer may fire at every login and hourly from cron.
  const ifDue = stringFlag(args, "if-due");
  if (ifDue !== undefined) {
    if (!TIME_OF_DAY.test(ifDue)) throw new UsageError(`--if-due takes a time of day as HH:MM, not "${ifDue}"`);
    if (!nightDue(vault, ifDue, new Date()) || listPending(vault).length === 0) return 0;
  }
  // Obsidian runs the digest here, out of its window, and hands over the settings it has now
  // (they may be newer than the copy in config.json); every line out is then one JSON object.
  const json = args.flags.has("json");
  const say = (line: DigestChildLine): void => void writeSync(1, JSON.stringify(line) + "\n");
  const loaded = loadSettings(vault, args, (p) => (json ? say({ warning: p }) : writeSync(2, `warning: ${p}\n`)));
  const config = loaded.config;
  const dryRun = args.flags.has("dry-run");
  const only = stringFlag(args, "only")
    ?.split(",")
    .filter((id) => id !== "");
  if (only) {
    // An id that is not waiting is a typo or an old id: running on the rest would say nothing of it.
    const waiting = new Set(listPending(vault).map((e) => e.sessionId));
    const unknown = only.filter((id) => !waiting.has(id));
    if (only.length === 0 || unknown.length > 0)
      throw new UsageError(
        `--only: ${only.length === 0 ? "no id given" : `no conversation waits in the queue as ${unknown.join(", ")}`} (${waiting.size === 0 ? "the queue is empty" : `waiting: ${[...waiting].slice(0, 10).join(", ")}${waiting.size > 10 ? ", …" : ""}`})`,
      );
  }
  // The SMTP password is for the mail alone: no program the night runs (the LLM, the report
  // command, git) inherits it.
  const envPassword = process.env[SMTP_PASSWORD_ENV];
  delete process.env[SMTP_PASSWORD_ENV];
  // A scheduler stopping the run (SIGTERM), Obsidian closing, or Ctrl-C stops the model call under
  // way and what it started, and the night still ends with its report: killed outright, the
  // digest would leave `claude -p` running on and the night unreported.
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  const progress = (l: string): void => (json ? say({ progress: l }) : void writeSync(1, l + "\n"));
  // With sync on for this computer, the night starts from the other computers' cards and ends by
  // sending its own; a sync that fails is said, and the night's work, which is local, goes on.
  const synced = (when: string): void => {
    if (!config.sync.enabled || dryRun || stop.signal.aborted) return;
    const r = syncWith(vault, config, stringFlag(args, "config"), progress);
    for (const line of reportLines(r)) progress(`sync ${when}: ${line}`);
    if (!r.ok) progress(`warning: sync ${when}: ${r.error ?? "failed"}`);
  };
  let report;
  try {
    synced("before the night");
    report = await runDigest({
      vault,
      config,
      dryRun,
      sessionIds: only,
      limit: numberFlag(args, "limit"),
      settingsNotice: ignoredMessage(vault, loaded),
      onProgress: progress,
      signal: stop.signal,
      mail: { load: loadMailer, userFile: loaded.userFile, envPassword },
    });
    synced("after the night");
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
  if (json) {
    say({ protocol: DIGEST_CHILD_PROTOCOL, report });
    return report.ok ? 0 : 1;
  }
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
    `${dryRun ? `dry run, nothing written: would create ${created}, extend ${extended}, skip ${skipped}` : `created ${created}, extended ${extended}, skipped ${skipped}`}, failed ${report.failures.length}; ${report.left} left in the queue` +
      (report.reportPath ? `; report: ${report.reportPath}` : "") +
      "\n",
  );
  for (const f of report.failures) writeSync(2, `failed ${f.sessionId}: ${f.reason}\n`);
  if (report.notify) writeSync(2, `warning: ${report.notify}\n`);
  if (!report.ok) writeSync(2, `digest stopped: ${(report.error ?? "").replace(/^stopped: /, "")}\n`);
  // A conversation that could not be filed is news for whoever reads a scheduler's mail: the run
  // that left one in the queue does not exit as if all went well.
  return report.ok && report.failures.length === 0 ? 0 : 1;
}

/**
 * The mail sender, from its own bundle beside this one (nodemailer stays out of the file every
 * Stop and SessionStart hook loads); required only when a night's report is mailed. CommonJS, as
 * the MCP server is: this code may run compiled from a string, where import() is not available.
 */
function loadMailer(): SendMail {
  // This file is the commands bundle; run from source (tests), the bridge is the running entry.
  const here =
    typeof __filename === "string" && __filename.endsWith(".cjs") ? dirname(__filename) : process.argv[1] ? dirname(realpathSync(process.argv[1])) : "";
  const bundle = join(here, MAIL_FILE);
  if (!here || !existsSync(bundle)) throw new Error(`${bundle} is missing; it is built beside this bridge by \`npm run build\``);
  return (createRequire(bundle)(bundle) as { sendMail: SendMail }).sendMail;
}
