/** `schedule install|remove|status`: the nightly digest from this computer's scheduler, without Obsidian. */

import { writeSync } from "node:fs";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import { stringFlag, type Args } from "../args";
import { configOf } from "../settings";
import { UsageError, vaultFlag } from "../vault";
import { selfPath } from "./install";
import { resolveBinary } from "../../../src/core/llm/llm";
import { TIME_OF_DAY, scheduledSince } from "../../../src/core/digest/schedule";
import { readDigestStatus } from "../../../src/core/digest/status";
import { escapeControl } from "../../../src/core/text/visible";
import { BRIDGE_FILE } from "../../../src/core/install/hook-commands";
import { userConfigPath, userFileOf } from "../../../src/core/machine-config";
import { bridgeHome, bridgeIsCurrent, readBridge, vaultId, writeBridge } from "../../../src/core/install/install";
import {
  applySchedule,
  commandLine,
  detectPlatform,
  nextAt,
  planSchedule,
  removeSchedule,
  scheduleState,
  schedulePath,
  type SchedulePlan,
} from "../../../src/core/install/schedule";
import type { SchedulePlatform } from "../../../src/core/install/schedule-units";
import { windowsUser } from "../../../src/core/install/schedule-windows";

const PLATFORMS: readonly SchedulePlatform[] = ["linux", "macos", "windows", "cron"];
const KIND: Record<SchedulePlatform, string> = {
  linux: "a systemd user timer",
  macos: "a launchd agent",
  windows: "a Task Scheduler task",
  cron: "a crontab line",
};

export function scheduleCommand(args: Args): number {
  const vault = vaultFlag(args);
  const detected = detectPlatform();
  const asked = stringFlag(args, "platform");
  if (asked !== undefined && !PLATFORMS.includes(asked as SchedulePlatform)) throw new UsageError(`--platform takes ${PLATFORMS.join(", ")}, not "${asked}"`);
  const platform = (asked ?? detected) as SchedulePlatform;
  const dryRun = args.flags.has("dry-run") || !args.flags.has("yes");
  // Another platform's units can be shown, not installed: their tools are not here. Cron's line
  // is only printed, so it may be chosen anywhere.
  if (platform !== detected && platform !== "cron" && !args.flags.has("dry-run") && args.sub !== "status") {
    throw new UsageError(`--platform ${platform} only with --dry-run: this computer schedules with ${KIND[detected]}`);
  }
  const name = `vault-memory-digest-${vaultId(vault)}`;
  if (args.sub === "install") return install(args, vault, platform, name, dryRun);
  if (args.sub === "remove") {
    const r = removeSchedule(platform, name, dryRun);
    writeSync(
      1,
      `${r.lines.join("\n")}\n${dryRun && platform !== "cron" && r.lines.some((l) => l.startsWith("Would")) ? "Nothing was changed. Run again with --yes to remove it.\n" : ""}`,
    );
    return r.ok ? 0 : 1;
  }
  if (args.sub === "status") return status(vault, platform, name);
  throw new UsageError("schedule needs one of install, remove, status");
}

function install(args: Args, vault: string, platform: SchedulePlatform, name: string, dryRun: boolean): number {
  if (stringFlag(args, "config") === "-") throw new UsageError("--config - is for Obsidian's digest; give schedule the settings file's path");
  const config = configOf(args, vault, (p) => writeSync(2, `warning: ${p}\n`));
  // A scheduler gives the digest HOME and little else (Task Scheduler: the account's own
  // variables, APPDATA among them): a settings file it would not find from there (XDG_CONFIG_HOME
  // set here, or --config) is named on the digest's command line.
  const userFile = resolve(userFileOf(stringFlag(args, "config")));
  const { HOME, APPDATA } = process.env;
  const found = userFile === userConfigPath(platform === "windows" ? { HOME, APPDATA } : { HOME }) ? undefined : userFile;
  const time = normalTime(stringFlag(args, "at") ?? config.digest.time);
  const home = bridgeHome(vault);
  const source = readBridge(selfPath());
  const copy = !bridgeIsCurrent(home, source);
  const node = resolveBinary("node") ?? process.execPath;
  const llm = resolveBinary(config.digest.binary || config.digest.command[0] || "claude");
  const target = {
    vault,
    node,
    bridge: join(home, BRIDGE_FILE),
    time,
    path: schedulePath([llm, node], platform),
    name,
    ...(found ? { config: found } : {}),
    ...(platform === "windows" ? { user: windowsUser(process.env, userInfo().username) } : {}),
  };
  const plan = planSchedule(platform, target, llm);
  writeSync(1, describe(plan, copy));
  if (dryRun) {
    writeSync(1, args.flags.has("dry-run") ? "\nDry run: nothing was written.\n" : "\nNothing was written. Run again with --yes to install it.\n");
    return 0;
  }
  // The bridge the units run, before the units: a timer must never start a file not there yet.
  if (copy) writeSync(1, `\nCopied the bridge to ${writeBridge(home, source)}\n`);
  // Scheduling starts now: a timer that fires at once (a launchd agent at load) finds no missed night.
  scheduledSince(vault, new Date());
  if (plan.cron) {
    writeSync(1, `\nAdd the line above with \`crontab -e\`; nothing else was changed.\n`);
    return 0;
  }
  const r = applySchedule(plan);
  writeSync(r.ok ? 1 : 2, `\n${r.lines.join("\n")}\n`);
  return r.ok ? 0 : 1;
}

/** HH:MM with two-digit hours, as the units and `--if-due` hold it. */
function normalTime(time: string): string {
  const m = TIME_OF_DAY.exec(time.trim());
  if (!m) throw new UsageError(`--at takes a time of day as HH:MM, not "${time}"`);
  return `${m[1].padStart(2, "0")}:${m[2]}`;
}

function describe(plan: SchedulePlan, copy: boolean): string {
  const t = plan.target;
  const out = [`The nightly digest for ${t.vault} at ${t.time}, as ${KIND[plan.platform]}.`];
  if (copy) out.push(`It runs the bridge copied to ${t.bridge} (copied at install).`);
  for (const f of plan.files)
    out.push(
      "",
      `--- ${f.path} (${f.now === "missing" ? "new" : f.now === "same" ? "unchanged" : "replaces the one there, which is moved aside"}${f.about ? `; ${f.about}` : ""})`,
      f.text.trimEnd(),
    );
  if (plan.cron) out.push("", "Cron is yours to edit: add this line with `crontab -e`:", `  ${plan.cron}`);
  if (plan.commands.length > 0) out.push("", "Then runs:", ...plan.commands.map((c) => `  ${commandLine(c, plan.platform)}`));
  out.push("", ...plan.notes);
  return out.join("\n") + "\n";
}

function status(vault: string, platform: SchedulePlatform, name: string): number {
  const state = scheduleState(platform, name);
  const missing =
    platform === "cron"
      ? "No crontab line for this vault (`crontab -l`); `schedule install` shows the line to add."
      : `Not scheduled with ${KIND[platform]} on this computer; \`schedule install\` does it.`;
  const lines = [
    state.installed ? `Scheduled: ${state.installed}${state.time ? `, at ${state.time}` : ""}${state.scheduler ? ` (${state.scheduler})` : ""}.` : missing,
    ...(state.more ?? []),
  ];
  const s = readDigestStatus(vault);
  if (!s?.startedAt) lines.push("Last run: none yet.");
  else {
    const counts = `created ${s.created ?? 0}, extended ${s.extended ?? 0}, skipped ${s.skipped ?? 0}, failed ${s.failed ?? 0}; ${s.left ?? "?"} left in the queue`;
    lines.push(
      `Last run: started ${s.startedAt}${s.finishedAt ? `, finished ${s.finishedAt}` : ", not finished"}: ${s.ok ? `ok, ${counts}` : `stopped: ${escapeControl(s.error ?? "no reason recorded")} (${counts})`}.`,
    );
    // The report command's failure, or a mail that did not go.
    if (typeof s.notify === "string") lines.push(`Not delivered: ${escapeControl(s.notify)}.`);
  }
  if (state.installed)
    lines.push(`Next run: ${state.next ?? (state.time ? `${nextAt(new Date(), state.time).toString()} (from the unit's time)` : "unknown")}.`);
  writeSync(1, lines.join("\n") + "\n");
  return 0;
}
