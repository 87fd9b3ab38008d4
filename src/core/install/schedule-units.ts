/**
 * The text of a nightly digest's schedule for each scheduler: a systemd user service and timer, a
 * launchd agent, a crontab line (Task Scheduler's task: schedule-windows.ts). Pure: where they go
 * and what runs them is schedule.ts.
 */

import { join } from "node:path";
import { TIME_OF_DAY } from "../digest/schedule";

export type SchedulePlatform = "linux" | "macos" | "cron" | "windows";

export interface ScheduleTarget {
  vault: string;
  /** Absolute paths: a scheduler starts the command with no shell and a bare PATH. */
  node: string;
  bridge: string;
  /** HH:MM, local time. */
  time: string;
  /**
   * The PATH the digest runs with: a scheduler's is much shorter than a terminal's, and the
   * digest looks there (then in the login shell's) for claude, which may itself need node. On
   * Windows, the folders put before the PATH Task Scheduler gives, `;`-separated.
   */
  path: string;
  /** vault-memory-digest-<vault id>: the units' names, the launchd label, the crontab line's mark. */
  name: string;
  /** The per-user settings file, when a scheduler would not find it from HOME alone (XDG_CONFIG_HOME, --config). */
  config?: string;
  /** Windows: the account the task runs as, `DOMAIN\name`. */
  user?: string;
}

/** The digest's command line: `--if-due` lets every platform fire it more often than nightly. */
export function digestArgs(t: ScheduleTarget): string[] {
  return [t.node, t.bridge, "digest", "--vault", t.vault, ...(t.config ? ["--config", t.config] : []), "--if-due", t.time];
}

function hhmm(time: string): [number, number] {
  const m = TIME_OF_DAY.exec(time);
  if (!m) throw new Error(`the time must be HH:MM, not "${time}"`);
  return [Number(m[1]), Number(m[2])];
}

const pad = (n: number): string => String(n).padStart(2, "0");

/**
 * One word of a systemd command line or setting: double-quoted, with `\` and `"` escaped, `%`
 * doubled (specifiers) and `$` doubled (variable expansion in ExecStart).
 */
export function systemdWord(word: string): string {
  return `"${word.replace(/[\\"]/g, "\\$&").replace(/%/g, "%%").replace(/\$/g, "$$$$")}"`;
}

/** A line of free text in a unit (Description=): on one line, specifiers escaped. */
function systemdText(text: string): string {
  return text.replace(/[\n\r]/g, " ").replace(/%/g, "%%");
}

export function systemdUnits(t: ScheduleTarget): { service: string; timer: string } {
  const [h, m] = hhmm(t.time);
  const about = `# Written by \`vault-memory schedule install\` for the vault ${systemdText(t.vault)}; \`schedule remove\` takes it away.\n`;
  const service = `${about}[Unit]
Description=${systemdText(`Vault Memory nightly digest for ${t.vault}`)}

[Service]
Type=oneshot
Environment=${systemdWord(`PATH=${t.path}`)}
ExecStart=${digestArgs(t).map(systemdWord).join(" ")}
`;
  // Persistent: a night the computer was off or asleep at the time runs at the next boot or wake.
  const timer = `${about}[Unit]
Description=${systemdText(`Vault Memory nightly digest for ${t.vault}, at ${t.time}`)}

[Timer]
OnCalendar=*-*-* ${pad(h)}:${pad(m)}:00
Persistent=true
Unit=${t.name}.service

[Install]
WantedBy=timers.target
`;
  return { service, timer };
}

function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * A launchd agent. launchd runs a calendar job missed while the Mac slept at the next wake (one
 * run for several missed nights); RunAtLoad runs it at each login too, which catches a night the
 * Mac was off, and `--if-due` makes that run do nothing when no night was missed.
 */
export function launchdPlist(t: ScheduleTarget): string {
  const [h, m] = hhmm(t.time);
  const strings = (words: string[]): string => words.map((w) => `\t\t<string>${xml(w)}</string>`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by vault-memory schedule install for the vault ${xml(t.vault.replace(/--/g, "- -"))}; schedule remove takes it away. -->
<plist version="1.0">
<dict>
\t<key>Label</key>
\t<string>${xml(t.name)}</string>
\t<key>ProgramArguments</key>
\t<array>
${strings(digestArgs(t))}
\t</array>
\t<key>EnvironmentVariables</key>
\t<dict>
\t\t<key>PATH</key>
\t\t<string>${xml(t.path)}</string>
\t</dict>
\t<key>StartCalendarInterval</key>
\t<dict>
\t\t<key>Hour</key>
\t\t<integer>${h}</integer>
\t\t<key>Minute</key>
\t\t<integer>${m}</integer>
\t</dict>
\t<key>RunAtLoad</key>
\t<true/>
\t<key>ProcessType</key>
\t<string>Background</string>
</dict>
</plist>
`;
}

/** One word for the shell cron runs lines with; `%` escaped, which cron would turn into a newline. */
function cronWord(word: string): string {
  const quoted = /^[\w@+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
  return quoted.replace(/%/g, "\\%");
}

/**
 * A crontab line. Cron runs nothing for a night the computer was off, so the line runs every
 * hour at the minute: `--if-due` does the missed night within an hour of the computer being on
 * and ends at once on every other hour, printing nothing (cron mails what a job prints).
 */
export function cronLine(t: ScheduleTarget): string {
  const [, m] = hhmm(t.time);
  return `${m} * * * * PATH=${cronWord(t.path)} ${digestArgs(t).map(cronWord).join(" ")} # ${t.name}`;
}

/** Where each platform keeps its units for the person: systemd's user folder, LaunchAgents. */
export function unitFolder(platform: "linux" | "macos", env: NodeJS.ProcessEnv, home: string): string {
  if (platform === "macos") return join(home, "Library", "LaunchAgents");
  const config = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/") ? env.XDG_CONFIG_HOME : join(home, ".config");
  return join(config, "systemd", "user");
}

/** The time a unit was written for, read back from its digest command line. */
export function unitTime(text: string): string | undefined {
  return /--if-due(?:"|<\/string>)?\s*(?:"|<string>)?(\d{1,2}:\d{2})/.exec(text)?.[1];
}
