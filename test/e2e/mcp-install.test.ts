/**
 * The terminal install registers the MCP server with the real Claude Code CLI, in a HOME of its
 * own, and uninstall removes it, leaving the rest of ~/.claude.json as it was.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { bridgeHome } from "../../src/core/install/install";
import { BRIDGE, SAMPLE_VAULT, copyVault, runBridge, tempDir } from "../helpers";
import { CLAUDE, claudeAvailable } from "./claude-driver";

describe.skipIf(!claudeAvailable)("the MCP server, registered by install with the real Claude Code CLI", () => {
  const home = tempDir("vm-home-");
  const bin = join(tempDir(), "bin");
  mkdirSync(bin);
  symlinkSync(CLAUDE, join(bin, "claude"));
  // The person's own file: other servers, projects, counters the CLI keeps.
  const mine = {
    numStartups: 7,
    mcpServers: { other: { type: "stdio", command: "other-server", args: ["--flag"], env: { TOKEN: "x" } } },
    projects: { "/home/me/work": { allowedTools: ["Bash(ls)"] } },
  };
  writeFileSync(join(home, ".claude.json"), JSON.stringify(mine, null, 2));
  mkdirSync(join(home, ".claude"));
  const settings = join(home, ".claude", "settings.json");
  writeFileSync(settings, '{\n  "model": "opus"\n}\n');
  // Only what a terminal has: no CLAUDE_CONFIG_DIR (the tests' own), claude and node on PATH.
  const { CLAUDE_CONFIG_DIR: _ignored, ...rest } = process.env;
  const env = {
    ...rest,
    HOME: home,
    PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
    SHELL: "/bin/sh",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
  };
  const bridge = (args: string[]) => spawnSync(process.execPath, [BRIDGE, ...args], { env, encoding: "utf8", cwd: home });
  const claude = (args: string[]) => spawnSync(CLAUDE, args, { env, encoding: "utf8", cwd: home });
  const file = () =>
    JSON.parse(readFileSync(join(home, ".claude.json"), "utf8")) as typeof mine & { mcpServers: Record<string, { command: string; args: string[] }> };

  it("shows it would register the server, registers it with --yes, and claude lists it and connects to it", () => {
    const vault = copyVault(SAMPLE_VAULT, "MCP Vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const look = bridge(["install", "--vault", vault, "--settings", settings]);
    expect(look.status, look.stderr).toBe(0);
    expect(look.stdout).toContain("would be registered at Claude Code's user scope: claude mcp add --scope user vault-memory -- ");
    expect(look.stdout).toContain("Would register the MCP server with `claude mcp`");
    expect(file().mcpServers["vault-memory"]).toBeUndefined();

    const r = bridge(["install", "--vault", vault, "--settings", settings, "--yes"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Registered the MCP server vault-memory in Claude Code (user scope, every project).");
    const server = join(bridgeHome(vault, ".obsidian", { ...process.env, HOME: home }), "vault-memory-mcp.cjs");
    expect(file().mcpServers["vault-memory"]).toMatchObject({ command: process.execPath, args: [server, "--vault", vault] });
    const get = claude(["mcp", "get", "vault-memory"]);
    expect(get.stdout).toContain("Scope: User config");
    expect(get.stdout).toContain(`Args: ${server} --vault ${vault}`);
    // The health check starts the copied server, which answers.
    expect(get.stdout).toMatch(/Status: \S+ Connected/);
    expect(claude(["mcp", "list"]).stdout).toMatch(/^vault-memory: .*vault-memory-mcp\.cjs --vault .* - \S+ Connected$/m);
    // The person's other entries are as they were.
    expect(file().mcpServers.other).toEqual(mine.mcpServers.other);
    expect(file().numStartups).toBe(7);
    expect(file().projects["/home/me/work"]).toEqual(mine.projects["/home/me/work"]);

    const before = readFileSync(join(home, ".claude.json"), "utf8");
    const again = bridge(["install", "--vault", vault, "--settings", settings, "--yes"]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("The MCP server vault-memory is registered in Claude Code already.");
    expect(readFileSync(join(home, ".claude.json"), "utf8")).toBe(before);

    // Another vault takes the name over, saying so; uninstalling the first leaves it alone.
    const second = copyVault(SAMPLE_VAULT, "Second Vault");
    const other = bridge(["install", "--vault", second, "--settings", settings, "--yes"]);
    expect(other.status, other.stderr).toBe(0);
    expect(other.stdout).toContain(`The MCP server vault-memory runs ${process.execPath} ${server} --vault '${vault}'; it would be replaced`);
    expect(file().mcpServers["vault-memory"].args[2]).toBe(second);
    const firstOut = bridge(["uninstall", "--vault", vault, "--settings", settings, "--yes"]);
    expect(firstOut.stdout).toContain("not this vault's; it is left as it is");
    expect(file().mcpServers["vault-memory"].args[2]).toBe(second);

    const out = bridge(["uninstall", "--vault", second, "--settings", settings, "--yes"]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain("Removed the MCP server vault-memory from Claude Code.");
    expect(claude(["mcp", "get", "vault-memory"]).status).not.toBe(0);
    expect(file().mcpServers).toEqual(mine.mcpServers);
    expect(file().numStartups).toBe(7);
    expect(readFileSync(settings, "utf8")).toBe('{\n  "model": "opus"\n}\n');
  });
});

describe.runIf(process.platform !== "win32")("install without a working claude CLI", () => {
  const setup = (script?: string) => {
    const home = tempDir("vm-home-");
    const bin = join(tempDir(), "bin");
    mkdirSync(bin);
    if (script) {
      writeFileSync(join(bin, "claude"), script, { mode: 0o755 });
    }
    const { CLAUDE_CONFIG_DIR: _ignored, ...rest } = process.env;
    // /bin/false as the login shell: nothing is found outside this PATH.
    const env = { ...rest, HOME: home, PATH: [bin, dirname(process.execPath)].join(":"), SHELL: "/bin/false" };
    const settings = join(home, "settings.json");
    writeFileSync(settings, "{}\n");
    return { env, settings, vault: copyVault(SAMPLE_VAULT) };
  };

  it("connects the hooks and prints the exact line to register the server, exit 0", () => {
    const { env, settings, vault } = setup();
    const r = spawnSync(process.execPath, [BRIDGE, "install", "--vault", vault, "--settings", settings, "--yes"], { env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Connected: ");
    expect(r.stdout).toMatch(
      /Claude Code's CLI \(claude\) was not found on your PATH or your login shell's; to register the MCP server vault-memory, run:\n {2}claude mcp add --scope user vault-memory -- .*vault-memory-mcp\.cjs --vault /,
    );
  });

  it("connects the hooks, then says the CLI failed with its message and exits 1", () => {
    const { env, settings, vault } = setup('#!/bin/sh\necho "API Error: something broke" >&2\nexit 3\n');
    const r = spawnSync(process.execPath, [BRIDGE, "install", "--vault", vault, "--settings", settings, "--yes"], { env, encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(readFileSync(settings, "utf8")).toContain("vault-memory.cjs");
    expect(r.stderr).toContain("claude mcp add failed: API Error: something broke");
    expect(r.stderr).toContain("To register the MCP server by hand, run:\n  claude mcp add --scope user vault-memory -- ");
  });
});
