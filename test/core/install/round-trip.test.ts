import { chmodSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyChange, describeChange, planChange } from "../../../src/core/install/settings-file";
import { tempDir } from "../../helpers";

const posix = process.platform !== "win32";

const target = {
  platform: "linux" as const,
  node: "/usr/local/bin/node",
  bridge: "/home/me/My Vault 記憶/.obsidian/plugins/vault-memory/vault-memory.cjs",
  vault: "/home/me/My Vault 記憶",
};
const other = { ...target, vault: "/home/me/Other Vault" };

// Settings files as people write them by hand, and as Claude Code writes them.
const FILES: Record<string, string> = {
  "hand-written, one-line arrays": `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)", "Bash(git status)", "Read(~/notes/**)"],
    "deny": ["Read(./.env)"]
  },
  "env": { "DISABLE_TELEMETRY": "1" },
  "includeCoAuthoredBy": false
}
`,
  "the person's own hooks on the same events": `{
  "hooks": {
    "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "~/bin/lint-prompt.sh" }] }],
    "Stop": [
      { "hooks": [{ "type": "command", "command": "afplay /System/Library/Sounds/Glass.aiff" }] }
    ],
    "SessionStart": [{ "matcher": "startup", "hooks": [{ "type": "command", "command": "echo hi" }] }],
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "guard" }] }]
  },
  "model": "sonnet"
}
`,
  "hooks written by Claude Code":
    JSON.stringify(
      {
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: "command", command: "~/bin/lint-prompt.sh" }] }],
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }],
        },
        model: "opus",
      },
      null,
      2,
    ) + "\n",
  "no hooks key, 4 spaces and CRLF": '{\r\n    "model": "opus",\r\n    "env": {"A": "1"}\r\n}\r\n',
  "an empty object": "{}\n",
  "an empty object, no newline": "{}",
  tabs: '{\n\t"model": "opus",\n\t"permissions": {\n\t\t"allow": ["Bash(npm test)"]\n\t},\n\t"env": {"FOO": "1"}\n}\n',
  "one line": '{"model":"opus","env":{"A":"1"}}',
};

function fileWith(text: string | undefined): string {
  const path = join(tempDir(), "settings.json");
  if (text !== undefined) writeFileSync(path, text);
  return path;
}

const run = (path: string, mode: "install" | "uninstall", t = target): string | undefined => applyChange(planChange(path, mode, t));
const backups = (path: string): string[] => readdirSync(join(path, "..")).filter((f) => f.includes("vault-memory-backup"));

describe.each(Object.entries(FILES))("install then uninstall on a file with %s", (_, text) => {
  it("gives back the same bytes, installing twice or once", () => {
    const path = fileWith(text);
    run(path, "install");
    const installed = readFileSync(path, "utf8");
    expect(installed).toContain("vault-memory.cjs");
    expect(planChange(path, "install", target).changed).toBe(false);
    run(path, "install");
    expect(readFileSync(path, "utf8")).toBe(installed);
    run(path, "uninstall");
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("shows every line the change adds and takes out, before and after", () => {
    const path = fileWith(text);
    for (const mode of ["install", "uninstall"] as const) {
      const change = planChange(path, mode, target);
      const lines = (t: string): string[] => t.split(/\r?\n/);
      const shown = describeChange(change).split("\n");
      const added = shown.filter((l) => l.startsWith("+ ")).map((l) => l.slice(2));
      const removed = shown.filter((l) => l.startsWith("- ")).map((l) => l.slice(2));
      expect(added.length - removed.length).toBe(lines(change.after).length - lines(change.before).length);
      for (const l of added) expect(lines(change.after)).toContain(l);
      for (const l of removed) expect(lines(change.before)).toContain(l);
      expect(added.length + removed.length).toBeGreaterThan(0);
      applyChange(change);
    }
  });
});

describe("install keeps the person's formatting", () => {
  it("keeps one-line arrays on one line and the key order", () => {
    const path = fileWith(FILES["hand-written, one-line arrays"]);
    run(path, "install");
    const installed = readFileSync(path, "utf8");
    expect(installed).toContain(
      '\n    "allow": ["Bash(npm test)", "Bash(git status)", "Read(~/notes/**)"],\n    "deny": ["Read(./.env)"]\n  },\n  "env": { "DISABLE_TELEMETRY": "1" },\n  "includeCoAuthoredBy": false,\n  "hooks": {\n    "UserPromptSubmit": [\n',
    );
    expect(Object.keys(JSON.parse(installed) as object)).toEqual(["$schema", "model", "permissions", "env", "includeCoAuthoredBy", "hooks"]);
  });

  it("writes CRLF line ends in a file that has them, and tabs in a file indented with tabs", () => {
    const crlf = fileWith(FILES["no hooks key, 4 spaces and CRLF"]);
    run(crlf, "install");
    expect(
      readFileSync(crlf, "utf8").startsWith('{\r\n    "model": "opus",\r\n    "env": {"A": "1"},\r\n    "hooks": {\r\n        "UserPromptSubmit": [\r\n'),
    ).toBe(true);
    expect(readFileSync(crlf, "utf8").replace(/\r\n/g, "")).not.toContain("\n");
    const tabs = fileWith(FILES.tabs);
    run(tabs, "install");
    expect(readFileSync(tabs, "utf8")).toContain('\t"env": {"FOO": "1"},\n\t"hooks": {\n\t\t"UserPromptSubmit": [\n\t\t\t{\n');
  });
});

describe("install beside the person's own hooks", () => {
  it("adds ours after theirs on the same events and leaves theirs as they were written", () => {
    const text = FILES["the person's own hooks on the same events"];
    const path = fileWith(text);
    run(path, "install");
    const installed = readFileSync(path, "utf8");
    for (const theirs of [
      '{ "hooks": [{ "type": "command", "command": "~/bin/lint-prompt.sh" }] }',
      '{ "hooks": [{ "type": "command", "command": "afplay /System/Library/Sounds/Glass.aiff" }] }',
      '{ "matcher": "startup", "hooks": [{ "type": "command", "command": "echo hi" }] }',
      '"PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "guard" }] }]',
    ]) {
      expect(installed).toContain(theirs);
    }
    const hooks = (JSON.parse(installed) as { hooks: Record<string, { hooks: { command: string }[] }[]> }).hooks;
    for (const event of ["UserPromptSubmit", "Stop", "SessionStart"]) {
      expect(hooks[event]).toHaveLength(2);
      expect(hooks[event][1].hooks[0].command).toContain("vault-memory.cjs");
    }
    // Within a one-line array, ours is written on that line too.
    expect(installed).toMatch(/"UserPromptSubmit": \[\{ "hooks": \[.*lint-prompt\.sh.*\}, \{.*vault-memory\.cjs.*\}\],\n/);
  });

  it("moves our entry to a new vault where it stands, and uninstall still gives back the file", () => {
    const text = FILES["the person's own hooks on the same events"];
    const path = fileWith(text);
    run(path, "install", other);
    run(path, "install");
    expect(readFileSync(path, "utf8")).not.toContain("Other Vault");
    run(path, "uninstall");
    expect(readFileSync(path, "utf8")).toBe(text);
  });
});

describe("a settings file that was not there", () => {
  it("is created by install, and uninstall leaves an empty object in it, never deleting it", () => {
    const path = fileWith(undefined);
    run(path, "install");
    expect(JSON.parse(readFileSync(path, "utf8"))).toHaveProperty("hooks");
    expect(backups(path)).toEqual([]);
    run(path, "uninstall");
    expect(readFileSync(path, "utf8")).toBe("{}\n");
  });
});

describe("the backup", () => {
  it("is one file beside the settings, holding the file as it was before the latest change", () => {
    const text = FILES.tabs;
    const path = fileWith(text);
    const first = run(path, "install");
    expect(first).toBe(`${path}.vault-memory-backup`);
    expect(readFileSync(first!, "utf8")).toBe(text);
    const installed = readFileSync(path, "utf8");
    expect(run(path, "install")).toBeUndefined();
    expect(run(path, "uninstall")).toBe(first);
    expect(backups(path)).toEqual(["settings.json.vault-memory-backup"]);
    expect(readFileSync(first!, "utf8")).toBe(installed);
  });

  it("leaves the timestamped backups of earlier releases alone", () => {
    const path = fileWith(FILES.tabs);
    const old = `${path}.vault-memory-backup-2026-01-02T03-04-05-678Z`;
    writeFileSync(old, "{}\n");
    run(path, "install");
    run(path, "uninstall");
    expect(backups(path).sort()).toEqual(["settings.json.vault-memory-backup", "settings.json.vault-memory-backup-2026-01-02T03-04-05-678Z"]);
    expect(readFileSync(old, "utf8")).toBe("{}\n");
  });

  it.runIf(posix)("has the settings file's mode, even over an older backup of another mode", () => {
    const path = fileWith(FILES.tabs);
    writeFileSync(`${path}.vault-memory-backup`, "old");
    chmodSync(`${path}.vault-memory-backup`, 0o644);
    chmodSync(path, 0o600);
    const backup = run(path, "install");
    expect(backup).toBe(`${path}.vault-memory-backup`);
    expect(readFileSync(backup!, "utf8")).toBe(FILES.tabs);
    expect(statSync(backup!).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(path, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("is named in the plan, before anything is written", () => {
    const path = fileWith(FILES.tabs);
    expect(planChange(path, "install", target).backup).toBe(`${path}.vault-memory-backup`);
    expect(existsSync(`${path}.vault-memory-backup`)).toBe(false);
    expect(planChange(fileWith(undefined), "install", target).backup).toBeUndefined();
  });
});

describe("a settings file changed after the change was shown", () => {
  it("is not written over: nothing is written, and it keeps what was added to it", () => {
    const path = fileWith(FILES.tabs);
    const shown = planChange(path, "install", target);
    const edited = FILES.tabs.replace('"opus"', '"sonnet"');
    writeFileSync(path, edited);
    expect(() => applyChange(shown)).toThrow(/changed since the change was shown.*Nothing was written/);
    expect(readFileSync(path, "utf8")).toBe(edited);
    expect(backups(path)).toEqual([]);
    // Shown again, against the file as it is now, it is made.
    run(path, "install");
    expect(readFileSync(path, "utf8")).toContain('"sonnet"');
  });

  it("is not written over when it appeared after a plan made without it", () => {
    const path = fileWith(undefined);
    const shown = planChange(path, "install", target);
    writeFileSync(path, "{}\n");
    expect(() => applyChange(shown)).toThrow(/changed since/);
    expect(readFileSync(path, "utf8")).toBe("{}\n");
  });
});
