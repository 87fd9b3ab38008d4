/** "Restore archived card": an archived card given back to recall in one step, through Obsidian's own frontmatter editor. */

import { Notice, type App, type Plugin } from "obsidian";
import { ARCHIVE_KEYS } from "../core/card/schema";
import { escapeControl } from "../core/text/visible";

/** Registers the command; it is offered only while the open note is an archived card. */
export function addRestoreCommand(plugin: Plugin, app: App): void {
  plugin.addCommand({
    id: "restore-archived-card",
    name: "Restore archived card",
    checkCallback: (checking) => {
      const file = app.workspace.getActiveFile();
      const status: unknown = file ? app.metadataCache.getFileCache(file)?.frontmatter?.status : undefined;
      if (!file || typeof status !== "string" || status.toLowerCase() !== "archived") return false;
      if (!checking)
        void app.fileManager
          .processFrontMatter(file, (fm: Record<string, unknown>) => {
            for (const key of ARCHIVE_KEYS) delete fm[key];
          })
          .then(
            () => new Notice(`Restored ${escapeControl(file.path)}: recall shows it again.`),
            (err: unknown) => new Notice(`Could not restore ${escapeControl(file.path)}: ${err instanceof Error ? err.message : String(err)}`),
          );
      return true;
    },
  });
}
