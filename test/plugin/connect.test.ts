// @vitest-environment happy-dom
import { readFileSync, writeFileSync } from "node:fs";
import { BRIDGE_FILES } from "../../src/core/install/hook-commands";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkConnection, ConnectModal } from "../../src/plugin/connect";
import { App } from "../fakes/obsidian";
import { copyVault, ROOT, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";

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
    expect(Object.keys(settings.hooks)).toEqual(["UserPromptSubmit", "Stop", "SessionStart"]);
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
    const modal = new ConnectModal(new App(vault) as never, { vaultPath: vault, pluginDir: join(vault, ".obsidian", "plugins", "vault-memory"), settingsPath }, "install");
    modal.open();
    expect(modal.contentEl.querySelector(".vault-memory-error")?.textContent).toMatch(/backslash/);
    expect(modal.contentEl.querySelectorAll("button")).toHaveLength(0);
  });
});
