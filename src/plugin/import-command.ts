/**
 * "Import earlier Claude Code sessions": the bridge's `import` in a process of its own, offered
 * once on this device after Claude Code is connected, and in the command palette from then on.
 */

import { Modal, Setting, type App } from "obsidian";
import { SingleRun } from "./notice-run";
import type { VaultMemoryConfig } from "../core/config";
import { runImportChild, type ImportOutcome } from "../core/queue/import-child";
import { importLines } from "../core/queue/import";
import type { BridgeRunner } from "./digest-scheduler";

/** This device's note that the import was offered: the transcripts are this computer's, not the vault's. */
export const IMPORT_OFFERED_KEY = "vault-memory-import-offered";

// Long enough to read what was queued and what was passed by.
const READ_MS = 20_000;

export class ImportRunner {
  private readonly single = new SingleRun();

  constructor(
    private readonly vaultPath: string,
    private readonly config: () => VaultMemoryConfig,
    private readonly runner: () => BridgeRunner,
    private readonly log: (line: string) => void,
  ) {}

  get isRunning(): boolean {
    return this.single.busy;
  }

  /** Reads the transcripts and queues what is worth keeping; its progress and outcome in notices. */
  run(): Promise<ImportOutcome | undefined> {
    return this.single.start({
      name: "import",
      work: async (progress) => {
        const r = this.runner();
        const outcome = await runImportChild({ ...r, vault: this.vaultPath, config: this.config(), onProgress: progress });
        this.log(`import: ${outcome.error ?? importLines(outcome, this.config().digest.maxEntries).join("; ")}`);
        return outcome;
      },
      summary: (o) =>
        o.error ? `Vault Memory import stopped: ${o.error}` : `Vault Memory import: ${importLines(o, this.config().digest.maxEntries).join("\n")}`,
      duration: () => READ_MS,
    });
  }
}

/** Asks, once, whether to queue the sessions Claude Code kept from before the install. */
export class ImportOfferModal extends Modal {
  constructor(
    app: App,
    private readonly perNight: number,
    private readonly onImport: () => void,
  ) {
    super(app);
  }

  onOpen(): void {
    const { contentEl } = this;
    this.setTitle("Import earlier sessions?");
    contentEl.createEl("p", {
      text: "Claude Code keeps the conversations of your earlier sessions on this computer. Vault Memory can queue the ones worth keeping, by the same rules as new sessions and with secrets and private passages removed.",
    });
    contentEl.createEl("p", {
      text: `The nightly digest turns them into cards, up to ${this.perNight} a night after each day's own conversations, newest first. Nothing leaves this computer until the digest runs. You can import later with the "Import earlier Claude Code sessions" command.`,
    });
    new Setting(contentEl)
      .addButton((b) =>
        b
          .setButtonText("Import")
          .setCta()
          .onClick(() => {
            this.close();
            this.onImport();
          }),
      )
      .addButton((b) => b.setButtonText("Not now").onClick(() => this.close()));
  }

  onClose(): void {
    this.contentEl.empty();
  }
}
