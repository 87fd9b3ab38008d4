/** `install` and `uninstall`: connect the bridge to Claude Code's settings, showing the change first. */

import { writeSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { stringFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { applyChange, bridgeHome, bridgeIsCurrent, planConnect, readBridge, writeBridge } from "../../../src/core/install/install";
import { resolveBinary } from "../../../src/core/digest/llm";
import { BRIDGE_FILE, type Platform } from "../../../src/core/install/hook-commands";
import { saveUserSettings, userFileOf } from "../../../src/core/machine-config";
import { planTrust } from "./trust";

export function installCommand(args: Args, mode: "install" | "uninstall"): number {
  const vault = vaultFlag(args);
  const settingsPath = stringFlag(args, "settings") ?? join(homedir(), ".claude", "settings.json");
  const platform = process.platform as Platform;
  const home = bridgeHome(vault);
  const bridge = join(home, BRIDGE_FILE);
  const node = resolveBinary("node") ?? process.execPath;
  // Planned first, so a settings file that would be refused leaves no bridge copy behind either.
  const { change, description } = planConnect({ settingsPath, vault, bridge, node, platform }, mode);
  // The running bridge copies itself to a stable place: a clone or an npm cache may move.
  const source = mode === "install" ? readBridge(selfPath()) : undefined;
  const copy = source !== undefined && !bridgeIsCurrent(home, source);
  writeSync(1, description);
  // Connecting is the person's own act on this machine, so it is where the vault's settings for
  // what runs and where text goes move to this machine's file, shown first like the rest.
  const userFile = userFileOf(stringFlag(args, "config"));
  const trust = mode === "install" ? planTrust(vault, userFile) : { settings: {}, lines: [] };
  if (trust.lines.length > 0) writeSync(1, `\nThe vault's config.json sets what runs and where your text goes; on this computer these are read only from ${userFile}:\n${trust.lines.join("\n")}\n`);
  if (!change.changed && !copy && trust.lines.length === 0) return 0;
  if (!args.flags.has("yes") || args.flags.has("dry-run")) {
    writeSync(
      1,
      `${copy ? `\nWould copy the bridge to ${bridge}` : ""}${trust.lines.length > 0 ? `\nWould copy those settings to ${userFile}` : ""}${change.changed && change.backup ? `\nWould keep ${settingsPath} as it is now in ${change.backup}` : ""}\nNothing was written. Run again with --yes to ${mode === "install" ? "connect" : "disconnect"} Claude Code.\n`,
    );
    return 0;
  }
  if (trust.lines.length > 0) {
    saveUserSettings(userFile, vault, trust.settings);
    writeSync(1, `\nCopied those settings to ${userFile}; the vault's copy is never used.\n`);
  }
  // The bridge before the settings, so no hook ever points at a file that is not there yet.
  if (source !== undefined && copy) writeSync(1, `\nCopied the bridge to ${writeBridge(home, source)}\n`);
  if (!change.changed) return 0;
  const backup = applyChange(change);
  writeSync(1, `\n${mode === "install" ? "Connected" : "Disconnected"}: ${settingsPath}${backup ? ` (backup: ${backup})` : ""}\n`);
  return 0;
}

function selfPath(): string {
  const self = process.argv[1];
  if (!self) throw new Error("cannot tell where this bridge file is; run it as `node <path>/vault-memory.cjs install`");
  return self;
}
