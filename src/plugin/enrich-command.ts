/** "Enrich cards" in Obsidian: the core's enrich run, with cards read and written through Obsidian. */

import type { App } from "obsidian";
import { SingleRun } from "./notice-run";
import { isCard, type VaultMemoryConfig } from "../core/config";
import { tryCardsLock } from "../core/enrich/cards-lock";
import type { CardStore } from "../core/enrich/store";
import { enrichVault, type EnrichReport } from "../core/enrich/run";

/**
 * The vault as Obsidian has it. Hints go through processFrontMatter, so Obsidian's editor, its
 * metadata cache and any open view of the card see the change as one of its own edits. Each write
 * holds the card lock the digest and the MCP server's writers take, so a section one of them
 * writes cannot land between Obsidian's read and its write; when another holds it, the card is
 * left for the next run rather than the window made to wait.
 */
export function obsidianStore(app: App, vaultPath: string, config: VaultMemoryConfig): CardStore {
  const file = (path: string) => app.vault.getFileByPath(path);
  return {
    list: async () =>
      app.vault
        .getMarkdownFiles()
        .map((f) => f.path)
        .filter((p) => isCard(p, config))
        .sort(),
    read: async (path) => {
      const f = file(path);
      if (!f) throw new Error(`${path} is no longer in the vault`);
      return app.vault.read(f);
    },
    setProperties: async (path, expected, fields) => {
      if (!isCard(path, config)) throw new Error(`${path} is not a card in the memory folder`);
      const release = tryCardsLock(vaultPath);
      if (!release) return "changed";
      try {
        const f = file(path);
        if (!f || (await app.vault.read(f)) !== expected) return "changed";
        await app.fileManager.processFrontMatter(f, (fm: Record<string, unknown>) => {
          for (const [key, value] of Object.entries(fields)) fm[key] = typeof value === "string" ? value : [...value];
        });
        return "written";
      } finally {
        release();
      }
    },
  };
}

export class EnrichRunner {
  private readonly single = new SingleRun();

  constructor(
    private readonly app: App,
    private readonly vaultPath: string,
    private readonly config: () => VaultMemoryConfig,
  ) {}

  /** Runs now, with progress in a notice; a run already going is not started twice. */
  run(): Promise<EnrichReport | undefined> {
    return this.single.start({
      name: "enrich",
      work: (progress) => {
        const config = this.config();
        return enrichVault({ vault: this.vaultPath, config, store: obsidianStore(this.app, this.vaultPath, config), onProgress: progress });
      },
      summary: (report) => {
        const n = report.written.length;
        return report.ok
          ? `Vault Memory: enriched ${n} ${n === 1 ? "card" : "cards"}, ${report.skipped.length} skipped; ${report.left} left.`
          : `Vault Memory enrich stopped: ${report.error ?? "unknown error"} (${n} enriched, ${report.left} left).`;
      },
    });
  }
}
