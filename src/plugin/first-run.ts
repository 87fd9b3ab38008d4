/** The first run: where the memory lives in this vault, asked once, with the likely answer first. */

import { Modal, Setting, type App } from "obsidian";

export interface FolderChoice {
  /** Vault-relative folder, "" for the whole vault. */
  folder: string;
  label: string;
  /** The folder does not exist yet and is made when chosen. */
  create: boolean;
}

export const NEW_FOLDER = "memory";

/**
 * What to offer, best first: each folder that holds a MEMORY.md (Claude Code's memory index, so
 * the memory is likely there), then an existing or new `memory/` folder, then the whole vault.
 */
export function folderChoices(paths: readonly string[], folderExists: (path: string) => boolean): FolderChoice[] {
  const out: FolderChoice[] = [];
  const indexFolders = paths
    .filter((p) => p === "MEMORY.md" || p.endsWith("/MEMORY.md"))
    .map((p) => p.slice(0, Math.max(0, p.length - "/MEMORY.md".length)))
    .sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b));
  for (const folder of indexFolders) {
    out.push({ folder, label: folder === "" ? "The whole vault (it has MEMORY.md at its root)" : `${folder}/ (it has a MEMORY.md)`, create: false });
  }
  if (!out.some((c) => c.folder === NEW_FOLDER)) {
    const exists = folderExists(NEW_FOLDER);
    out.push({ folder: NEW_FOLDER, label: exists ? `${NEW_FOLDER}/` : `A new folder: ${NEW_FOLDER}/`, create: !exists });
  }
  if (!out.some((c) => c.folder === "")) out.push({ folder: "", label: "The whole vault", create: false });
  return out;
}

/** Asks once; `choose` gets the answer, or undefined when the person decides later. */
export class FirstRunModal extends Modal {
  private answered = false;

  constructor(
    app: App,
    private readonly choices: readonly FolderChoice[],
    private readonly choose: (choice: FolderChoice | undefined) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    const { contentEl } = this;
    this.setTitle("Where does Claude's memory live?");
    contentEl.createEl("p", {
      text: "Vault Memory recalls, lints and enriches the notes in one folder, the memory folder: the cards Claude Code has learned. Notes outside it are never shown to Claude. You can change this later in the settings.",
    });
    let selected = this.choices[0];
    new Setting(contentEl)
      .setName("Memory folder")
      .setDesc("A folder with a MEMORY.md is suggested first.")
      .addDropdown((d) => {
        for (const [i, c] of this.choices.entries()) d.addOption(String(i), c.label);
        d.setValue("0");
        d.onChange((v) => {
          selected = this.choices[Number(v)] ?? selected;
        });
      });
    new Setting(contentEl)
      .addButton((b) =>
        b.setButtonText("Decide later").onClick(() => {
          this.close();
        }),
      )
      .addButton((b) =>
        b
          .setButtonText("Use this folder")
          .setCta()
          .onClick(() => {
            this.answered = true;
            this.close();
            this.choose(selected);
          }),
      );
  }

  onClose(): void {
    this.contentEl.empty();
    if (!this.answered) this.choose(undefined);
  }
}
