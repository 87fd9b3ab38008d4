/** Loads the plugin into a fake app as Obsidian would: onload, then layout ready. */

import VaultMemoryPlugin from "../../src/plugin/main";
import type { App } from "../fakes/obsidian";

export async function startPlugin(app: App, layoutReady = true): Promise<VaultMemoryPlugin> {
  const plugin = new VaultMemoryPlugin(app as never, { id: "vault-memory", name: "Vault Memory", version: "0.1.0" } as never);
  await plugin.onload();
  if (layoutReady) app.workspace.setLayoutReady();
  return plugin;
}
