import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, lstatSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRIDGE_FILES, hookCommand } from "../../../src/core/install/hook-commands";
import { applyChange, describeChange, planChange, SettingsFileError, type SettingsChange } from "../../../src/core/install/settings-file";
import { bridgeHome, userDataDir } from "../../../src/core/install/install";
import { cacheDir, cacheName } from "../../../hook-bridge/src/code-cache";
import { runBridge, SAMPLE_VAULT, copyVault, tempDir } from "../../helpers";

// Modes, links and backslashes in names are POSIX matters.
const posix = process.platform !== "win32";

const target = {
  platform: "linux" as const,
  node: "/usr/local/bin/node",
  bridge: "/home/me/My Vault/.obsidian/plugins/vault-memory/vault-memory.mjs",
  vault: "/home/me/My Vault",
};

// Settings files as people have them.
const FILES: Record<string, string> = {
  missing: "",
  empty: "{}\n",
  "other keys, tab-indented": '{\n\t"model": "opus",\n\t"permissions": {\n\t\t"allow": ["Bash(npm test)"]\n\t},\n\t"env": {"FOO": "1"}\n}\n',
  "other hooks": JSON.stringify(
    {
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: "command", command: "~/bin/lint-prompt.sh" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }],
      },
    },
    null,
    2,
  ),
  "our old entries": JSON.stringify(
    {
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: "command", command: 'node "/old/place/vault-memory.mjs" recall --vault "/old/vault"', timeout: 5 }] }],
        Stop: [
          {
            hooks: [
              { type: "command", command: "other-stop" },
              { type: "command", command: 'node "/old/vault-memory.mjs" queue --vault "/old"' },
            ],
          },
        ],
      },
    },
    null,
    4,
  ),
  // An earlier release's session start: for startup and resume only, alone in its group, and
  // sharing a group with a hook of the person's.
  "our session start of an earlier release": JSON.stringify(
    {
      hooks: {
        SessionStart: [{ matcher: "startup|resume", hooks: [{ type: "command", command: 'node "/old/vault-memory.mjs" remind --vault "/old"', timeout: 10 }] }],
      },
    },
    null,
    2,
  ),
  "our session start beside the person's": JSON.stringify(
    {
      hooks: {
        SessionStart: [
          {
            matcher: "startup|resume",
            hooks: [
              { type: "command", command: "~/bin/greet.sh" },
              { type: "command", command: 'node "/old/vault-memory.mjs" remind --vault "/old"', timeout: 10 },
            ],
          },
        ],
      },
    },
    null,
    2,
  ),
};

function setup(name: string): string {
  const dir = tempDir();
  const path = join(dir, "settings.json");
  if (FILES[name]) writeFileSync(path, FILES[name]);
  return path;
}

const commands = (text: string): string[] => JSON.stringify(JSON.parse(text)).match(/"command":"(?:[^"\\]|\\.)*"/g) ?? [];

describe.each(Object.keys(FILES))("install and uninstall on a settings file with %s", (name) => {
  it("adds one entry per event, keeps everything else, and is idempotent", () => {
    const path = setup(name);
    const first = planChange(path, "install", target);
    expect(first.changed).toBe(true);
    applyChange(first);
    const after = JSON.parse(readFileSync(path, "utf8")) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    for (const [event, sub] of [
      ["UserPromptSubmit", "recall"],
      ["Stop", "queue"],
      ["SessionStart", "remind"],
    ]) {
      const ours = after.hooks[event].flatMap((g) => g.hooks).filter((h) => h.command.includes("vault-memory.mjs"));
      expect(ours.map((h) => h.command)).toEqual([
        `"/usr/local/bin/node" "/home/me/My Vault/.obsidian/plugins/vault-memory/vault-memory.mjs" ${sub} --vault "/home/me/My Vault"`,
      ]);
    }
    const before = FILES[name] ? (JSON.parse(FILES[name]) as Record<string, unknown>) : {};
    for (const [k, v] of Object.entries(before)) if (k !== "hooks") expect((after as unknown as Record<string, unknown>)[k]).toEqual(v);
    for (const c of commands(FILES[name] || "{}"))
      if (!c.includes("vault-memory.mjs")) expect(readFileSync(path, "utf8")).toContain((JSON.parse(`{${c}}`) as { command: string }).command);
    const again = planChange(path, "install", target);
    expect(again.changed).toBe(false);
    expect(applyChange(again)).toBeUndefined();
  });

  it("uninstall removes exactly our entries", () => {
    const path = setup(name);
    applyChange(planChange(path, "install", target));
    applyChange(planChange(path, "uninstall", target));
    const text = existsSync(path) ? readFileSync(path, "utf8") : "{}";
    expect(text).not.toContain("vault-memory.mjs");
    const others = commands(FILES[name] || "{}").filter((c) => !c.includes("vault-memory.mjs"));
    expect(commands(text)).toEqual(others);
  });
});

describe("a session start installed by an earlier release", () => {
  type Groups = { matcher?: string; hooks: { command: string }[] }[];
  const sessionStart = (path: string): Groups => (JSON.parse(readFileSync(path, "utf8")) as { hooks: { SessionStart: Groups } }).hooks.SessionStart;

  it("takes the current matcher, so compaction and /clear reach it too", () => {
    const path = setup("our session start of an earlier release");
    applyChange(planChange(path, "install", target));
    expect(sessionStart(path)).toEqual([
      { matcher: "startup|resume|compact|clear", hooks: [expect.objectContaining({ command: expect.stringContaining(" remind --vault ") })] },
    ]);
  });

  it("leaves the person's hook with its matcher, and gives ours a group of its own", () => {
    const path = setup("our session start beside the person's");
    applyChange(planChange(path, "install", target));
    const groups = sessionStart(path);
    expect(groups).toHaveLength(2);
    expect(groups[0]).toEqual({ matcher: "startup|resume", hooks: [{ type: "command", command: "~/bin/greet.sh" }] });
    expect(groups[1].matcher).toBe("startup|resume|compact|clear");
    expect(groups[1].hooks.map((h) => h.command)).toEqual([expect.stringContaining(" remind --vault ")]);
  });
});

describe("safety", () => {
  it("keeps the file's indentation and writes a backup first", () => {
    const path = setup("other keys, tab-indented");
    const backup = applyChange(planChange(path, "install", target));
    expect(readFileSync(backup!, "utf8")).toBe(FILES["other keys, tab-indented"]);
    expect(readFileSync(path, "utf8")).toMatch(/^\{\n\t"model": "opus"/);
    expect(readdirSync(join(path, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it.runIf(posix)("keeps a private file private, and its backup too, through install and uninstall", () => {
    const path = setup("other keys, tab-indented");
    chmodSync(path, 0o600);
    for (const mode of ["install", "uninstall"] as const) {
      const backup = applyChange(planChange(path, mode, target));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(backup!).mode & 0o777).toBe(0o600);
    }
  });

  it.runIf(posix)("writes through a symlinked settings file to its target; the link stays a link", () => {
    const dotfiles = tempDir();
    const real = join(dotfiles, "claude-settings.json");
    writeFileSync(real, FILES["other keys, tab-indented"]);
    chmodSync(real, 0o600);
    const path = join(tempDir(), "settings.json");
    symlinkSync(real, path);
    const backup = applyChange(planChange(path, "install", target));
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path)).toBe(real);
    expect(readFileSync(real, "utf8")).toContain("vault-memory.mjs");
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(readFileSync(backup!, "utf8")).toBe(FILES["other keys, tab-indented"]);
    expect(planChange(path, "install", target).changed).toBe(false);
    for (const dir of [dotfiles, join(path, "..")]) expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it.runIf(posix)("refuses a read-only file, writing nothing", () => {
    const path = setup("other keys, tab-indented");
    chmodSync(path, 0o444);
    expect(() => planChange(path, "install", target)).toThrow(/read-only/);
    expect(readFileSync(path, "utf8")).toBe(FILES["other keys, tab-indented"]);
    expect(readdirSync(join(path, ".."))).toEqual(["settings.json"]);
  });

  it("refuses a file over 1 MB, and one that is not UTF-8, writing nothing", () => {
    const big = Buffer.from('{"model": "opus"}' + " ".repeat(1 << 20));
    // Latin-1: read as UTF-8 and written back, the é would become U+FFFD.
    const latin1 = Buffer.from('{"model": "caf\xe9"}\n', "latin1");
    for (const [bytes, why] of [
      [big, /over 1 MB.*left untouched/],
      [latin1, /is not UTF-8 text.*left untouched/],
    ] as const) {
      const dir = tempDir();
      const path = join(dir, "settings.json");
      writeFileSync(path, bytes);
      expect(() => planChange(path, "install", target)).toThrow(SettingsFileError);
      expect(() => planChange(path, "install", target)).toThrow(why);
      expect(readFileSync(path).equals(bytes)).toBe(true);
      expect(readdirSync(dir)).toEqual(["settings.json"]);
    }
  });

  it.each([
    ["a comment", '{\n  // my settings\n  "model": "opus"\n}\n', /line 2/],
    ["a trailing comma", '{\n  "model": "opus",\n}\n', /line 3/],
    ["not an object", "[1, 2]\n", /not a JSON object/],
  ])("refuses a file with %s, saying where, and never overwrites it", (_, text, where) => {
    const dir = tempDir();
    const path = join(dir, "settings.json");
    writeFileSync(path, text);
    expect(() => planChange(path, "install", target)).toThrow(SettingsFileError);
    expect(() => planChange(path, "install", target)).toThrow(where);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it.each([
    [
      "darwin",
      "/opt/homebrew/bin/node",
      "/Users/me/Library/Mobile Documents/iCloud~md~obsidian/Documents/My Vault",
      `"/opt/homebrew/bin/node" "/b/vault-memory.mjs" recall --vault "/Users/me/Library/Mobile Documents/iCloud~md~obsidian/Documents/My Vault"`,
    ],
    ["linux", "/usr/bin/node", "/home/me/vault $HOME `x`", `"/usr/bin/node" "/b/vault-memory.mjs" recall --vault "/home/me/vault \\$HOME \\\`x\\\`"`],
    [
      "win32",
      "C:\\Program Files\\nodejs\\node.exe",
      "C:\\Users\\me\\My Vault 記憶",
      `"C:/Program Files/nodejs/node.exe" "/b/vault-memory.mjs" recall --vault "C:/Users/me/My Vault 記憶"`,
    ],
  ] as const)("writes a command line that works on %s", (platform, node, vault, expected) => {
    expect(hookCommand(platform, node, "/b/vault-memory.mjs", "recall", vault)).toBe(expected);
  });
});

describe("the change shown before install writes", () => {
  const change = (before: string, after: string): SettingsChange => ({
    path: "settings.json",
    target: "settings.json",
    before,
    after,
    changed: before !== after,
  });
  const shown = (before: string, after: string): string[] => describeChange(change(before, after)).split("\n").slice(2, -1);

  it("shows a moved line as taken out where it was and added where it goes", () => {
    expect(shown("a\nb\nc\nd\n", "b\nc\na\nd\n")).toEqual(["- a", "  b", "  c", "+ a", "  d"]);
  });

  it("shows a line added twice twice, and one of two equal lines taken out once", () => {
    expect(shown("{\n}\n", '{\n  "x": 1,\n  "x": 1,\n}\n')).toEqual(["  {", '+   "x": 1,', '+   "x": 1,', "  }"]);
    expect(shown("a\nx\nx\nb\n", "a\nx\nb\n")).toEqual(["  a", "  x", "- x", "  b"]);
  });

  it("shows far-apart changes with a gap between, and CRLF lines like LF ones", () => {
    const before = ["1", "2", "3", "4", "5", "6", "7", "8", "9"].join("\r\n");
    const after = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"].join("\r\n") + "\r\n";
    expect(shown(before, after)).toEqual(["+ 0", "  1", "  2", "  …", "  8", "  9", "+ 10"]);
  });

  it("shows a new file as added lines only", () => {
    expect(shown("", "{\n}\n")).toEqual(["+ {", "+ }"]);
  });
});

describe("install from the bridge", () => {
  it("shows the change first, writes with --yes, copies the bridge to a stable place, and the hook runs from there", () => {
    const vault = copyVault(SAMPLE_VAULT, "Install Vault 記憶");
    runBridge(["index", "--vault", vault]);
    const settings = join(tempDir(), "settings.json");
    writeFileSync(settings, '{\n  "model": "opus"\n}\n');
    const look = runBridge(["install", "--vault", vault, "--settings", settings]);
    expect(look.stdout).toMatch(/\+ .*"UserPromptSubmit"/);
    expect(look.stdout).toContain(`Would keep ${settings} as it is now in ${settings}.vault-memory-backup`);
    expect(look.stdout).toContain("Nothing was written");
    expect(readFileSync(settings, "utf8")).toBe('{\n  "model": "opus"\n}\n');
    const r = runBridge(["install", "--vault", vault, "--settings", settings, "--yes"]);
    expect(r.stdout).toMatch(/Connected: .*backup: /);
    // It ends by indexing the vault and running the installed hook on a prompt from one of its cards.
    expect(r.stdout).toMatch(/Indexing the vault, so the hooks have cards to recall:\nindexed 15 cards/);
    expect(r.stdout).toMatch(
      /The installed hook, asked "[^"]+" \(from feedback\/commit-messages\.md\), gives Claude:\n\n<vault-memory-notes>\n[^\n]+\n- .*feedback\/commit-messages\.md — /,
    );
    const cmd = (JSON.parse(readFileSync(settings, "utf8")) as { hooks: { UserPromptSubmit: { hooks: { command: string }[] }[] } }).hooks.UserPromptSubmit[0]
      .hooks[0].command;
    // In the person's own data folder, not the vault: the hooks run it on every prompt.
    const copy = join(bridgeHome(vault), "vault-memory.cjs");
    expect(copy.startsWith(process.env.XDG_DATA_HOME!)).toBe(true);
    expect(cmd).toContain(copy);
    expect(existsSync(join(vault, ".vault-memory", "bin"))).toBe(false);
    if (posix) expect(statSync(bridgeHome(vault)).mode & 0o777).toBe(0o700);
    // The copy is the hook now: run it as Claude Code would.
    const hook = spawnSync(process.execPath, [copy, "recall", "--vault", vault, "--deadline-ms", "600000"], {
      input: JSON.stringify({ prompt: "为什么排程跑不起来", session_id: "copy" }),
      encoding: "utf8",
    });
    expect(hook.stdout).toContain("launchd-cron-path.md");
    expect(runBridge(["install", "--vault", vault, "--settings", settings, "--yes"]).stdout).toContain("already up to date");
    expect(runBridge(["uninstall", "--vault", vault, "--settings", settings, "--yes"]).stdout).toContain(
      `Disconnected: ${settings} (backup: ${settings}.vault-memory-backup)`,
    );
    // The same bytes as before install, and one backup: the file as it was before the latest change.
    expect(readFileSync(settings, "utf8")).toBe('{\n  "model": "opus"\n}\n');
    expect(readdirSync(join(settings, "..")).sort()).toEqual(["settings.json", "settings.json.vault-memory-backup"]);
  });

  it("uninstall takes away what install added: the bridge copy and its code cache moved or removed, no {} left where there was no file", () => {
    const vault = copyVault(SAMPLE_VAULT, "Tidy Vault");
    const settings = join(tempDir(), "settings.json");
    expect(runBridge(["install", "--vault", vault, "--settings", settings, "--yes"]).status).toBe(0);
    const home = bridgeHome(vault);
    // Install's check ran the installed hook, which wrote its code cache.
    const cached = () => readdirSync(cacheDir()).filter((f) => f.startsWith("vault-memory") && BRIDGE_FILES.some((b) => f === cacheName(join(home, b))));
    expect(cached().length).toBeGreaterThan(0);
    const look = runBridge(["uninstall", "--vault", vault, "--settings", settings]);
    expect(look.stdout).toContain(`Would move ${settings}, then holding nothing but {}, to `);
    expect(look.stdout).toContain(`Would move the bridge copy ${home} to `);
    expect(look.stdout).toMatch(/Would remove the hooks' code cache \(\d+ files?/);
    expect(existsSync(home)).toBe(true);
    const r = runBridge(["uninstall", "--vault", vault, "--settings", settings, "--yes"]);
    expect(r.status).toBe(0);
    // Nothing is deleted: the emptied settings file and the bridge copy are moved into the data folder's removed/.
    expect(existsSync(settings)).toBe(false);
    expect(existsSync(home)).toBe(false);
    const removed = readdirSync(join(userDataDir(), "removed"));
    expect(removed.some((f) => f.startsWith("settings.json."))).toBe(true);
    expect(removed.some((f) => f.startsWith(`${basename(home)}.`))).toBe(true);
    expect(cached()).toEqual([]);
    expect(r.stdout).toMatch(/Removed the hooks' code cache/);
  });

  it("says why the installed hook printed nothing, or that the vault has no card yet", () => {
    const strict = copyVault(SAMPLE_VAULT, "Strict Vault");
    mkdirSync(join(strict, ".vault-memory"), { recursive: true });
    writeFileSync(join(strict, ".vault-memory", "config.json"), JSON.stringify({ recall: { thresholds: { minScore: 1e9 } } }));
    const settings = join(tempDir(), "settings.json");
    const r = runBridge(["install", "--vault", strict, "--settings", settings, "--yes"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/The installed hook, asked "[^"]+" \(from [^)]+\), printed nothing\. No card cleared recall's thresholds for it/);
    const empty = join(tempDir(), "Empty Vault");
    mkdirSync(empty);
    const other = join(tempDir(), "settings.json");
    const e = runBridge(["install", "--vault", empty, "--settings", other, "--yes"]);
    expect(e.status).toBe(0);
    expect(e.stdout).toContain("The vault has no card yet: the hooks print nothing until the digest or Claude writes some.");
  });

  it("without --yes writes nothing anywhere, not even the bridge copy, and says it would copy it", () => {
    const vault = copyVault(SAMPLE_VAULT, "Look Vault");
    const settings = join(tempDir(), "settings.json");
    writeFileSync(settings, "{}\n");
    const r = runBridge(["install", "--vault", vault, "--settings", settings]);
    expect(r.status).toBe(0);
    expect(existsSync(bridgeHome(vault))).toBe(false);
    expect(r.stdout).toContain(`Would copy the bridge to ${join(bridgeHome(vault), "vault-memory.cjs")}`);
    expect(r.stdout).toContain("Nothing was written");
    expect(readdirSync(join(settings, ".."))).toEqual(["settings.json"]);
    expect(readFileSync(settings, "utf8")).toBe("{}\n");
  });

  it.runIf(posix)("refuses a read-only settings file with a clear error and exit 1, writing nothing", () => {
    const vault = copyVault(SAMPLE_VAULT);
    const settings = join(tempDir(), "settings.json");
    writeFileSync(settings, "{}\n");
    chmodSync(settings, 0o444);
    const r = runBridge(["install", "--vault", vault, "--settings", settings, "--yes"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^vault-memory install: .*settings\.json is read-only.*\n$/);
    expect(readFileSync(settings, "utf8")).toBe("{}\n");
    expect(readdirSync(join(settings, ".."))).toEqual(["settings.json"]);
    expect(existsSync(join(vault, ".vault-memory", "bin"))).toBe(false);
  });

  it.runIf(posix)("keeps a private settings file private, and writes through a symlink", () => {
    const vault = copyVault(SAMPLE_VAULT);
    const real = join(tempDir(), "dotfiles-settings.json");
    writeFileSync(real, '{\n  "env": {"ANTHROPIC_API_KEY": "sk-test"}\n}\n');
    chmodSync(real, 0o600);
    const settings = join(tempDir(), "settings.json");
    symlinkSync(real, settings);
    const r = runBridge(["install", "--vault", vault, "--settings", settings, "--yes"]);
    expect(r.status).toBe(0);
    const backup = /backup: (.*)\)/.exec(r.stdout)![1];
    expect(lstatSync(settings).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toContain("vault-memory.cjs");
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(statSync(backup).mode & 0o777).toBe(0o600);
  });

  it.runIf(posix)("installs for a vault whose path has a backslash, the bridge being outside it, and the hook runs", () => {
    // The refusal was for a bridge inside such a folder, which Node's module loader could not run.
    const vault = copyVault(SAMPLE_VAULT, "back\\slash vault");
    runBridge(["index", "--vault", vault]);
    const settings = join(tempDir(), "settings.json");
    writeFileSync(settings, "{}\n");
    const r = runBridge(["install", "--vault", vault, "--settings", settings, "--yes"]);
    expect(r.status, r.stderr).toBe(0);
    const copy = join(bridgeHome(vault), "vault-memory.cjs");
    expect(copy.includes("\\")).toBe(false);
    const hook = spawnSync(process.execPath, [copy, "recall", "--vault", vault, "--deadline-ms", "600000"], {
      input: JSON.stringify({ prompt: "为什么排程跑不起来", session_id: "bs" }),
      encoding: "utf8",
    });
    expect(hook.stdout).toContain("launchd-cron-path.md");
  });

  it("refuses a broken settings file with a clear error and exit 1", () => {
    const settings = join(tempDir(), "settings.json");
    writeFileSync(settings, '{ "model": "opus", }');
    const r = runBridge(["install", "--vault", copyVault(SAMPLE_VAULT), "--settings", settings, "--yes"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is not valid JSON \(line 1, column \d+\).*left untouched/);
    expect(readFileSync(settings, "utf8")).toBe('{ "model": "opus", }');
  });
});
