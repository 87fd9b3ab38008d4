/**
 * The nightly digest without Obsidian: writes a systemd user timer or a launchd agent that runs the
 * installed bridge's `digest --if-due`, or gives the crontab line; removes and reports on it.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { basename, delimiter, dirname, join } from "node:path";
import { writeFileAtomic } from "../io/atomic";
import { readRegularFile } from "../io/read-file";
import { lastScheduled } from "../digest/schedule";
import { hasControl } from "../text/visible";
import { userDataDir } from "./install";
import { cronLine, launchdPlist, systemdUnits, unitFolder, unitTime, type SchedulePlatform, type ScheduleTarget } from "./schedule-units";
import { homeDir } from "../io/home";

export interface UnitFile {
  path: string;
  text: string;
  /** What is at the path now: nothing, the same text, or another (replaced, the old one moved aside). */
  now: "missing" | "same" | "other";
}

export interface SchedulePlan {
  platform: SchedulePlatform;
  target: ScheduleTarget;
  files: UnitFile[];
  /** Run after writing, in order; each a command line. */
  commands: string[][];
  /** The crontab line (cron only). */
  cron?: string;
  /** What the person should know: how a missed night is caught up, where claude is found. */
  notes: string[];
}

/** This machine's scheduler: launchd on macOS, systemd where `systemctl` is on PATH, else cron. */
export function detectPlatform(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SchedulePlatform {
  if (platform === "darwin") return "macos";
  if (platform === "linux" && onPath("systemctl", env)) return "linux";
  return "cron";
}

export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

// Folders a PATH written into a unit may hold: systemd, plist and crontab each give other
// characters a meaning, and a folder named with them is not worth the risk.
const PLAIN_DIR = /^\/[\w@+,./ -]*$/;

/**
 * The PATH for the digest: the folders of the LLM binary and of node found now, from the
 * person's terminal (claude installed by npm is a node script), then the system's.
 */
export function schedulePath(found: (string | undefined)[], platform: SchedulePlatform): string {
  const system = platform === "macos" ? ["/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin"] : ["/usr/local/bin", "/usr/bin", "/bin"];
  const dirs = [...found.filter((f): f is string => !!f).map((f) => dirname(f)), ...system];
  return [...new Set(dirs.filter((d) => PLAIN_DIR.test(d) && !d.includes(":")))].join(":");
}

function unitFile(path: string, text: string): UnitFile {
  let now: UnitFile["now"] = "missing";
  if (existsSync(path)) now = readFileSync(path, "utf8") === text ? "same" : "other";
  return { path, text, now };
}

/** The launchd domain of this user's GUI session. */
function guiDomain(): string {
  return `gui/${process.getuid?.() ?? 0}`;
}

/** What `schedule install` writes and runs; writes nothing itself. */
export function planSchedule(platform: SchedulePlatform, target: ScheduleTarget, llm: string | undefined, env: NodeJS.ProcessEnv = process.env): SchedulePlan {
  if ([target.vault, target.node, target.bridge].some(hasControl))
    throw new Error("a path with a control character (a line break, say) cannot go into a scheduler's unit; rename the folder");
  const home = homeDir(env);
  const found = llm
    ? `The digest will find its LLM program at ${llm} (its folder is on the unit's PATH, which a scheduler does not give).`
    : "The LLM program (claude) was not found from here: the digest will look on the login shell's PATH when it runs; set its absolute path in the digest settings if that fails.";
  if (platform === "cron") {
    return {
      platform,
      target,
      files: [],
      commands: [],
      cron: cronLine(target),
      notes: [
        "Cron does nothing for a night the computer was off; so the line runs every hour, and only a missed or due night does any work (the others end at once, printing nothing).",
        "When conversations wait, each Claude Code session starts with a line saying when the digest last ran.",
        found,
      ],
    };
  }
  const dir = unitFolder(platform, env, home);
  if (platform === "linux") {
    const { service, timer } = systemdUnits(target);
    const files = [unitFile(join(dir, `${target.name}.service`), service), unitFile(join(dir, `${target.name}.timer`), timer)];
    const changed = files.some((f) => f.now !== "same");
    return {
      platform,
      target,
      files,
      commands: [
        ...(changed ? [["systemctl", "--user", "daemon-reload"]] : []),
        ["systemctl", "--user", "enable", "--now", `${target.name}.timer`],
        ...(files.some((f) => f.now === "other") ? [["systemctl", "--user", "restart", `${target.name}.timer`]] : []),
      ],
      notes: ["A night missed while the computer was off or asleep runs at the next start (the timer is Persistent).", found],
    };
  }
  const plist = unitFile(join(dir, `${target.name}.plist`), launchdPlist(target));
  return {
    platform,
    target,
    files: [plist],
    // Out first, so a changed agent is loaded anew; a bootout of an agent not loaded only fails.
    commands: [
      ["launchctl", "bootout", `${guiDomain()}/${target.name}`],
      ["launchctl", "bootstrap", guiDomain(), plist.path],
    ],
    notes: [
      "launchd runs a night missed while the Mac slept when it wakes, and the agent runs at each login, doing the night's digest only when one was missed.",
      found,
    ],
  };
}

/** A command as the person would type it. */
export function commandLine(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");
}

export interface CommandRun {
  ok: boolean;
  output: string;
}

/** Runs a scheduler's command (systemctl, launchctl), bounded in time; a missing program is a failure, not a throw. */
export function runTool(words: readonly string[], env: NodeJS.ProcessEnv = process.env): CommandRun {
  const r = spawnSync(words[0], words.slice(1), { encoding: "utf8", timeout: 30_000, env, maxBuffer: 1 << 20 });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
  if (r.error) return { ok: false, output: r.error.message };
  return { ok: r.status === 0, output };
}

/** Where units taken away go: the data folder's `removed/`, never deleted. */
export function removedDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userDataDir(env), "removed");
}

/** Moves `path` into removedDir, under its name and the time: what Vault Memory takes away is never deleted. */
export function moveAside(path: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = removedDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const to = join(dir, `${basename(path)}.${new Date().toISOString().replace(/[:.]/g, "-")}`);
  renameSync(path, to);
  return to;
}

/**
 * Writes the plan's files (atomically, mode 644: the scheduler reads them as the person), moving a
 * replaced one aside first, then runs its commands. Returns what was done, line by line, and
 * whether every command succeeded; a failed command leaves the files written and says how to go on.
 */
export function applySchedule(plan: SchedulePlan, env: NodeJS.ProcessEnv = process.env): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  for (const f of plan.files) {
    if (f.now === "same") continue;
    if (f.now === "other") lines.push(`Moved the previous ${basename(f.path)} to ${moveAside(f.path, env)}`);
    writeFileAtomic(f.path, f.text, { mode: 0o644 });
    lines.push(`Wrote ${f.path}`);
  }
  if (plan.files.length > 0 && plan.files.every((f) => f.now === "same")) lines.push(`Already installed as it is: ${plan.files.map((f) => f.path).join(", ")}`);
  for (const [i, words] of plan.commands.entries()) {
    const r = runTool(words, env);
    // launchctl bootout of an agent that is not loaded fails, and that is fine.
    if (r.ok || (words[0] === "launchctl" && words[1] === "bootout")) {
      if (r.ok) lines.push(`Ran ${commandLine(words)}`);
      continue;
    }
    const rest = plan.commands
      .slice(i)
      .map((c) => `  ${commandLine(c)}`)
      .join("\n");
    lines.push(`${commandLine(words)} failed: ${r.output.split("\n")[0] || "no output"}\nThe files are in place; to turn the schedule on, run:\n${rest}`);
    return { ok: false, lines };
  }
  return { ok: true, lines };
}

/** The unit files of this vault's schedule that exist, on this platform. */
export function installedUnits(platform: SchedulePlatform, name: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (platform === "cron") return [];
  const dir = unitFolder(platform, env, homeDir(env));
  const names = platform === "linux" ? [`${name}.timer`, `${name}.service`] : [`${name}.plist`];
  return names.map((n) => join(dir, n)).filter((p) => existsSync(p));
}

/** Disables the schedule and moves its units aside; for cron, says which line to delete. */
export function removeSchedule(
  platform: SchedulePlatform,
  name: string,
  dryRun: boolean,
  env: NodeJS.ProcessEnv = process.env,
): { ok: boolean; lines: string[] } {
  if (platform === "cron") return { ok: true, lines: [`Cron is yours to edit: run \`crontab -e\` and delete the line that ends in "# ${name}".`] };
  const units = installedUnits(platform, name, env);
  if (units.length === 0) return { ok: true, lines: [`Nothing is scheduled for this vault (no ${name} unit).`] };
  const before = platform === "linux" ? [["systemctl", "--user", "disable", "--now", `${name}.timer`]] : [["launchctl", "bootout", `${guiDomain()}/${name}`]];
  const after = platform === "linux" ? [["systemctl", "--user", "daemon-reload"]] : [];
  if (dryRun)
    return {
      ok: true,
      lines: [
        ...before.map((c) => `Would run ${commandLine(c)}`),
        ...units.map((u) => `Would move ${u} to ${removedDir(env)}/`),
        ...after.map((c) => `Would run ${commandLine(c)}`),
      ],
    };
  const lines: string[] = [];
  let ok = true;
  for (const words of before) {
    const r = runTool(words, env);
    // The files go aside either way: a unit the scheduler no longer finds does not run.
    if (r.ok) lines.push(`Ran ${commandLine(words)}`);
    else if (platform === "linux") {
      ok = false;
      lines.push(`${commandLine(words)} failed: ${r.output.split("\n")[0] || "no output"}`);
    }
  }
  for (const u of units) lines.push(`Moved ${u} to ${moveAside(u, env)}`);
  for (const words of after) {
    const r = runTool(words, env);
    lines.push(r.ok ? `Ran ${commandLine(words)}` : `${commandLine(words)} failed: ${r.output.split("\n")[0] || "no output"}`);
    ok &&= r.ok;
  }
  return { ok, lines };
}

/** The crontab line of this vault's schedule, if `crontab -l` shows one. */
export function crontabLine(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!onPath("crontab", env)) return undefined;
  const r = runTool(["crontab", "-l"], env);
  return r.ok ? r.output.split("\n").find((l) => l.trimEnd().endsWith(`# ${name}`)) : undefined;
}

/** Whether a schedule is installed, at what time, and the scheduler's next run when it can tell. */
export function scheduleState(
  platform: SchedulePlatform,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): { installed: string | undefined; time?: string; next?: string; scheduler?: string } {
  if (platform === "cron") {
    const line = crontabLine(name, env);
    return { installed: line ? `crontab line "${line}"` : undefined, time: line ? unitTime(line) : undefined };
  }
  const units = installedUnits(platform, name, env);
  if (units.length === 0) return { installed: undefined };
  let time: string | undefined;
  for (const unit of units) {
    try {
      time ??= unitTime(readRegularFile(unit, { maxBytes: 1 << 16 }).toString("utf8"));
    } catch {
      /* unreadable: no time to show */
    }
  }
  if (platform === "linux") {
    const r = runTool(["systemctl", "--user", "show", `${name}.timer`, "--property=ActiveState,UnitFileState,NextElapseUSecRealtime,LastTriggerUSec"], env);
    const props = Object.fromEntries(r.output.split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    const next = props.NextElapseUSecRealtime && props.NextElapseUSecRealtime !== "n/a" ? props.NextElapseUSecRealtime : undefined;
    return {
      installed: `systemd user timer ${units.join(", ")}`,
      time,
      next,
      scheduler: r.ok ? `timer ${props.ActiveState ?? "?"}, ${props.UnitFileState ?? "?"}` : `systemctl could not tell: ${r.output.split("\n")[0]}`,
    };
  }
  const r = runTool(["launchctl", "print", `${guiDomain()}/${name}`], env);
  const exit = /last exit code = (.*)/.exec(r.output)?.[1];
  return {
    installed: `launchd agent ${units[0]}`,
    time,
    scheduler: r.ok ? `loaded${exit ? `, last exit code ${exit}` : ""}` : "not loaded (log in again, or run schedule install)",
  };
}

/** The next moment at HH:MM after `now`, for schedulers that cannot say. */
export function nextAt(now: Date, time: string): Date {
  const at = lastScheduled(now, time);
  at.setDate(at.getDate() + 1);
  return at;
}
