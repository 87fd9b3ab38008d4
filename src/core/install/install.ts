/** Installs the bridge where it stays put and connects it to Claude Code; uninstall undoes exactly that. */

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../io/atomic";
import { vaultFiles } from "../paths";
import { BRIDGE_FILE, type Platform } from "./hook-commands";
import { applyChange, describeChange, planChange, type SettingsChange } from "./settings-file";

/** Where the bridge lives: the plugin's folder when Obsidian installed it, else the hidden folder. */
export function bridgeHome(vault: string, configDir = ".obsidian"): string {
  const pluginDir = join(vault, configDir, "plugins", "vault-memory");
  return existsSync(pluginDir) ? pluginDir : vaultFiles.bin(vault);
}

/** Whether the bridge at `path` is already `source`, so install can say whether it would copy it. */
export function bridgeIsCurrent(path: string, source: string): boolean {
  return existsSync(path) && readFileSync(path, "utf8") === source;
}

/** Writes the bridge's source to `dir`, only when it differs, so hooks never run a half-written file. */
export function writeBridge(dir: string, source: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, BRIDGE_FILE);
  if (!bridgeIsCurrent(path, source)) writeFileAtomic(path, source);
  return path;
}

export interface ConnectOptions {
  settingsPath: string;
  vault: string;
  bridge: string;
  node: string;
  platform: Platform;
}

export function planConnect(o: ConnectOptions, mode: "install" | "uninstall"): { change: SettingsChange; description: string } {
  // Outside Windows a backslash is a plain character that the file URL escapes, and Node's ES module
  // loader refuses such a URL: every hook would fail on every prompt. Uninstall must still work.
  if (mode === "install" && o.platform !== "win32" && o.bridge.includes("\\")) {
    throw new Error(`the path ${o.bridge} has a backslash, and Node cannot run the hooks from there; rename the folder without "\\" and run install again.`);
  }
  const change = planChange(o.settingsPath, mode, { platform: o.platform, node: o.node, bridge: o.bridge, vault: o.vault });
  return { change, description: describeChange(change) };
}

export { applyChange };
