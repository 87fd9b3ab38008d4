/** `install` and `uninstall`: connect the bridge to Claude Code's settings, showing the change first. */

import { readFileSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { stringFlag, type Args } from "../args";
import { vaultFlag } from "../vault";
import { applyChange, bridgeHome, planConnect, writeBridge } from "../../../src/core/install/install";
import { resolveBinary } from "../../../src/core/digest/llm";
import type { Platform } from "../../../src/core/install/hook-commands";

export function installCommand(args: Args, mode: "install" | "uninstall"): number {
  const vault = vaultFlag(args);
  const settingsPath = stringFlag(args, "settings") ?? join(homedir(), ".claude", "settings.json");
  const platform = process.platform as Platform;
  // The running bridge copies itself to a stable place: a clone or an npm cache may move.
  const self = process.argv[1];
  if (!self) throw new Error("cannot tell where this bridge file is; run it as `node <path>/vault-memory.mjs install`");
  const bridge = mode === "install" && !args.flags.has("dry-run") ? writeBridge(bridgeHome(vault), readFileSync(self, "utf8")) : join(bridgeHome(vault), "vault-memory.mjs");
  const node = resolveBinary("node") ?? process.execPath;
  const { change, description } = planConnect({ settingsPath, vault, bridge, node, platform }, mode);
  writeSync(1, description);
  if (!change.changed) return 0;
  if (!args.flags.has("yes")) {
    writeSync(1, `\nNothing was written. Run again with --yes to ${mode === "install" ? "connect" : "disconnect"} Claude Code.\n`);
    return 0;
  }
  const backup = applyChange(change);
  writeSync(1, `\n${mode === "install" ? "Connected" : "Disconnected"}: ${settingsPath}${backup ? ` (backup: ${backup})` : ""}\n`);
  return 0;
}
