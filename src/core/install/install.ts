/** Installs the bridge where it stays put and connects it to Claude Code; uninstall undoes exactly that. */

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { readTextFile } from "../io/read-file";
import { basename, dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "../io/atomic";
import { fnv1aString } from "../io/hash";
import { BRIDGE_FILE, BRIDGE_FILES, MCP_SERVER_FILE, type Platform } from "./hook-commands";
import { applyChange, describeChange, planChange, type SettingsChange } from "./settings-file";
import { homeDir } from "../io/home";
import { windowsDataDir } from "./schedule-windows";

/**
 * Where the bridge lives: the plugin's folder when Obsidian installed it (Obsidian runs the
 * plugin's own code from there already), else a folder of the person's own data, one per vault.
 * Never a folder inside the vault otherwise: the hooks run it on every prompt, and a vault may be
 * written by a sync, a git pull or someone who shares it.
 */
export function bridgeHome(vault: string, configDir = ".obsidian", env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const pluginDir = join(vault, configDir, "plugins", "vault-memory");
  if (existsSync(pluginDir)) return pluginDir;
  return join(
    userDataDir(env, platform),
    "bridges",
    `${basename(resolve(vault))
      .replace(/[^\w.-]+/g, "_")
      .slice(0, 40)}-${vaultId(vault)}`,
  );
}

/** A short, stable name for a vault among the person's others: the bridge's folder and the schedule's units carry it. */
export function vaultId(vault: string): string {
  return fnv1aString(resolve(vault)).toString(16).padStart(8, "0");
}

/** The person's data folder: XDG's on Linux, Application Support on macOS, LocalAppData on Windows. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith("/")) return join(env.XDG_DATA_HOME, "vault-memory");
  const home = homeDir(env);
  if (platform === "win32") return windowsDataDir(env, home);
  if (platform === "darwin") return join(home, "Library", "Application Support", "vault-memory");
  return join(home, ".local", "share", "vault-memory");
}

/** A bridge copy: the text of each of BRIDGE_FILES, and of MCP_SERVER_FILE when it goes too. */
export type BridgeFiles = Readonly<Record<string, string>>;

/** The files a copy holds: the server first when it is there, the entry last. */
function namesOf(files: BridgeFiles): string[] {
  return [...(MCP_SERVER_FILE in files ? [MCP_SERVER_FILE] : []), ...BRIDGE_FILES];
}

/**
 * The bridge beside `entry` (a running bridge's own files, say), with the MCP server's bundle;
 * throws if one is missing. Read plainly: these are the files of the build that is running, not
 * files anyone may have put there.
 */
export function readBridge(entry: string): BridgeFiles {
  const dir = dirname(entry);
  return Object.fromEntries(
    [MCP_SERVER_FILE, ...BRIDGE_FILES].map((name) => {
      try {
        return [name, readFileSync(join(dir, name), "utf8")];
      } catch {
        throw new Error(`${join(dir, name)} is missing; run \`npm run build\` and install again`);
      }
    }),
  );
}

/** Whether the bridge in `dir` is already `files`, so install can say whether it would copy it. */
export function bridgeIsCurrent(dir: string, files: BridgeFiles): boolean {
  return namesOf(files).every((name) => {
    const path = join(dir, name);
    return holds(path, files[name]);
  });
}

/** Whether `path` is a regular file holding `text`; what is not one (a FIFO, another file) is not. */
function holds(path: string, text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    return readTextFile(path, { maxBytes: Buffer.byteLength(text) }) === text;
  } catch {
    return false;
  }
}

/**
 * Writes the bridge's files to `dir`, each only when it differs and each atomically, the entry
 * last, so hooks never run a half-written file. Returns the entry's path.
 */
export function writeBridge(dir: string, files: BridgeFiles): string {
  // Only the person may write what their hooks run.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const name of namesOf(files)) {
    const text = files[name];
    if (typeof text !== "string" || text === "") throw new Error(`the bridge's ${name} is missing from this build`);
    const path = join(dir, name);
    if (!holds(path, text)) writeFileAtomic(path, text);
  }
  return join(dir, BRIDGE_FILE);
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
