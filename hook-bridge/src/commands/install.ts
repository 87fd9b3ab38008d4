/**
 * `install` and `uninstall`: connect the bridge to Claude Code's settings and register its MCP
 * server, showing the change first.
 */

import { lstatSync, realpathSync, writeSync } from "node:fs";
import { join, sep } from "node:path";
import { stringFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { applyChange, bridgeHome, bridgeIsCurrent, planConnect, readBridge, writeBridge } from "../../../src/core/install/install";
import { resolveBinary } from "../../../src/core/llm/llm";
import { BRIDGE_FILE, MCP_SERVER_FILE, type Platform } from "../../../src/core/install/hook-commands";
import { applyMcp, planMcp } from "../../../src/core/install/mcp";
import { saveUserSettings, userFileOf } from "../../../src/core/machine-config";
import { planTrust } from "./trust";
import { homeDir } from "../../../src/core/io/home";
import { firstRecall } from "./install-check";
import { planCleanup } from "./uninstall-cleanup";
import { moveAside, removedDir } from "../../../src/core/install/schedule";

/**
 * Exit 0 when everything asked for is done, or the MCP server is left for the person to register
 * (no claude found: the line to run is printed). Exit 1 when the claude CLI failed: the hooks are
 * connected by then, and running install again retries only the server.
 */
export async function installCommand(args: Args, mode: "install" | "uninstall"): Promise<number> {
  const vault = vaultFlag(args);
  const settingsPath = stringFlag(args, "settings") ?? join(homeDir(), ".claude", "settings.json");
  const platform = process.platform as Platform;
  const home = bridgeHome(vault);
  const bridge = join(home, BRIDGE_FILE);
  const node = resolveBinary("node") ?? process.execPath;
  // Planned first, so a settings file that would be refused leaves no bridge copy behind either.
  const { change, description } = planConnect({ settingsPath, vault, bridge, node, platform }, mode);
  // The running bridge copies itself to a stable place: a clone or an npm cache may move.
  const source = mode === "install" ? readBridge(selfPath()) : undefined;
  const copy = source !== undefined && !bridgeIsCurrent(home, source);
  const mcp = planMcp(mode, { node, server: join(home, MCP_SERVER_FILE), vault }, resolveBinary("claude"));
  writeSync(1, `${description}\n${mcp.description}\n`);
  // Connecting is the person's own act on this machine, so it is where the vault's settings for
  // what runs and where text goes move to this machine's file, shown first like the rest.
  const userFile = userFileOf(stringFlag(args, "config"));
  const trust = mode === "install" ? planTrust(vault, userFile) : { settings: {}, lines: [] };
  if (trust.lines.length > 0)
    writeSync(
      1,
      `\nThe vault's config.json sets what runs and where your text goes; on this computer these are read only from ${userFile}:\n${trust.lines.join("\n")}\n`,
    );
  const cleanup = mode === "uninstall" ? planCleanup(home, vault) : undefined;
  // A settings file uninstall leaves holding nothing but {} goes aside, as if install had never made it.
  const emptied = mode === "uninstall" && change.changed && change.after.trim() === "{}" && isPlainFile(settingsPath);
  const tidy = (cleanup?.lines ?? []).some((l) => l.startsWith("Would "));
  if (!change.changed && !copy && trust.lines.length === 0 && mcp.action === "none" && !tidy) return 0;
  if (!args.flags.has("yes") || args.flags.has("dry-run")) {
    const would = [
      copy ? `Would copy the bridge to ${bridge}, and the MCP server beside it` : "",
      trust.lines.length > 0 ? `Would copy those settings to ${userFile}` : "",
      change.changed && change.backup ? `Would keep ${settingsPath} as it is now in ${change.backup}` : "",
      mcp.action !== "none"
        ? `Would ${mcp.action === "remove" ? "remove" : "register"} the MCP server ${mcp.claude ? "with" : "by printing the line for"} \`claude mcp\``
        : "",
      emptied ? `Would move ${settingsPath}, then holding nothing but {}, to ${removedDir()}${sep}` : "",
      ...(cleanup?.lines ?? []),
    ].filter(Boolean);
    writeSync(
      1,
      `\n${would.join("\n")}${would.length > 0 ? "\n" : ""}Nothing was written. Run again with --yes to ${mode === "install" ? "connect" : "disconnect"} Claude Code.\n`,
    );
    return 0;
  }
  if (trust.lines.length > 0) {
    saveUserSettings(userFile, vault, trust.settings);
    writeSync(1, `\nCopied those settings to ${userFile}; the vault's copy is never used.\n`);
  }
  // The bridge before the settings, so no hook ever points at a file that is not there yet.
  if (source !== undefined && copy) writeSync(1, `\nCopied the bridge to ${writeBridge(home, source)}, and the MCP server beside it\n`);
  if (change.changed) {
    const backup = applyChange(change);
    writeSync(1, `\n${mode === "install" ? "Connected" : "Disconnected"}: ${settingsPath}${backup ? ` (backup: ${backup})` : ""}\n`);
    if (emptied) writeSync(1, `Moved ${settingsPath}, now holding nothing but {}, to ${moveAside(settingsPath)}: Claude Code reads no file as it reads {}\n`);
  }
  // Last: the hooks work whatever the claude CLI does.
  const outcome = await applyMcp(mcp);
  if (outcome.status !== "nothing") writeSync(outcome.status === "failed" ? 2 : 1, `\n${outcome.message}\n`);
  if (mode === "install" && change.changed) await firstRecall(args, vault, node, bridge);
  const tidied = cleanup?.apply() ?? [];
  if (tidied.length > 0) writeSync(1, `\n${tidied.join("\n")}\n`);
  return outcome.status === "failed" ? 1 : 0;
}

/**
 * This bridge's entry, which install and schedule copy to the bridge's stable folder. Run as the
 * `vault-memory` command, the script is npm's link in `node_modules/.bin`: the bridge's other
 * files are beside the file the link leads to, not beside the link.
 */
export function selfPath(): string {
  const self = process.argv[1];
  if (!self) throw new Error("cannot tell where this bridge file is; run it as `vault-memory install` or `node <path>/vault-memory.cjs install`");
  return realpathSync(self);
}

/** Whether `path` is a regular file, not a link to one (a dotfiles repository's), which uninstall leaves where it is. */
function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
