/** "Connect Claude Code" and "Check connection": the plugin's side of installing the hooks. */

import { App, Modal, Notice, Setting } from "obsidian";
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { join } from "node:path";
import { resolveBinary } from "../core/digest/llm";
import { BRIDGE_FILE, type Platform } from "../core/install/hook-commands";
import { applyChange, planConnect, writeBridge } from "../core/install/install";
import { BRIDGE_FILES } from "./bridge-source";

export interface ConnectContext {
  vaultPath: string;
  /** Absolute path of the plugin's folder, where the bridge is written. */
  pluginDir: string;
  settingsPath?: string;
}

function nodePath(): string | undefined {
  // Inside Obsidian, process.execPath is Electron, not Node: the hooks need the person's Node.
  return resolveBinary("node");
}

export function claudeSettingsPath(ctx: ConnectContext): string {
  return ctx.settingsPath ?? join(homedir(), ".claude", "settings.json");
}

/** Shows the exact change to Claude Code's settings, and makes it only when the person confirms. */
export class ConnectModal extends Modal {
  constructor(
    app: App,
    private readonly ctx: ConnectContext,
    private readonly mode: "install" | "uninstall",
  ) {
    super(app);
  }

  onOpen(): void {
    const { contentEl } = this;
    this.setTitle(this.mode === "install" ? "Connect Claude Code" : "Disconnect Claude Code");
    const node = nodePath();
    if (!node) {
      contentEl.createEl("p", { text: "Node.js was not found on your login shell's path. Install Node.js 20 or newer, then try again." });
      return;
    }
    const bridge = join(this.ctx.pluginDir, BRIDGE_FILE);
    let plan: ReturnType<typeof planConnect>;
    try {
      plan = planConnect({ settingsPath: claudeSettingsPath(this.ctx), vault: this.ctx.vaultPath, bridge, node, platform: process.platform as Platform }, this.mode);
    } catch (err) {
      contentEl.createEl("p", { text: err instanceof Error ? err.message : String(err), cls: "vault-memory-error" });
      return;
    }
    const keep = plan.change.backup ? `; the file as it is now is kept in ${plan.change.backup}` : "";
    contentEl.createEl("p", { text: plan.change.changed ? `This change will be made${keep}.` : "Nothing to change." });
    contentEl.createEl("pre", { text: plan.description, cls: "vault-memory-preview-text" });
    if (!plan.change.changed) return;
    new Setting(contentEl)
      .addButton((b) =>
        b
          .setButtonText(this.mode === "install" ? "Connect" : "Disconnect")
          .setCta()
          .onClick(() => {
            try {
              if (this.mode === "install") writeBridge(this.ctx.pluginDir, BRIDGE_FILES);
              const backup = applyChange(plan.change);
              new Notice(`${this.mode === "install" ? "Connected" : "Disconnected"} Claude Code${backup ? `; backup at ${backup}` : ""}.`);
            } catch (err) {
              // A click handler's error would reach only the developer console.
              new Notice(`Could not ${this.mode === "install" ? "connect" : "disconnect"} Claude Code: ${err instanceof Error ? err.message : String(err)}`);
            }
            this.close();
          }),
      )
      .addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()));
  }

  onClose(): void {
    this.contentEl.empty();
  }
}

export interface ConnectionCheck {
  ok: boolean;
  ms: number;
  output: string;
  error: string;
}

/** Runs the installed bridge the way Claude Code does, with a sample hook payload and a test prompt. */
export function checkConnection(ctx: ConnectContext, prompt: string): ConnectionCheck {
  const node = nodePath();
  if (!node) return { ok: false, ms: 0, output: "", error: "Node.js was not found on your login shell's path." };
  const bridge = join(ctx.pluginDir, BRIDGE_FILE);
  const payload = JSON.stringify({ session_id: `check-${Date.now()}`, transcript_path: "", cwd: "", hook_event_name: "UserPromptSubmit", prompt });
  const started = Date.now();
  const r = spawnSync(node, [bridge, "recall", "--vault", ctx.vaultPath], { input: payload, encoding: "utf8", timeout: 10_000 });
  const ms = Date.now() - started;
  if (r.error || r.status !== 0) return { ok: false, ms, output: r.stdout ?? "", error: r.error ? String(r.error) : `exit ${r.status}: ${r.stderr}` };
  return { ok: true, ms, output: r.stdout, error: "" };
}
