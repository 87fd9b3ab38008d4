/**
 * The nightly digest without Obsidian: writes a systemd user timer, a launchd agent or a Task
 * Scheduler task that runs the installed bridge's `digest --if-due`, or gives the crontab line;
 * removes and reports on it.
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
import {
  schtasksFields,
  windowsCommandText,
  windowsFileBytes,
  windowsLauncher,
  windowsPathPrefix,
  windowsTaskPlace,
  windowsTaskXml,
  windowsUser,
  windowsWithin,
} from "./schedule-windows";
import { homeDir } from "../io/home";

export interface UnitFile {
  path: string;
  /** The text, as shown; written as it is unless `data` is given. */
  text: string;
  /** The bytes written, when they are not the text in UTF-8 (Windows' files: CRLF, the task in UTF-16). */
  data?: Uint8Array;
  /** How the file is written, when that is worth saying. */
  about?: string;
  /** What is at the path now: nothing, the same bytes, or others (replaced, the old file moved aside). */
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
  /** Where a replaced file is moved (Windows: its data folder's `removed\`); removedDir otherwise. */
  removed?: string;
}

/** This machine's scheduler: launchd on macOS, Task Scheduler on Windows, systemd where `systemctl` is on PATH, else cron. */
export function detectPlatform(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SchedulePlatform {
  if (platform === "darwin") return "macos";
  if (platform === "win32") return "windows";
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
  if (platform === "windows") return windowsPathPrefix(found);
  const system = platform === "macos" ? ["/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin"] : ["/usr/local/bin", "/usr/bin", "/bin"];
  const dirs = [...found.filter((f): f is string => !!f).map((f) => dirname(f)), ...system];
  return [...new Set(dirs.filter((d) => PLAIN_DIR.test(d) && !d.includes(":")))].join(":");
}

function unitFile(path: string, text: string, data?: Uint8Array, about?: string): UnitFile {
  let now: UnitFile["now"] = "missing";
  if (existsSync(path)) now = readFileSync(path).equals(data ?? Buffer.from(text)) ? "same" : "other";
  return { path, text, now, ...(data ? { data } : {}), ...(about ? { about } : {}) };
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
  const windows = platform === "windows";
  const found = llm
    ? `The digest will find its LLM program at ${llm} (its folder is ${windows ? "put first on the task's PATH" : "on the unit's PATH, which a scheduler does not give"}).`
    : `The LLM program (claude) was not found from here: the digest will look on ${windows ? "the task's PATH" : "the login shell's PATH"} when it runs; set its absolute path in the digest settings if that fails.`;
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
  if (platform === "windows") return windowsPlan(target, found, env, home);
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

/**
 * Task Scheduler's task: the launcher and the task definition in the data folder's `schedule\`,
 * then `schtasks /Create /XML … /F`, which registers the task or replaces the one of that name.
 */
function windowsPlan(target: ScheduleTarget, found: string, env: NodeJS.ProcessEnv, home: string): SchedulePlan {
  const place = windowsTaskPlace(target.name, env, home);
  // Never where whoever can write the vault could change what runs every night.
  if (windowsWithin(place.dir, target.vault)) throw new Error(`${place.dir} is inside the vault ${target.vault}; the schedule's files cannot go there`);
  const user = target.user ?? windowsUser(env, "");
  if (!user) throw new Error("the Windows account to run the task as is not known (USERNAME is not set)");
  const launcher = windowsLauncher(target);
  const task = windowsTaskXml(target, place, user);
  const files = [
    unitFile(place.launcher, launcher, windowsFileBytes(launcher, "ascii")),
    unitFile(place.xml, task, windowsFileBytes(task, "utf16le"), "UTF-16 LE with a byte-order mark, as schtasks /XML reads it"),
  ];
  return {
    platform: "windows",
    target,
    files,
    commands: [["schtasks", "/Create", "/TN", target.name, "/XML", place.xml, "/F"]],
    removed: place.removed,
    notes: [
      "The task runs as you, only while you are logged on (no password is stored), through wscript.exe so that no console window opens. A night missed while the computer was off, asleep or you were logged off runs as soon as it can (StartWhenAvailable), and two minutes after you log on.",
      found,
    ],
  };
}

/** A command as the person would type it: for a POSIX shell, or for cmd and PowerShell on Windows. */
export function commandLine(words: readonly string[], platform?: SchedulePlatform): string {
  if (platform === "windows") return windowsCommandText(words);
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");
}

export interface CommandRun {
  ok: boolean;
  output: string;
}

/** Runs a scheduler's command (systemctl, launchctl), bounded in time; a missing program is a failure, not a throw. */
export function runTool(words: readonly string[], env: NodeJS.ProcessEnv = process.env): CommandRun {
  const r = spawnSync(words[0], words.slice(1), { encoding: "utf8", timeout: 30_000, env, maxBuffer: 1 << 20, windowsHide: true });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
  if (r.error) return { ok: false, output: r.error.message };
  return { ok: r.status === 0, output };
}

/** Where units taken away go: the data folder's `removed/`, never deleted. */
export function removedDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userDataDir(env), "removed");
}

/** Moves `path` into removedDir (or `dir`), under its name and the time: what Vault Memory takes away is never deleted. */
export function moveAside(path: string, env: NodeJS.ProcessEnv = process.env, dir = removedDir(env)): string {
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
    if (f.now === "other") lines.push(`Moved the previous ${basename(f.path)} to ${moveAside(f.path, env, plan.removed)}`);
    writeFileAtomic(f.path, f.data ?? f.text, { mode: 0o644 });
    lines.push(`Wrote ${f.path}`);
  }
  if (plan.files.length > 0 && plan.files.every((f) => f.now === "same")) lines.push(`Already installed as it is: ${plan.files.map((f) => f.path).join(", ")}`);
  for (const [i, words] of plan.commands.entries()) {
    const r = runTool(words, env);
    // launchctl bootout of an agent that is not loaded fails, and that is fine.
    if (r.ok || (words[0] === "launchctl" && words[1] === "bootout")) {
      if (r.ok) lines.push(`Ran ${commandLine(words, plan.platform)}`);
      continue;
    }
    const rest = plan.commands
      .slice(i)
      .map((c) => `  ${commandLine(c, plan.platform)}`)
      .join("\n");
    lines.push(
      `${commandLine(words, plan.platform)} failed: ${r.output.split("\n")[0] || "no output"}\nThe files are in place; to turn the schedule on, run:\n${rest}`,
    );
    return { ok: false, lines };
  }
  return { ok: true, lines };
}

/** The unit files of this vault's schedule that exist, on this platform. */
export function installedUnits(platform: SchedulePlatform, name: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (platform === "cron") return [];
  if (platform === "windows") {
    const place = windowsTaskPlace(name, env, homeDir(env));
    return [place.xml, place.launcher].filter((p) => existsSync(p));
  }
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
  if (platform === "windows") return removeWindowsTask(name, units, dryRun, env);
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

/**
 * Deletes the task and moves its files aside. Only Windows can say whether the task is registered
 * (a definition deleted by hand leaves it so); elsewhere this is a preview of what would be done.
 */
function removeWindowsTask(name: string, units: string[], dryRun: boolean, env: NodeJS.ProcessEnv): { ok: boolean; lines: string[] } {
  const place = windowsTaskPlace(name, env, homeDir(env));
  const del = ["schtasks", "/Delete", "/TN", name, "/F"];
  const registered = process.platform === "win32" ? runTool(["schtasks", "/Query", "/TN", name], env).ok : units.length > 0;
  if (units.length === 0 && !registered) return { ok: true, lines: [`Nothing is scheduled for this vault (no ${name} task, no definition at ${place.xml}).`] };
  if (dryRun)
    return {
      ok: true,
      lines: [...(registered ? [`Would run ${commandLine(del, "windows")}`] : []), ...units.map((u) => `Would move ${u} to ${place.removed}\\`)],
    };
  const lines: string[] = [];
  if (registered) {
    const r = runTool(del, env);
    // The files stay while the task does: it would fail every night on a launcher moved away,
    // and a second remove, finding no files, would leave it registered.
    if (!r.ok) return { ok: false, lines: [`${commandLine(del, "windows")} failed: ${r.output.split("\n")[0] || "no output"}; nothing was moved.`] };
    lines.push(`Ran ${commandLine(del, "windows")}`);
  }
  for (const u of units) lines.push(`Moved ${u} to ${moveAside(u, env, place.removed)}`);
  return { ok: true, lines };
}

/** The crontab line of this vault's schedule, if `crontab -l` shows one. */
export function crontabLine(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!onPath("crontab", env)) return undefined;
  const r = runTool(["crontab", "-l"], env);
  return r.ok ? r.output.split("\n").find((l) => l.trimEnd().endsWith(`# ${name}`)) : undefined;
}

export interface ScheduleState {
  installed: string | undefined;
  time?: string;
  next?: string;
  scheduler?: string;
  /** More lines worth showing (Windows: where the task definition is, how to ask Task Scheduler). */
  more?: string[];
}

/**
 * The task as Task Scheduler sees it (`schtasks /Query /V /FO LIST`), and whether its definition
 * is in the data folder. Off Windows, says what would be asked.
 */
function windowsState(name: string, env: NodeJS.ProcessEnv): ScheduleState {
  const place = windowsTaskPlace(name, env, homeDir(env));
  const query = ["schtasks", "/Query", "/TN", name, "/V", "/FO", "LIST"];
  const defined = existsSync(place.xml);
  let time: string | undefined;
  try {
    time = unitTime(readRegularFile(place.launcher, { maxBytes: 1 << 16 }).toString("latin1"));
  } catch {
    /* no launcher, or unreadable: no time to show */
  }
  const definition = defined ? `its definition is ${place.xml}` : `no task definition at ${place.xml}`;
  if (process.platform !== "win32")
    return {
      installed: defined ? `Task Scheduler task ${name}, ${definition}` : undefined,
      time,
      more: [`On Windows, \`${commandLine(query, "windows")}\` shows the task; ${definition}.`],
    };
  const r = runTool(query, env);
  if (!r.ok)
    return {
      installed: undefined,
      time,
      more: defined
        ? [`Task Scheduler has no task ${name} (${r.output.split("\n")[0] || "no output"}), though ${definition}; \`schedule install --yes\` registers it.`]
        : [],
    };
  const f = schtasksFields(r.output);
  const scheduler = f.status ? `${f.status}${f.lastResult ? `, last result ${f.lastResult}` : ""}${f.lastRun ? `, last run ${f.lastRun}` : ""}` : undefined;
  return {
    installed: `Task Scheduler task ${name}, ${definition}`,
    time,
    next: f.next && !/^N\/A$/i.test(f.next) ? f.next : undefined,
    scheduler,
    more: scheduler ? [] : [`\`${commandLine(query, "windows")}\` shows the task's state.`],
  };
}

/** Whether a schedule is installed, at what time, and the scheduler's next run when it can tell. */
export function scheduleState(platform: SchedulePlatform, name: string, env: NodeJS.ProcessEnv = process.env): ScheduleState {
  if (platform === "windows") return windowsState(name, env);
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
