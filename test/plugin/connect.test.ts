// @vitest-environment happy-dom
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { BRIDGE_FILES, MCP_SERVER_FILE, OUR_HOOKS } from "../../src/core/install/hook-commands";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkConnection, ConnectModal } from "../../src/plugin/connect";
import { App, Notice } from "../fakes/obsidian";
import { copyVault, ROOT, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { CLAUDE, claudeAvailable } from "../e2e/claude-driver";

describe("Connect Claude Code", () => {
  it("shows the change, writes the embedded bridge and the hooks on confirm, and the connection check answers", () => {
    const vault = copyVault(SAMPLE_VAULT, "Connect Vault");
    runBridge(["index", "--vault", vault]);
    const pluginDir = join(vault, ".obsidian", "plugins", "vault-memory");
    const settingsPath = join(tempDir(), "settings.json");
    writeFileSync(settingsPath, '{\n  "model": "sonnet"\n}\n');
    const ctx = { vaultPath: vault, pluginDir, settingsPath };
    const modal = new ConnectModal(new App(vault) as never, ctx, "install");
    modal.open();
    expect(modal.contentEl.querySelector("pre")?.textContent).toMatch(/\+ .*"UserPromptSubmit"/);
    expect(readFileSync(settingsPath, "utf8")).toBe('{\n  "model": "sonnet"\n}\n');
    [...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Connect")!.click();
    for (const name of BRIDGE_FILES) expect(readFileSync(join(pluginDir, name), "utf8")).toBe(readFileSync(join(ROOT, "hook-bridge", "dist", name), "utf8"));
    const settings = JSON.parse(readFileSync(settingsPath, "utf8")) as { model: string; hooks: Record<string, unknown[]> };
    expect(settings.model).toBe("sonnet");
    expect(Object.keys(settings.hooks).sort()).toEqual([...new Set(OUR_HOOKS.map((h) => h.event))].sort());
    const check = checkConnection(ctx, "为什么排程跑不起来");
    expect(check.ok).toBe(true);
    expect(check.output).toContain("launchd-cron-path.md");
    const again = new ConnectModal(new App(vault) as never, ctx, "install");
    again.open();
    expect(again.contentEl.textContent).toContain("Nothing to change");
  });

  it.runIf(process.platform !== "win32")("refuses a vault whose path has a backslash, offering nothing to confirm", () => {
    const vault = copyVault(SAMPLE_VAULT, "back\\slash");
    const settingsPath = join(tempDir(), "settings.json");
    writeFileSync(settingsPath, "{}\n");
    const modal = new ConnectModal(
      new App(vault) as never,
      { vaultPath: vault, pluginDir: join(vault, ".obsidian", "plugins", "vault-memory"), settingsPath },
      "install",
    );
    modal.open();
    expect(modal.contentEl.querySelector(".vault-memory-error")?.textContent).toMatch(/backslash/);
    expect(modal.contentEl.querySelectorAll("button")).toHaveLength(0);
  });
});

describe("Connect Claude Code and the MCP server", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const rig = (claude?: string) => {
    const vault = copyVault(SAMPLE_VAULT, "MCP Connect Vault");
    runBridge(["index", "--vault", vault]);
    const pluginDir = join(vault, ".obsidian", "plugins", "vault-memory");
    const settingsPath = join(tempDir(), "settings.json");
    writeFileSync(settingsPath, "{}\n");
    const bin = join(tempDir(), "bin");
    mkdirSync(bin);
    if (claude) symlinkSync(claude, join(bin, "claude"));
    const config = tempDir("vm-claude-");
    vi.stubEnv("PATH", [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(":"));
    // Nothing found through the login shell either: only this PATH.
    vi.stubEnv("SHELL", "/bin/false");
    vi.stubEnv("CLAUDE_CONFIG_DIR", config);
    vi.stubEnv("HOME", config);
    return { vault, pluginDir, ctx: { vaultPath: vault, pluginDir, settingsPath }, claudeFile: join(config, ".claude.json") };
  };
  const click = async (modal: ConnectModal, label: string) => {
    [...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === label)!.click();
    await modal.done;
  };

  it("writes the MCP server beside the bridge and shows the line to register it when there is no claude", async () => {
    const { vault, pluginDir, ctx } = rig();
    const modal = new ConnectModal(new App(vault) as never, ctx, "install");
    modal.open();
    expect(modal.contentEl.querySelector(".vault-memory-mcp-plan")?.textContent).toContain(
      "would be registered at Claude Code's user scope: claude mcp add --scope user vault-memory -- ",
    );
    Notice.shown.length = 0;
    await click(modal, "Connect");
    expect(readFileSync(join(pluginDir, MCP_SERVER_FILE), "utf8")).toBe(readFileSync(join(ROOT, "hook-bridge", "dist", MCP_SERVER_FILE), "utf8"));
    const said = Notice.shown.map((n) => n.message).join("\n");
    expect(said).toContain("Connected Claude Code");
    expect(said).toContain(`run:\n  claude mcp add --scope user vault-memory -- `);
    expect(said).toContain(`'${join(pluginDir, MCP_SERVER_FILE)}' --vault '${vault}'`);
  });

  it.runIf(claudeAvailable)("registers the server with the real claude, and Disconnect removes it", async () => {
    const { vault, pluginDir, ctx, claudeFile } = rig(CLAUDE);
    writeFileSync(claudeFile, JSON.stringify({ mcpServers: { other: { command: "x", args: [] } } }));
    const modal = new ConnectModal(new App(vault) as never, ctx, "install");
    modal.open();
    Notice.shown.length = 0;
    await click(modal, "Connect");
    expect(Notice.shown.map((n) => n.message).join("\n")).toContain("Registered the MCP server vault-memory in Claude Code");
    const servers = () => (JSON.parse(readFileSync(claudeFile, "utf8")) as { mcpServers: Record<string, { args: string[] }> }).mcpServers;
    expect(servers()["vault-memory"].args).toEqual([join(pluginDir, MCP_SERVER_FILE), "--vault", vault]);
    const again = new ConnectModal(new App(vault) as never, ctx, "install");
    again.open();
    expect(again.contentEl.textContent).toContain("is registered in Claude Code already");
    expect(again.contentEl.querySelectorAll("button")).toHaveLength(0);
    const out = new ConnectModal(new App(vault) as never, ctx, "uninstall");
    out.open();
    await click(out, "Disconnect");
    expect(Object.keys(servers())).toEqual(["other"]);
    expect(existsSync(join(pluginDir, MCP_SERVER_FILE))).toBe(true);
  });
});
