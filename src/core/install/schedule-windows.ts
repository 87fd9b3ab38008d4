/**
 * The nightly digest as a Windows Task Scheduler task: the task definition that `schtasks /Create
 * /XML` registers, the launcher the task starts, where both live, and Windows' quoting. Pure, and
 * built with `path.win32` whatever this computer is, so that any computer shows and tests what
 * Windows gets.
 *
 * Why a launcher. A task that runs in the person's session (`InteractiveToken`: no password is
 * stored, so it runs only while they are logged on) and starts node.exe, a console program,
 * opens a console window every night: Windows gives a console program started without one a new
 * console, and `Settings/Hidden` only keeps the task out of Task Scheduler's list, it hides no
 * window ("Hidden (settingsType) Element", learn.microsoft.com). `conhost --headless` does hide
 * it, but it is an undocumented detail of the pseudoconsole that its maintainers ask nobody to
 * depend on (microsoft/terminal#2010; it broke once, #13914, and drops the exit code, #17178), and
 * `powershell -WindowStyle Hidden` hides a window only after it has opened. So the task runs
 * wscript.exe, which opens no console of its own, with a few lines of JScript (not VBScript,
 * which Windows is retiring) that start node hidden through `WshShell.Run(command, 0, true)`
 * (documented: window style 0 hides the window; true waits and returns the exit code, which
 * becomes the task's last result).
 *
 * Why the launcher sets PATH. Task Scheduler has no per-task environment. The task gets the PATH
 * Windows keeps for the account, but not what a terminal added (nvm, fnm, volta, scoop shims),
 * and claude installed by npm is `claude.cmd`, which runs `node` from PATH. The launcher puts the
 * folders where node and the LLM program were found at install before that PATH, through
 * `WshShell.Environment("PROCESS")`, which the node it starts inherits. Running through
 * `cmd /c "set PATH=…&& node …"` would open a console window again, and cmd gives `%`, `^`, `&`
 * and `!` in a vault's path meanings no quoting fully takes away. The digest's `digest.binary`
 * setting still names the LLM program by its absolute path when it is set.
 */

import { win32 } from "node:path";
import { hasControl } from "../text/visible";
import { digestArgs, type ScheduleTarget } from "./schedule-units";

/** Where the task's files go, in the person's own data folder (`%LOCALAPPDATA%\vault-memory`), never the vault. */
export interface WindowsTaskPlace {
  /** `<data folder>\schedule`: the launcher and the task definition, and the task's working directory. */
  dir: string;
  /** The task definition, as registered (Task Scheduler keeps its own copy once it is). */
  xml: string;
  /** The JScript the task starts. */
  launcher: string;
  /** Where a replaced or removed file is moved: the data folder's `removed\`, as on the other platforms. */
  removed: string;
  /** wscript.exe, by its absolute path. */
  wscript: string;
}

// A drive or UNC path: what Windows' own variables hold (a path from anywhere else is not one).
const absolute = (p: string | undefined): p is string => !!p && /^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/][^\\/]+)/.test(p);

/**
 * The data folder as Windows names it: `%LOCALAPPDATA%\vault-memory` (local, not roaming: the
 * task and the bridge it runs belong to this computer), else under the profile folder.
 */
export function windowsDataDir(env: NodeJS.ProcessEnv, home: string): string {
  const local = absolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : win32.join(absolute(env.USERPROFILE) ? env.USERPROFILE : home, "AppData", "Local");
  return win32.join(local, "vault-memory");
}

export function windowsTaskPlace(name: string, env: NodeJS.ProcessEnv, home: string): WindowsTaskPlace {
  const data = windowsDataDir(env, home);
  const dir = win32.join(data, "schedule");
  const root = [env.SystemRoot, env.SYSTEMROOT, env.windir, env.WINDIR].find(absolute) ?? "C:\\Windows";
  return {
    dir,
    xml: win32.join(dir, `${name}.xml`),
    launcher: win32.join(dir, `${name}.js`),
    removed: win32.join(data, "removed"),
    wscript: win32.join(root, "System32", "wscript.exe"),
  };
}

/** Whether `file` is `folder` or inside it, as Windows compares paths (case-insensitively). */
export function windowsWithin(file: string, folder: string): boolean {
  const rel = win32.relative(win32.resolve(folder).toLowerCase(), win32.resolve(file).toLowerCase());
  return rel === "" || (!rel.startsWith("..") && !win32.isAbsolute(rel));
}

/** The account the task runs as and whose logon starts it: `DOMAIN\name` from the session's variables. */
export function windowsUser(env: NodeJS.ProcessEnv, fallback: string): string {
  if (env.USERNAME) return env.USERDOMAIN ? `${env.USERDOMAIN}\\${env.USERNAME}` : env.USERNAME;
  return fallback;
}

/**
 * The PATH folders the launcher puts first: those of the LLM program and node found at install.
 * A folder holding `;` (the separator) or `"` (never in a Windows path) is left out.
 */
export function windowsPathPrefix(found: (string | undefined)[]): string {
  const dirs = new Map<string, string>();
  for (const f of found) {
    if (!f || !win32.isAbsolute(f)) continue;
    const dir = win32.dirname(f);
    if (dir.includes(";") || dir.includes('"') || hasControl(dir)) continue;
    if (!dirs.has(dir.toLowerCase())) dirs.set(dir.toLowerCase(), dir);
  }
  return [...dirs.values()].join(";");
}

/**
 * One argument as `CommandLineToArgvW` (and so node, and the C runtime) reads it back: quoted when
 * empty or holding a blank or a quote (or always, with `force`); backslashes doubled only before
 * a quote, the closing one included, so `C:\` stays `C:\`.
 */
export function windowsArg(arg: string, force = false): string {
  if (!force && arg !== "" && !/[ \t\n\v"]/.test(arg)) return arg;
  let out = '"';
  let slashes = 0;
  for (const ch of arg) {
    if (ch === "\\") {
      slashes++;
      continue;
    }
    out += ch === '"' ? `${"\\".repeat(slashes * 2 + 1)}"` : `${"\\".repeat(slashes)}${ch}`;
    slashes = 0;
  }
  return `${out}${"\\".repeat(slashes * 2)}"`;
}

/** A command line for CreateProcess: each word by windowsArg. */
export function windowsCommandLine(words: readonly string[]): string {
  return words.map((w) => windowsArg(w)).join(" ");
}

/**
 * A command as the person would type it into cmd or PowerShell: like windowsCommandLine, but a
 * word holding anything either shell reads (`&`, `%`, `^`, `;`, parentheses…) is quoted too.
 */
export function windowsCommandText(words: readonly string[]): string {
  return words.map((w) => windowsArg(w, !/^[\p{L}\p{N}_@+=:,./\\-]+$/u.test(w))).join(" ");
}

/** A JScript string literal in ASCII: WSH reads a script file as the ANSI code page unless it is UTF-16. */
export function jscriptString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) out += `\\${text[i]}`;
    else if (c >= 0x20 && c < 0x7f) out += text[i];
    else out += `\\u${c.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

// The variable the launcher hands its command line through (see windowsLauncher).
const COMMAND_VAR = "VAULT_MEMORY_DIGEST";

/**
 * The launcher: sets PATH, runs the digest's command line hidden, waits, and quits with its exit
 * code. `Run` expands `%NAME%` in the command it is given (documented), so the command line goes
 * into a variable of its own and Run is given only `%VAULT_MEMORY_DIGEST%`: expansion is one
 * pass, so a `%` in a path reaches node as written. The file is ASCII, with `\uXXXX` escapes.
 */
export function windowsLauncher(t: ScheduleTarget): string {
  const command = windowsCommandLine(digestArgs(t));
  return [
    "// Written by `vault-memory schedule install`; `vault-memory schedule remove` takes it away.",
    "// Task Scheduler starts this with wscript.exe, which opens no console window. It runs the",
    "// nightly digest hidden (window style 0), waits for it, and quits with its exit code.",
    'var shell = WScript.CreateObject("WScript.Shell");',
    'var env = shell.Environment("PROCESS");',
    ...(t.path
      ? [
          "// The folders of node and of the LLM program found at install, before the PATH Task Scheduler",
          "// gives (the account's, without what a terminal adds).",
          `env("PATH") = ${jscriptString(`${t.path};`)} + env("PATH");`,
        ]
      : []),
    `env("${COMMAND_VAR}") = ${jscriptString(command)};`,
    `WScript.Quit(shell.Run("%${COMMAND_VAR}%", 0, true));`,
    "",
  ].join("\n");
}

/** Text for XML content and attributes. */
function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

// Characters an XML document cannot hold at all, escaped or not: lone surrogates (a Windows file
// name may have one), U+FFFE and U+FFFF. Control characters are refused before (hasControl).
const NOT_XML = /\p{Cs}|[\uFFFE\uFFFF]/u;

/**
 * The task definition, for the Task Scheduler schema (version 1.3: Windows 7 and later). Daily at
 * the time, and two minutes after the person logs on; `StartWhenAvailable` runs a time missed
 * while the computer was off or asleep as soon as it can, and `--if-due` makes every run that
 * finds no missed night end at once, as on the other platforms. `InteractiveToken`: it runs in
 * the person's session while they are logged on, and no password is stored. The triggers leave
 * `Enabled` at its default (true): the published schema wants it before `StartBoundary`, Task
 * Scheduler's own exports and examples write it after, and either order would fail one of them.
 */
export function windowsTaskXml(t: ScheduleTarget, place: WindowsTaskPlace, user: string): string {
  const m = /^(\d{1,2}):(\d{2})$/.exec(t.time);
  if (!m) throw new Error(`the time must be HH:MM, not "${t.time}"`);
  const words = [t.vault, t.node, t.bridge, place.dir, place.launcher, user, ...(t.config ? [t.config] : [])];
  if (words.some((w) => NOT_XML.test(w))) throw new Error("a path holds a character a Task Scheduler task cannot (an unpaired surrogate); rename the folder");
  for (const p of [place.wscript, place.dir])
    if (p.length > 260) throw new Error(`${p} is longer than the 260 characters a task's command and folder may have`);
  const at = `${m[1].padStart(2, "0")}:${m[2]}`;
  return `<?xml version="1.0" encoding="UTF-16"?>
<!-- Written by vault-memory schedule install for the vault ${t.vault.replace(/-(?=-)/g, "- ")}; schedule remove takes it away. -->
<Task version="1.3" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Author>vault-memory schedule install</Author>
    <Description>${xml(`Vault Memory nightly digest for ${t.vault}, at ${at}`)}</Description>
    <URI>\\${xml(t.name)}</URI>
  </RegistrationInfo>
  <Triggers>
    <CalendarTrigger>
      <StartBoundary>2024-01-01T${at}:00</StartBoundary>
      <ScheduleByDay>
        <DaysInterval>1</DaysInterval>
      </ScheduleByDay>
    </CalendarTrigger>
    <LogonTrigger>
      <UserId>${xml(user)}</UserId>
      <Delay>PT2M</Delay>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>${xml(user)}</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>true</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <ExecutionTimeLimit>PT2H</ExecutionTimeLimit>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>${xml(place.wscript)}</Command>
      <Arguments>${xml(windowsCommandLine(["//B", "//NoLogo", "//E:jscript", place.launcher]))}</Arguments>
      <WorkingDirectory>${xml(place.dir)}</WorkingDirectory>
    </Exec>
  </Actions>
</Task>
`;
}

/**
 * A text file as Windows wants it: CRLF line ends; the task definition in UTF-16 LE with a
 * byte-order mark. Microsoft's schtasks page does not say which encodings `/XML` reads, but
 * Task Scheduler exports UTF-16 LE with a BOM, and schtasks refuses UTF-8, with or without a BOM
 * (it reads ANSI and UTF-16 LE: fatso83/vmware-auto-suspend#8).
 */
export function windowsFileBytes(text: string, encoding: "utf16le" | "ascii"): Buffer {
  const crlf = text.replace(/\r?\n/g, "\r\n");
  return encoding === "utf16le" ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(crlf, "utf16le")]) : Buffer.from(crlf, "latin1");
}

/** The fields of `schtasks /Query /V /FO LIST` that status shows, from the first block (English labels; a localized Windows gives none). */
export function schtasksFields(output: string): { next?: string; status?: string; lastRun?: string; lastResult?: string } {
  const field = (label: string): string | undefined => new RegExp(`^${label}:[ \\t]*(.*?)[ \\t]*\\r?$`, "m").exec(output)?.[1] || undefined;
  return { next: field("Next Run Time"), status: field("Status"), lastRun: field("Last Run Time"), lastResult: field("Last Result") };
}
