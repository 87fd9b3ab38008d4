/** "Connect Claude Code" and "Check connection": the plugin's side of installing the hooks. */

import { App, Modal, Notice, Setting } from "obsidian";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { resolveBinary } from "../core/llm/llm";
import { BRIDGE_FILE, MCP_SERVER_FILE, type Platform } from "../core/install/hook-commands";
import { applyChange, planConnect, writeBridge, type BridgeFiles } from "../core/install/install";
import { applyMcp, planMcp } from "../core/install/mcp";
import { BRIDGE_FILES, MCP_SERVER_GZIP } from "./bridge-source";
import { homeDir } from "../core/io/home";

export interface ConnectContext {
  vaultPath: string;
  /** Absolute path of the plugin's folder, where the bridge is written. */
  pluginDir: string;
  settingsPath?: string;
  /** Called once Claude Code is connected (the hooks written): the import of earlier sessions is offered then. */
  afterConnect?: () => void;
}

function nodePath(): string | undefined {
  // Inside Obsidian, process.execPath is Electron, not Node: the hooks need the person's Node.
  return resolveBinary("node");
}

export function claudeSettingsPath(ctx: ConnectContext): string {
  return ctx.settingsPath ?? join(homeDir(), ".claude", "settings.json");
}

/**
 * The bridge the plugin writes to its folder: with the MCP server when `withServer` (Connect
 * Claude Code, or a folder that has it already, so an updated plugin keeps it current).
 */
export function pluginBridge(pluginDir: string, withServer = existsSync(join(pluginDir, MCP_SERVER_FILE))): BridgeFiles {
  if (!withServer || !MCP_SERVER_GZIP) return BRIDGE_FILES;
  return { ...BRIDGE_FILES, [MCP_SERVER_FILE]: gunzipSync(Buffer.from(MCP_SERVER_GZIP, "base64")).toString("utf8") };
}

/**
 * Shows the exact change to Claude Code's settings and its MCP servers, and makes it only when the
 * person confirms. The server is registered through the same core function as the terminal's
 * install, with Claude Code's own CLI.
 */
export class ConnectModal extends Modal {
  /** The last confirmed change's end, for tests: the CLI runs after the click returns. */
  done: Promise<void> = Promise.resolve();

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
      plan = planConnect(
        { settingsPath: claudeSettingsPath(this.ctx), vault: this.ctx.vaultPath, bridge, node, platform: process.platform as Platform },
        this.mode,
      );
    } catch (err) {
      contentEl.createEl("p", { text: err instanceof Error ? err.message : String(err), cls: "vault-memory-error" });
      return;
    }
    const mcp = planMcp(this.mode, { node, server: join(this.ctx.pluginDir, MCP_SERVER_FILE), vault: this.ctx.vaultPath }, resolveBinary("claude"));
    const keep = plan.change.backup ? `; the file as it is now is kept in ${plan.change.backup}` : "";
    contentEl.createEl("p", { text: plan.change.changed ? `This change will be made${keep}.` : "Nothing to change in the settings file." });
    contentEl.createEl("pre", { text: plan.description, cls: "vault-memory-preview-text" });
    contentEl.createEl("p", { text: mcp.description, cls: "vault-memory-mcp-plan" });
    if (mcp.action !== "none" && !mcp.claude)
      contentEl.createEl("p", {
        text: "Claude Code's command line was not found, so registering the server is left to you: the line to run is shown after you confirm.",
      });
    if (!plan.change.changed && mcp.action === "none") {
      contentEl.createEl("p", { text: "Nothing to change." });
      return;
    }
    const verb = this.mode === "install" ? "connect" : "disconnect";
    new Setting(contentEl)
      .addButton((b) =>
        b
          .setButtonText(this.mode === "install" ? "Connect" : "Disconnect")
          .setCta()
          .onClick(() => {
            let backup: string | undefined;
            try {
              if (this.mode === "install") writeBridge(this.ctx.pluginDir, pluginBridge(this.ctx.pluginDir, true));
              if (plan.change.changed) backup = applyChange(plan.change);
            } catch (err) {
              // A click handler's error would reach only the developer console.
              new Notice(`Could not ${verb} Claude Code: ${err instanceof Error ? err.message : String(err)}`);
              this.close();
              return;
            }
            const hooks = plan.change.changed
              ? `${this.mode === "install" ? "Connected" : "Disconnected"} Claude Code${backup ? `; backup at ${backup}` : ""}.`
              : "";
            this.close();
            if (this.mode === "install") this.ctx.afterConnect?.();
            // The hooks are in place whatever the CLI does; its answer comes in a second notice.
            this.done = applyMcp(mcp).then(
              (r) =>
                void new Notice(
                  [hooks, r.status === "nothing" ? "" : r.message].filter(Boolean).join("\n"),
                  r.status === "done" || r.status === "nothing" ? undefined : 0,
                ),
              (err: unknown) => void new Notice(`${hooks}\nCould not change the MCP server: ${err instanceof Error ? err.message : String(err)}`, 0),
            );
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
