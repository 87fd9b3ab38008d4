import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { vaultId } from "../../src/core/install/install";
import { cronLine, launchdPlist, systemdUnits, systemdWord, unitTime } from "../../src/core/install/schedule-units";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listHandled, listPending } from "../../src/core/queue/queue-store";
import { jsonl, line } from "../fixtures/transcript";
import { BRIDGE, SAMPLE_VAULT, copyVault, tempDir } from "../helpers";

const posix = process.platform !== "win32";

/** A HOME of its own, with XDG folders in it, and a fake systemctl that logs its arguments. */
function machine(opts: { systemctl?: boolean; failEnable?: boolean; configElsewhere?: boolean } = {}) {
  const home = tempDir("vm-home-");
  const bin = join(home, "bin");
  mkdirSync(bin);
  // Node alone on PATH: nothing of this machine's (its own systemctl, say) is found.
  symlinkSync(process.execPath, join(bin, "node"));
  const log = join(home, "systemctl.log");
  if (opts.systemctl !== false) {
    writeFileSync(
      join(bin, "systemctl"),
      `#!/bin/sh
echo "$*" >> "${log}"
case "$*" in
  *show*) printf 'ActiveState=active\\nUnitFileState=enabled\\nNextElapseUSecRealtime=Thu 2026-12-03 03:00:00 UTC\\nLastTriggerUSec=n/a\\n' ;;
  *enable*) ${opts.failEnable ? 'echo "Failed to connect to bus: No medium found" >&2; exit 1' : "exit 0"} ;;
esac
exit 0
`,
      { mode: 0o755 },
    );
  }
  // The digest's LLM: a stand-in that answers "skip", set in this computer's own settings file.
  const llm = join(home, "llm", "skip.sh");
  mkdirSync(dirname(llm));
  writeFileSync(llm, `#!/bin/sh\ncat >/dev/null\necho '{"action":"skip","reason":"scheduled test"}'\n`, { mode: 0o755 });
  const config = opts.configElsewhere ? join(home, "elsewhere") : join(home, ".config");
  mkdirSync(join(config, "vault-memory"), { recursive: true });
  writeFileSync(join(config, "vault-memory", "config.json"), JSON.stringify({ digest: { binary: llm, command: [llm] } }), { mode: 0o600 });
  const env = { HOME: home, XDG_CONFIG_HOME: config, XDG_DATA_HOME: join(home, ".local", "share"), PATH: bin, SHELL: "/bin/false" };
  const run = (args: string[], more: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, [BRIDGE, "schedule", ...args], { env: { ...process.env, ...env, ...more }, encoding: "utf8" });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const calls = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);
  return { home, env, run, calls, llm, config, units: join(config, "systemd", "user") };
}

function vaultWithQueue(n: number): string {
  const vault = copyVault(SAMPLE_VAULT, "Scheduled Vault");
  const dir = tempDir();
  const reply = "A reply long enough to count as real work in this conversation, with details.";
  for (let i = 0; i < n; i++) {
    const path = join(dir, `s${i}.jsonl`);
    writeFileSync(
      path,
      jsonl([line.prompt(`question one of session ${i}`), line.reply(reply), line.prompt(`question two of session ${i}`), line.reply(reply)]),
    );
    captureSession(vault, { sessionId: `s${i}`, transcriptPath: path, cwd: "/work/project", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  }
  return vault;
}

/** The words of a systemd command line, as systemd reads them. */
function systemdWords(text: string): string[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1").replace(/%%/g, "%").replace(/\$\$/g, "$"));
}

const target = {
  vault: "/home/me/My Vault",
  node: "/usr/bin/node",
  bridge: "/home/me/.local/share/vault-memory/bridges/My_Vault-1/vault-memory.cjs",
  time: "03:30",
  path: "/home/me/.local/bin:/usr/bin:/bin",
  name: "vault-memory-digest-0000abcd",
};

describe("the schedule's units", () => {
  it("systemd: a oneshot service running the digest with --if-due, and a persistent timer", () => {
    const { service, timer } = systemdUnits(target);
    expect(service).toContain(`Environment="PATH=/home/me/.local/bin:/usr/bin:/bin"\n`);
    expect(service).toContain(`ExecStart="/usr/bin/node" "${target.bridge}" "digest" "--vault" "/home/me/My Vault" "--if-due" "03:30"\n`);
    expect(service).toContain("Type=oneshot\n");
    expect(timer).toContain("OnCalendar=*-*-* 03:30:00\nPersistent=true\nUnit=vault-memory-digest-0000abcd.service\n");
    expect(timer).toContain("[Install]\nWantedBy=timers.target\n");
    expect(unitTime(service)).toBe("03:30");
  });

  it("systemd: quotes what systemd would expand", () => {
    expect(systemdWord(`/v/100% "$HOME" \\x`)).toBe(`"/v/100%% \\"$$HOME\\" \\\\x"`);
    expect(systemdWords(systemdWord(`/v/100% "$HOME" \\x`))).toEqual([`/v/100% "$HOME" \\x`]);
  });

  const analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].find((p) => existsSync(p));
  it.runIf(analyze)("systemd: systemd-analyze verify accepts them, for a vault named with quotes, % and $", () => {
    const dir = tempDir();
    const units = systemdUnits({ ...target, node: process.execPath, vault: `/tmp/it's 100% "$HOME" \\x`, name: "vault-memory-digest-verify" });
    writeFileSync(join(dir, "vault-memory-digest-verify.service"), units.service);
    writeFileSync(join(dir, "vault-memory-digest-verify.timer"), units.timer);
    const r = spawnSync(analyze!, ["verify", "--man=no", join(dir, "vault-memory-digest-verify.service"), join(dir, "vault-memory-digest-verify.timer")], {
      encoding: "utf8",
    });
    expect([r.status, r.stderr]).toEqual([0, ""]);
    expect(systemdWords(/^ExecStart=(.*)$/m.exec(units.service)![1])).toEqual([
      process.execPath,
      target.bridge,
      "digest",
      "--vault",
      `/tmp/it's 100% "$HOME" \\x`,
      "--if-due",
      "03:30",
    ]);
  });

  it("launchd: calendar interval, run at load, the PATH, every word escaped for XML", () => {
    const plist = launchdPlist({ ...target, vault: "/Users/me/A & B <vault>" });
    expect(plist).toContain(
      "<key>StartCalendarInterval</key>\n\t<dict>\n\t\t<key>Hour</key>\n\t\t<integer>3</integer>\n\t\t<key>Minute</key>\n\t\t<integer>30</integer>",
    );
    expect(plist).toContain("<key>RunAtLoad</key>\n\t<true/>");
    expect(plist).toContain("<string>/Users/me/A &amp; B &lt;vault&gt;</string>\n\t\t<string>--if-due</string>\n\t\t<string>03:30</string>");
    expect(plist).toContain("<key>PATH</key>\n\t\t<string>/home/me/.local/bin:/usr/bin:/bin</string>");
    expect(plist).toContain("<key>Label</key>\n\t<string>vault-memory-digest-0000abcd</string>");
    expect(unitTime(plist)).toBe("03:30");
  });

  it("cron: hourly at the minute, so a missed night runs within the hour; % escaped", () => {
    expect(cronLine({ ...target, vault: "/home/me/100% it's" })).toBe(
      `30 * * * * PATH=/home/me/.local/bin:/usr/bin:/bin /usr/bin/node ${target.bridge} digest --vault '/home/me/100\\% it'\\''s' --if-due 03:30 # vault-memory-digest-0000abcd`,
    );
  });
});

describe.runIf(posix)("schedule install --dry-run", () => {
  it.each([
    [
      "linux",
      [
        /^--- .*\/\.config\/systemd\/user\/vault-memory-digest-[0-9a-f]{8}\.service \(new\)$/m,
        /^ExecStart="\/.*node" ".*vault-memory\.cjs" "digest" "--vault" ".*Scheduled Vault" "--if-due" "04:15"$/m,
        /^OnCalendar=\*-\*-\* 04:15:00$/m,
        /^Persistent=true$/m,
        /^ {2}systemctl --user daemon-reload$/m,
        /^ {2}systemctl --user enable --now vault-memory-digest-[0-9a-f]{8}\.timer$/m,
        /runs at the next start/,
      ],
    ],
    [
      "macos",
      [
        /^--- .*\/Library\/LaunchAgents\/vault-memory-digest-[0-9a-f]{8}\.plist \(new\)$/m,
        /<key>StartCalendarInterval<\/key>/,
        /<integer>4<\/integer>/,
        /<integer>15<\/integer>/,
        /<key>RunAtLoad<\/key>/,
        /^ {2}launchctl bootstrap gui\/\d+ .*\.plist$/m,
        /when it wakes/,
      ],
    ],
    [
      "cron",
      [
        /^ {2}15 \* \* \* \* PATH=\S+ \S+node \S+vault-memory\.cjs digest --vault '.*Scheduled Vault' --if-due 04:15 # vault-memory-digest-[0-9a-f]{8}$/m,
        /Cron does nothing for a night the computer was off/,
        /starts with a line saying when the digest last ran/,
      ],
    ],
  ] as const)("prints the %s units and commands and writes nothing", (platform, lines) => {
    const m = machine();
    const vault = vaultWithQueue(0);
    const r = m.run(["install", "--vault", vault, "--at", "4:15", "--dry-run", "--platform", platform]);
    expect(r.status, r.stderr).toBe(0);
    for (const l of lines) expect(r.stdout).toMatch(l);
    // Where claude (here the settings' LLM) was found goes on the unit's PATH.
    expect(r.stdout).toContain(`The digest will find its LLM program at ${m.llm}`);
    expect(r.stdout).toMatch(new RegExp(`(PATH=|<string>)${dirname(m.llm).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:`));
    expect(r.stdout).toContain("Dry run: nothing was written.");
    expect(readdirSync(m.home).sort()).toEqual([".config", "bin", "llm"]);
    expect(readdirSync(join(m.home, ".config"))).toEqual(["vault-memory"]);
    expect(m.calls()).toEqual([]);
  });

  it("refuses a vault whose path has a line break, which no unit can hold", () => {
    const m = machine();
    const vault = copyVault(SAMPLE_VAULT, "two\nlines");
    const r = m.run(["install", "--vault", vault, "--dry-run"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("a path with a control character (a line break, say) cannot go into a scheduler's unit");
  });

  it("refuses another platform without --dry-run, an unknown platform or time, and an unknown flag, exit 2", () => {
    const m = machine();
    const vault = vaultWithQueue(0);
    expect(m.run(["install", "--vault", vault, "--platform", "macos", "--yes"]).stderr).toContain(
      "--platform macos only with --dry-run: this computer schedules with a systemd user timer",
    );
    expect(m.run(["install", "--vault", vault, "--platform", "freebsd", "--dry-run"]).stderr).toContain(
      '--platform takes linux, macos, windows, cron, not "freebsd"',
    );
    expect(m.run(["install", "--vault", vault, "--platform", "windows", "--yes"]).stderr).toContain(
      "--platform windows only with --dry-run: this computer schedules with a systemd user timer",
    );
    expect(m.run(["install", "--vault", vault, "--at", "25:00", "--dry-run"]).stderr).toContain('--at takes a time of day as HH:MM, not "25:00"');
    expect(m.run(["install", "--vault", vault, "--dryrun"]).status).toBe(2);
    expect(m.run(["instal", "--vault", vault]).stderr).toContain('schedule takes install, remove, status, not "instal"');
    expect(m.run(["--vault", vault]).status).toBe(2);
    expect(m.calls()).toEqual([]);
  });
});

describe.runIf(posix)("schedule --platform windows, shown on another computer", () => {
  // What Windows would give the digest: its own folders and account, as the task is built for them.
  const windows = {
    LOCALAPPDATA: "C:\\Users\\Zoë\\AppData\\Local",
    USERPROFILE: "C:\\Users\\Zoë",
    SystemRoot: "C:\\WINDOWS",
    USERDOMAIN: "DESKTOP-7Q2",
    USERNAME: "Zoë",
  };
  const dir = "C:\\Users\\Zoë\\AppData\\Local\\vault-memory\\schedule";

  it("install --dry-run prints the launcher, the task definition and the schtasks line, and writes nothing", () => {
    const m = machine();
    const vault = vaultWithQueue(0);
    const name = `vault-memory-digest-${vaultId(vault)}`;
    const r = m.run(["install", "--vault", vault, "--at", "4:15", "--dry-run", "--platform", "windows"], windows);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`The nightly digest for ${vault} at 04:15, as a Task Scheduler task.`);
    expect(r.stdout).toContain(`--- ${dir}\\${name}.js (new)\n// Written by \`vault-memory schedule install\``);
    expect(r.stdout).toContain(
      `--- ${dir}\\${name}.xml (new; UTF-16 LE with a byte-order mark, as schtasks /XML reads it)\n<?xml version="1.0" encoding="UTF-16"?>`,
    );
    expect(r.stdout).toContain("<StartBoundary>2024-01-01T04:15:00</StartBoundary>");
    expect(r.stdout).toContain("<UserId>DESKTOP-7Q2\\Zoë</UserId>");
    expect(r.stdout).toContain("<Command>C:\\WINDOWS\\System32\\wscript.exe</Command>");
    expect(r.stdout).toContain(`<Arguments>//B //NoLogo //E:jscript ${dir}\\${name}.js</Arguments>`);
    expect(r.stdout).toContain(`\n  schtasks /Create /TN ${name} /XML ${dir}\\${name}.xml /F\n`);
    // The folder where the LLM program was found goes first on the task's PATH.
    expect(r.stdout).toContain(`env("PATH") = "${dirname(m.llm)};`);
    expect(r.stdout).toMatch(/ --vault .*Scheduled Vault.* --if-due 04:15";\n/);
    expect(r.stdout).toContain("no console window opens");
    expect(r.stdout).toContain("Dry run: nothing was written.");
    expect(readdirSync(m.home).sort()).toEqual([".config", "bin", "llm"]);
    expect(m.calls()).toEqual([]);
  });

  it("status and remove say what Windows would be asked, and change nothing", () => {
    const m = machine();
    const vault = vaultWithQueue(0);
    const name = `vault-memory-digest-${vaultId(vault)}`;
    const st = m.run(["status", "--vault", vault, "--platform", "windows"], windows);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stdout).toBe(
      [
        "Not scheduled with a Task Scheduler task on this computer; `schedule install` does it.",
        `On Windows, \`schtasks /Query /TN ${name} /V /FO LIST\` shows the task; no task definition at ${dir}\\${name}.xml.`,
        "Last run: none yet.",
        "",
      ].join("\n"),
    );
    const gone = m.run(["remove", "--vault", vault, "--platform", "windows", "--dry-run"], windows);
    expect(gone.status, gone.stderr).toBe(0);
    expect(gone.stdout).toBe(`Nothing is scheduled for this vault (no ${name} task, no definition at ${dir}\\${name}.xml).\n`);
    expect(m.run(["remove", "--vault", vault, "--platform", "windows", "--yes"], windows).status).toBe(2);
    expect(m.calls()).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("schedule on Linux, with systemctl", () => {
  it("installs the units (mode 644), turns the timer on, is idempotent, reports, and removes them aside", () => {
    const m = machine();
    const vault = vaultWithQueue(0);
    const name = `vault-memory-digest-${vaultId(vault)}`;
    const look = m.run(["install", "--vault", vault]);
    expect(look.stdout).toContain("Nothing was written. Run again with --yes to install it.");
    expect(existsSync(m.units)).toBe(false);

    const r = m.run(["install", "--vault", vault, "--yes"]);
    expect(r.status, r.stderr).toBe(0);
    for (const ext of ["service", "timer"]) {
      const path = join(m.units, `${name}.${ext}`);
      expect(r.stdout).toContain(`Wrote ${path}`);
      expect(statSync(path).mode & 0o777).toBe(0o644);
    }
    expect(m.calls()).toEqual(["--user daemon-reload", `--user enable --now ${name}.timer`]);
    // Scheduling starts now: the timer firing at once finds no missed night.
    expect(existsSync(join(vault, ".vault-memory", "digest-schedule.json"))).toBe(true);
    const bridge = join(m.home, ".local", "share", "vault-memory", "bridges");
    expect(readdirSync(bridge)).toHaveLength(1);

    const service = readFileSync(join(m.units, `${name}.service`), "utf8");
    const again = m.run(["install", "--vault", vault, "--yes"]);
    expect(again.stdout).toContain("Already installed as it is");
    expect(readFileSync(join(m.units, `${name}.service`), "utf8")).toBe(service);
    expect(m.calls().slice(2)).toEqual([`--user enable --now ${name}.timer`]);

    // Another time replaces the units, the old ones moved aside, and the timer restarts.
    const later = m.run(["install", "--vault", vault, "--at", "05:45", "--yes"]);
    expect(later.status, later.stderr).toBe(0);
    expect(readFileSync(join(m.units, `${name}.timer`), "utf8")).toContain("OnCalendar=*-*-* 05:45:00");
    expect(m.calls().slice(3)).toEqual(["--user daemon-reload", `--user enable --now ${name}.timer`, `--user restart ${name}.timer`]);
    const removed = join(m.home, ".local", "share", "vault-memory", "removed");
    expect(
      readdirSync(removed)
        .map((f) => f.replace(/\.\d{4}-.*$/, ""))
        .sort(),
    ).toEqual([`${name}.service`, `${name}.timer`]);

    writeFileSync(
      join(vault, ".vault-memory", "digest-status.json"),
      JSON.stringify({
        startedAt: "2026-12-02T05:45:00.000Z",
        finishedAt: "2026-12-02T05:46:10.000Z",
        ok: false,
        error: "quota: usage limit reached",
        created: 1,
        extended: 0,
        skipped: 2,
        failed: 0,
        enriched: 0,
        left: 3,
      }),
    );
    const st = m.run(["status", "--vault", vault]);
    expect(st.status).toBe(0);
    expect(st.stdout).toContain(
      `Scheduled: systemd user timer ${join(m.units, `${name}.timer`)}, ${join(m.units, `${name}.service`)}, at 05:45 (timer active, enabled).`,
    );
    expect(st.stdout).toContain(
      "Last run: started 2026-12-02T05:45:00.000Z, finished 2026-12-02T05:46:10.000Z: stopped: quota: usage limit reached (created 1, extended 0, skipped 2, failed 0; 3 left in the queue).",
    );
    expect(st.stdout).toContain("Next run: Thu 2026-12-03 03:00:00 UTC.");

    const gone = m.run(["remove", "--vault", vault, "--yes"]);
    expect(gone.status, gone.stderr).toBe(0);
    expect(m.calls().slice(-3)).toEqual([expect.stringMatching(/^--user show /), `--user disable --now ${name}.timer`, "--user daemon-reload"]);
    expect(readdirSync(m.units)).toEqual([]);
    expect(readdirSync(removed)).toHaveLength(4);
    expect(m.run(["status", "--vault", vault]).stdout).toMatch(/^Not scheduled with a systemd user timer on this computer/);
    expect(m.run(["remove", "--vault", vault, "--yes"]).stdout).toContain("Nothing is scheduled for this vault");
  });

  it("keeps the units and says what to run when systemctl cannot reach the user's manager, exit 1", () => {
    const m = machine({ failEnable: true });
    const vault = vaultWithQueue(0);
    const r = m.run(["install", "--vault", vault, "--yes"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      "failed: Failed to connect to bus: No medium found\nThe files are in place; to turn the schedule on, run:\n  systemctl --user enable --now vault-memory-digest-",
    );
    expect(readdirSync(m.units)).toHaveLength(2);
  });

  it("names the settings file on the digest's command line when a scheduler would not find it from HOME", () => {
    const m = machine({ configElsewhere: true });
    const vault = vaultWithQueue(1);
    expect(m.run(["install", "--vault", vault, "--yes"]).status).toBe(0);
    const service = readFileSync(join(m.units, `vault-memory-digest-${vaultId(vault)}.service`), "utf8");
    expect(service).toContain(` "--config" "${join(m.config, "vault-memory", "config.json")}" "--if-due" "03:00"\n`);
    const [node, ...args] = systemdWords(/^ExecStart=(.*)$/m.exec(service)![1]);
    writeFileSync(join(vault, ".vault-memory", "digest-schedule.json"), JSON.stringify({ since: "2026-11-20T00:00:00.000Z" }));
    // HOME alone, as systemd gives it: the stand-in LLM is found through --config.
    const night = spawnSync(node, args, { env: { HOME: m.home, PATH: "/usr/bin:/bin" }, encoding: "utf8" });
    expect(night.status, night.stderr).toBe(0);
    expect(listHandled(vault).map((e) => e.sessionId)).toEqual(["s0"]);
  });

  it("status finds the crontab line by its mark, or says there is none", () => {
    const m = machine({ systemctl: false });
    const vault = vaultWithQueue(0);
    expect(m.run(["status", "--vault", vault]).stdout).toMatch(
      /^No crontab line for this vault \(`crontab -l`\); `schedule install` shows the line to add\.\nLast run: none yet\.\n$/,
    );
    const line = /^ {2}(\d.*)$/m.exec(m.run(["install", "--vault", vault, "--at", "02:10", "--yes"]).stdout)![1];
    // Builtins only: this PATH has no cat.
    writeFileSync(join(m.home, "crontab.txt"), `MAILTO=me\n${line}\n`);
    writeFileSync(join(m.home, "bin", "crontab"), `#!/bin/sh\nwhile IFS= read -r l; do printf '%s\\n' "$l"; done < "${join(m.home, "crontab.txt")}"\n`, {
      mode: 0o755,
    });
    const st = m.run(["status", "--vault", vault]).stdout;
    expect(st).toContain(`Scheduled: crontab line "${line}", at 02:10.`);
    expect(st).toMatch(/^Next run: .* 02:10:00 .*\(from the unit's time\)\.$/m);
  });

  it("without systemctl, gives the crontab line", () => {
    const m = machine({ systemctl: false });
    const r = m.run(["install", "--vault", vaultWithQueue(0), "--yes"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("as a crontab line");
    expect(r.stdout).toContain("Add the line above with `crontab -e`; nothing else was changed.");
  });

  it("writes an ExecStart that runs the digest: nothing on a night already done, the night's work when one was missed", () => {
    const m = machine();
    const vault = vaultWithQueue(1);
    expect(m.run(["install", "--vault", vault, "--yes"]).status).toBe(0);
    const service = readFileSync(join(m.units, `vault-memory-digest-${vaultId(vault)}.service`), "utf8");
    const [node, ...args] = systemdWords(/^ExecStart=(.*)$/m.exec(service)![1]);
    const [, path] = systemdWords(/^Environment=(.*)$/m.exec(service)![1])[0].split(/^PATH=/);
    // As systemd starts it: the unit's PATH, the user's HOME, nothing of this terminal.
    const env = { HOME: m.home, PATH: path };
    const empty = spawnSync(node, args, { env, encoding: "utf8" });
    expect(empty.status, empty.stderr).toBe(0);
    expect(empty.stdout + empty.stderr).toBe("");
    expect(listPending(vault)).toHaveLength(1);
    // The night before scheduling began is not missed; a night since is.
    writeFileSync(join(vault, ".vault-memory", "digest-schedule.json"), JSON.stringify({ since: "2026-11-20T00:00:00.000Z" }));
    const night = spawnSync(node, args, { env, encoding: "utf8" });
    expect(night.status, night.stderr).toBe(0);
    expect(night.stdout).toContain("created 0, extended 0, skipped 1, failed 0; 0 left in the queue");
    expect(listHandled(vault).map((e) => e.sessionId)).toEqual(["s0"]);
    const status = JSON.parse(readFileSync(join(vault, ".vault-memory", "digest-status.json"), "utf8")) as { ok: boolean };
    expect(status.ok).toBe(true);
    // Fired again the same night (a login, a restart), it does nothing.
    expect(spawnSync(node, args, { env, encoding: "utf8" }).stdout).toBe("");
  });
});
