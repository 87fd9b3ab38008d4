/** Loads the plugin into a fake app as Obsidian would: onload, then layout ready. */

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import VaultMemoryPlugin from "../../src/plugin/main";
import type { App } from "../fakes/obsidian";

/**
 * `setUp`: the vault has had the plugin before (an empty data.json), so the first run's question
 * is not asked; the first-run tests pass false.
 */
export async function startPlugin(app: App, layoutReady = true, setUp = true): Promise<VaultMemoryPlugin> {
  const data = join(app.vault.basePath, app.vault.configDir, "plugins", "vault-memory", "data.json");
  if (setUp && !existsSync(data)) {
    mkdirSync(join(data, ".."), { recursive: true });
    writeFileSync(data, "{}");
  }
  const plugin = new VaultMemoryPlugin(app as never, { id: "vault-memory", name: "Vault Memory", version: "0.1.0" } as never);
  await plugin.onload();
  if (layoutReady) app.workspace.setLayoutReady();
  return plugin;
}
