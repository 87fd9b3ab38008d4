import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve, win32 } from "node:path";
import { describe, expect, it } from "vitest";
import { userDataDir } from "../../../src/core/install/install";
import { commandLine, planSchedule, schedulePath } from "../../../src/core/install/schedule";
import { digestArgs, unitTime, type ScheduleTarget } from "../../../src/core/install/schedule-units";
import {
  jscriptString,
  schtasksFields,
  windowsArg,
  windowsCommandLine,
  windowsCommandText,
  windowsDataDir,
  windowsFileBytes,
  windowsLauncher,
  windowsPathPrefix,
  windowsTaskPlace,
  windowsTaskXml,
  windowsUser,
  windowsWithin,
} from "../../../src/core/install/schedule-windows";
import { tempDir } from "../../helpers";

/**
 * The words `CommandLineToArgvW` reads from a command line, as its documentation and the C
 * runtime's ("Parsing C command-line arguments") give the rules: the program name runs to the
 * next quote when it opens with one, else to the first blank; after it, blanks separate words
 * outside quotes, 2n backslashes and a quote give n backslashes and toggle quoting, 2n+1 give n
 * and a literal quote, and other backslashes are themselves.
 */
function argv(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  if (line.startsWith('"')) {
    const end = line.indexOf('"', 1);
    words.push(line.slice(1, end));
    i = end + 1;
  } else {
    const end = line.search(/[ \t]|$/);
    words.push(line.slice(0, end));
    i = end;
  }
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    if (i >= line.length) return words;
    let word = "";
    let quoted = false;
    while (i < line.length && (quoted || (line[i] !== " " && line[i] !== "\t"))) {
      let slashes = 0;
      while (line[i] === "\\") {
        slashes++;
        i++;
      }
      if (line[i] === '"') {
        word += "\\".repeat(Math.floor(slashes / 2));
        if (slashes % 2 === 1) word += '"';
        else quoted = !quoted;
        i++;
      } else {
        word += "\\".repeat(slashes);
        if (i < line.length && (quoted || (line[i] !== " " && line[i] !== "\t"))) word += line[i++];
      }
    }
    words.push(word);
  }
}

const env = {
  LOCALAPPDATA: "C:\\Users\\Zoë O'Brien\\AppData\\Local",
  USERPROFILE: "C:\\Users\\Zoë O'Brien",
  SystemRoot: "C:\\WINDOWS",
  USERDOMAIN: "DESKTOP-7Q2",
  USERNAME: "Zoë O'Brien",
};
const home = "C:\\Users\\Zoë O'Brien";
// A vault path with everything XML, cmd, CommandLineToArgvW, WSH's Run and JScript give a meaning to.
const hostile = `D:\\Notes & "Ideas"\\<R&D> 100% %PATH% ^caret! 'single' -- 笔记 café 🗂`;

function target(over: Partial<ScheduleTarget> = {}): ScheduleTarget {
  return {
    vault: "C:\\Users\\Zoë O'Brien\\Documents\\My Vault",
    node: "C:\\Program Files\\nodejs\\node.exe",
    bridge: "C:\\Users\\Zoë O'Brien\\AppData\\Local\\vault-memory\\bridges\\My_Vault-0000abcd\\vault-memory.cjs",
    time: "03:30",
    path: "C:\\Users\\Zoë O'Brien\\AppData\\Roaming\\npm;C:\\Program Files\\nodejs",
    name: "vault-memory-digest-0000abcd",
    user: "DESKTOP-7Q2\\Zoë O'Brien",
    ...over,
  };
}

const place = windowsTaskPlace("vault-memory-digest-0000abcd", env, home);

/** The string literals of the launcher, read back: its escapes are JSON's. */
function literals(launcher: string): string[] {
  return [...launcher.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => JSON.parse(m[0]) as string);
}

describe("Windows quoting", () => {
  it.each([
    ["plain", "plain"],
    ["", '""'],
    ["C:\\Program Files\\nodejs\\node.exe", '"C:\\Program Files\\nodejs\\node.exe"'],
    ["C:\\", "C:\\"],
    ["C:\\My Vault\\", '"C:\\My Vault\\\\"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['a\\"b', '"a\\\\\\"b"'],
    ["tab\there", '"tab\there"'],
  ])("quotes %j as CommandLineToArgvW reads it back", (word, quoted) => {
    expect(windowsArg(word)).toBe(quoted);
    expect(argv(`x.exe ${windowsArg(word)}`)).toEqual(["x.exe", word]);
  });

  it("round-trips any word through CommandLineToArgvW's rules", () => {
    const alphabet = [" ", "\t", '"', "\\", "a", "&", "%", "^", "é", "笔", "🗂"];
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 2000; i++) {
      const words = Array.from({ length: 1 + next(3) }, () => Array.from({ length: next(8) }, () => alphabet[next(alphabet.length)]).join(""));
      expect(argv(`"C:\\Program Files\\nodejs\\node.exe" ${windowsCommandLine(words)}`).slice(1)).toEqual(words);
    }
  });

  it("shows a command for cmd and PowerShell with every word a shell reads quoted", () => {
    expect(windowsCommandText(["schtasks", "/Create", "/TN", "vault-memory-digest-0000abcd", "/XML", "C:\\Users\\A&B\\x.xml", "/F"])).toBe(
      'schtasks /Create /TN vault-memory-digest-0000abcd /XML "C:\\Users\\A&B\\x.xml" /F',
    );
    expect(commandLine(["schtasks", "/Delete", "/TN", "n", "/F"], "windows")).toBe("schtasks /Delete /TN n /F");
    expect(argv(`schtasks ${windowsCommandText(["C:\\100% (x)\\"])}`)).toEqual(["schtasks", "C:\\100% (x)\\"]);
  });

  it("writes JScript string literals in ASCII, every other character escaped", () => {
    const text = `${hostile}\u2028\n\\`;
    const literal = jscriptString(text);
    expect(literal).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(literal)).toBe(text);
  });
});

describe("the Windows task's paths (path.win32, whatever this computer is)", () => {
  it("puts the launcher and the task in the data folder's schedule\\, removed files in its removed\\", () => {
    expect(place).toEqual({
      dir: "C:\\Users\\Zoë O'Brien\\AppData\\Local\\vault-memory\\schedule",
      xml: "C:\\Users\\Zoë O'Brien\\AppData\\Local\\vault-memory\\schedule\\vault-memory-digest-0000abcd.xml",
      launcher: "C:\\Users\\Zoë O'Brien\\AppData\\Local\\vault-memory\\schedule\\vault-memory-digest-0000abcd.js",
      removed: "C:\\Users\\Zoë O'Brien\\AppData\\Local\\vault-memory\\removed",
      wscript: "C:\\WINDOWS\\System32\\wscript.exe",
    });
    for (const p of [place.dir, place.xml, place.launcher, place.removed, place.wscript]) {
      expect(win32.isAbsolute(p)).toBe(true);
      expect(win32.normalize(p)).toBe(p);
    }
    const data = windowsDataDir(env, home);
    for (const p of [place.dir, place.xml, place.launcher, place.removed]) expect(windowsWithin(p, data)).toBe(true);
    // The bridge copy the task runs lives in the same data folder.
    expect(userDataDir(env, "win32")).toBe(data);
  });

  it("falls back on the profile folder, then the home folder, and takes no path that is not Windows'", () => {
    expect(windowsDataDir({ USERPROFILE: "D:\\Profiles\\me" }, home)).toBe("D:\\Profiles\\me\\AppData\\Local\\vault-memory");
    expect(windowsDataDir({ LOCALAPPDATA: "relative\\dir", USERPROFILE: "/home/me" }, "C:\\Users\\me")).toBe("C:\\Users\\me\\AppData\\Local\\vault-memory");
    expect(windowsDataDir({ LOCALAPPDATA: "\\\\server\\share\\me\\Local" }, home)).toBe("\\\\server\\share\\me\\Local\\vault-memory");
    expect(windowsTaskPlace("n", { windir: "E:\\Win" }, home).wscript).toBe("E:\\Win\\System32\\wscript.exe");
    expect(windowsTaskPlace("n", {}, home).wscript).toBe("C:\\Windows\\System32\\wscript.exe");
  });

  it("compares paths as Windows does, so a data folder inside the vault is found whatever its case", () => {
    expect(windowsWithin("C:\\Users\\Me\\Vault\\x\\schedule", "c:\\users\\me\\vault")).toBe(true);
    expect(windowsWithin("C:\\Users\\Me\\Vault2", "C:\\Users\\Me\\Vault")).toBe(false);
    expect(() => planSchedule("windows", target({ vault: "C:\\Users\\Zoë O'Brien\\AppData" }), undefined, { ...env, HOME: tempDir() })).toThrow(
      /vault-memory\\schedule is inside the vault C:\\Users\\Zoë O'Brien\\AppData/,
    );
  });

  it("names the account as DOMAIN\\name, and puts the folders of the LLM program and node first on PATH", () => {
    expect(windowsUser(env, "x")).toBe("DESKTOP-7Q2\\Zoë O'Brien");
    expect(windowsUser({ USERNAME: "me" }, "x")).toBe("me");
    expect(windowsUser({}, "fallback")).toBe("fallback");
    expect(windowsPathPrefix(["C:\\Users\\me\\.local\\bin\\claude.exe", "C:\\Program Files\\nodejs\\node.exe", "c:\\program files\\NODEJS\\npx.cmd"])).toBe(
      "C:\\Users\\me\\.local\\bin;C:\\Program Files\\nodejs",
    );
    expect(windowsPathPrefix(["C:\\a;b\\claude.exe", undefined, "claude.exe"])).toBe("");
    expect(schedulePath(["C:\\tools\\claude.cmd", "C:\\node\\node.exe"], "windows")).toBe("C:\\tools;C:\\node");
  });
});

describe("the launcher", () => {
  it("is ASCII, sets PATH, runs the digest's command line hidden through one variable, and quits with its code", () => {
    const t = target({ vault: hostile, config: "C:\\Users\\Zoë O'Brien\\cfg 100%\\config.json" });
    const text = windowsLauncher(t);
    expect(text).toMatch(/^[\x20-\x7e\n]*$/);
    expect(text).toContain('var shell = WScript.CreateObject("WScript.Shell");\nvar env = shell.Environment("PROCESS");\n');
    expect(text).toContain('env("PATH") = ');
    expect(text.trimEnd().split("\n").pop()).toBe('WScript.Quit(shell.Run("%VAULT_MEMORY_DIGEST%", 0, true));');
    const [shellName, scope, pathName, path, pathAgain, name, command, run] = literals(text);
    expect([shellName, scope, pathName, path, pathAgain, name, run]).toEqual([
      "WScript.Shell",
      "PROCESS",
      "PATH",
      `${t.path};`,
      "PATH",
      "VAULT_MEMORY_DIGEST",
      "%VAULT_MEMORY_DIGEST%",
    ]);
    // What node receives, as CommandLineToArgvW splits what Run starts: the digest's words, exactly.
    expect(argv(command)).toEqual(digestArgs(t));
    expect(argv(command)).toEqual([t.node, t.bridge, "digest", "--vault", hostile, "--config", t.config, "--if-due", "03:30"]);
    expect(unitTime(text)).toBe("03:30");
  });

  it("leaves PATH alone when no folder was found", () => {
    expect(windowsLauncher(target({ path: "" }))).not.toContain('env("PATH")');
  });
});

describe("the task definition", () => {
  const xml = windowsTaskXml(target(), place, "DESKTOP-7Q2\\Zoë O'Brien");
  const tag = (name: string, text = xml): string[] => [...text.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);

  it("runs daily at the time and after logon, in the person's session, catching up, bounded, one at a time", () => {
    expect(xml).toContain("<CalendarTrigger>\n      <StartBoundary>2024-01-01T03:30:00</StartBoundary>");
    expect(xml).toContain("<ScheduleByDay>\n        <DaysInterval>1</DaysInterval>\n      </ScheduleByDay>");
    expect(xml).toContain("<LogonTrigger>\n      <UserId>DESKTOP-7Q2\\Zoë O'Brien</UserId>\n      <Delay>PT2M</Delay>\n    </LogonTrigger>");
    expect(tag("UserId")).toEqual(["DESKTOP-7Q2\\Zoë O'Brien", "DESKTOP-7Q2\\Zoë O'Brien"]);
    expect(tag("LogonType")).toEqual(["InteractiveToken"]);
    expect(tag("RunLevel")).toEqual(["LeastPrivilege"]);
    expect(tag("StartWhenAvailable")).toEqual(["true"]);
    expect(tag("DisallowStartIfOnBatteries")).toEqual(["false"]);
    expect(tag("StopIfGoingOnBatteries")).toEqual(["false"]);
    expect(tag("ExecutionTimeLimit")).toEqual(["PT2H"]);
    expect(tag("MultipleInstancesPolicy")).toEqual(["IgnoreNew"]);
    // Hidden would hide the task from Task Scheduler's list, not a window: the person can see it.
    expect(tag("Hidden")).toEqual(["false"]);
  });

  it("starts wscript.exe by its path on the launcher, in the schedule folder", () => {
    expect(tag("Command")).toEqual(["C:\\WINDOWS\\System32\\wscript.exe"]);
    expect(tag("WorkingDirectory")).toEqual([place.dir]);
    expect(argv(`wscript.exe ${tag("Arguments")[0].replace(/&quot;/g, '"')}`)).toEqual(["wscript.exe", "//B", "//NoLogo", "//E:jscript", place.launcher]);
    expect(xml).toContain('<Actions Context="Author">');
    expect(xml).toContain('<Principal id="Author">');
  });

  it("escapes the vault's path for XML, and keeps a comment a comment", () => {
    const x = windowsTaskXml(target({ vault: hostile }), place, "me");
    expect(tag("Description", x)).toEqual([
      "Vault Memory nightly digest for D:\\Notes &amp; &quot;Ideas&quot;\\&lt;R&amp;D&gt; 100% %PATH% ^caret! 'single' -- 笔记 café 🗂, at 03:30",
    ]);
    const comment = /<!--([\s\S]*?)-->/.exec(x)![1];
    expect(comment).not.toContain("--");
    expect(comment).toContain("- -");
  });

  it("refuses a path that XML cannot hold, and a command longer than Task Scheduler takes", () => {
    expect(() => windowsTaskXml(target({ vault: "C:\\bad\uD800name" }), place, "me")).toThrow(/unpaired surrogate/);
    expect(() => windowsTaskXml(target(), { ...place, dir: `C:\\${"x".repeat(260)}` }, "me")).toThrow(/longer than the 260 characters/);
  });

  it("is written as UTF-16 LE with a byte-order mark and CRLF line ends, as schtasks /XML reads it", () => {
    const bytes = windowsFileBytes(xml, "utf16le");
    expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    const text = bytes.subarray(2).toString("utf16le");
    expect(text.startsWith('<?xml version="1.0" encoding="UTF-16"?>\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    expect(text.replace(/\r\n/g, "\n")).toBe(xml);
    const launcher = windowsFileBytes(windowsLauncher(target()), "ascii");
    expect(launcher.toString("latin1")).toBe(windowsLauncher(target()).replace(/\n/g, "\r\n"));
  });
});

describe("planSchedule for Windows", () => {
  it("writes the launcher, then the task, and registers it with schtasks /Create /XML … /F", () => {
    const plan = planSchedule("windows", target(), "C:\\Users\\me\\.local\\bin\\claude.exe", { ...env, HOME: tempDir() });
    expect(plan.files.map((f) => [f.path, f.now])).toEqual([
      [place.launcher, "missing"],
      [place.xml, "missing"],
    ]);
    expect(plan.files[1].about).toBe("UTF-16 LE with a byte-order mark, as schtasks /XML reads it");
    expect(Buffer.from(plan.files[1].data!)).toEqual(windowsFileBytes(plan.files[1].text, "utf16le"));
    expect(plan.commands).toEqual([["schtasks", "/Create", "/TN", "vault-memory-digest-0000abcd", "/XML", place.xml, "/F"]]);
    expect(plan.removed).toBe(place.removed);
    expect(plan.notes.join("\n")).toContain("no console window opens");
    expect(plan.notes.join("\n")).toContain("C:\\Users\\me\\.local\\bin\\claude.exe");
  });
});

describe("schtasks /Query /V /FO LIST", () => {
  it("gives the next run, the status and the last result of the first block", () => {
    const out = [
      "",
      "Folder: \\",
      "HostName:                             DESKTOP-7Q2",
      "TaskName:                             \\vault-memory-digest-0000abcd",
      "Next Run Time:                        12/3/2026 3:30:00 AM",
      "Status:                               Ready",
      "Logon Mode:                           Interactive only",
      "Last Run Time:                        12/2/2026 3:30:01 AM",
      "Last Result:                          0",
      "",
      "HostName:                             DESKTOP-7Q2",
      "Next Run Time:                        N/A",
    ].join("\r\n");
    expect(schtasksFields(out)).toEqual({ next: "12/3/2026 3:30:00 AM", status: "Ready", lastRun: "12/2/2026 3:30:01 AM", lastResult: "0" });
    expect(schtasksFields("Nächste Laufzeit: 3.12.2026")).toEqual({ next: undefined, status: undefined, lastRun: undefined, lastResult: undefined });
  });
});

const XSD = resolve(__dirname, "../../fixtures/task-scheduler/taskschd.xsd");
const XMLLINT = spawnSync("xmllint", ["--version"]).error ? undefined : "xmllint";
if (!XMLLINT) console.warn("xmllint is not installed (Debian: libxml2-utils): the Task Scheduler schema tests are skipped");

describe.skipIf(!XMLLINT)("the task definition against Microsoft's Task Scheduler schema (xmllint)", () => {
  const lint = (bytes: Uint8Array, ...args: string[]) => {
    const file = join(tempDir(), "task.xml");
    writeFileSync(file, bytes);
    return spawnSync(XMLLINT!, [...args, file], { encoding: "utf8" });
  };

  it.each([
    ["an ordinary vault", target()],
    ["a vault named with &, <, quotes, %, -- and non-ASCII", target({ vault: hostile, config: `${hostile}\\config.json` })],
    ["a midnight schedule and a local account", target({ time: "0:05", user: "me" })],
  ])("validates, as written (UTF-16 LE), for %s", (_, t) => {
    const bytes = windowsFileBytes(windowsTaskXml(t, place, t.user!), "utf16le");
    const r = lint(bytes, "--noout", "--schema", XSD);
    expect([r.status, r.stderr.trim()]).toEqual([0, expect.stringMatching(/ validates$/)]);
    // Read back by an XML parser, the escaped values are the paths as given.
    const value = (name: string): string => lint(bytes, "--xpath", `string(//*[local-name()='${name}'])`).stdout.replace(/\n$/, "");
    expect(value("Description")).toBe(`Vault Memory nightly digest for ${t.vault}, at ${t.time.padStart(5, "0")}`);
    expect(value("WorkingDirectory")).toBe(place.dir);
    expect(argv(`wscript.exe ${value("Arguments")}`).pop()).toBe(place.launcher);
  });

  it("is a real check: the schema refuses a task it does not describe", () => {
    const xml = windowsTaskXml(target(), place, "me");
    for (const broken of [
      xml.replace("InteractiveToken", "Interactive"),
      xml.replace("<DaysInterval>1<", "<DaysInterval>0<"),
      xml.replace('version="1.3"', 'version="1.2"'),
    ]) {
      const r = lint(windowsFileBytes(broken, "utf16le"), "--noout", "--schema", XSD);
      expect(r.status, broken).not.toBe(0);
      expect(r.stderr).toContain("fails to validate");
    }
  });
});
