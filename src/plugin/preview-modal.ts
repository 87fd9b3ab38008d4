/** "Preview recall": type a prompt, see exactly what Claude would receive for it. */

import { App, Keymap, Modal, Setting, TFile } from "obsidian";
import type { Recall } from "../core/recall/recall";
import { escapeControl } from "../core/text/visible";

export class PreviewRecallModal extends Modal {
  private prompt = "";
  private output!: HTMLElement;

  constructor(
    app: App,
    private readonly preview: (prompt: string) => Recall,
    /** With semantic recall on: the same, with meaning fused in, and why not when it could not be. */
    private readonly withMeaning?: (prompt: string) => Promise<{ recall: Recall; semantic: string }>,
  ) {
    super(app);
  }

  onOpen(): void {
    const { contentEl } = this;
    contentEl.addClass("vault-memory-preview");
    this.setTitle("Preview recall");
    new Setting(contentEl)
      .setName("Prompt")
      .setDesc("Write a prompt as you would to Claude Code.")
      .addTextArea((text) =>
        text.setPlaceholder("Why does my nightly job fail? 为什么夜间任务会失败？").onChange((value) => {
          this.prompt = value;
        }),
      );
    new Setting(contentEl).addButton((button) =>
      button
        .setButtonText("Preview")
        .setCta()
        .onClick(() => void this.renderWithMeaning()),
    );
    this.output = contentEl.createDiv({ cls: "vault-memory-preview-output" });
  }

  /** As render(), with semantic recall's meaning when it is on (the server is asked, so this waits). */
  async renderWithMeaning(prompt = this.prompt): Promise<void> {
    if (!this.withMeaning) return this.render(prompt);
    this.output.empty();
    this.output.createEl("p", { text: "Asking the embedding server…", cls: "vault-memory-empty" });
    const { recall, semantic } = await this.withMeaning(prompt);
    this.show(recall);
    if (semantic && semantic !== "off")
      this.output.createEl("p", {
        text: `Semantic recall could not be used (${semantic}); this is from words alone, as the hook would answer.`,
        cls: "vault-memory-empty",
      });
  }

  /** Shows the hook's exact output, then the cards with their scores. */
  render(prompt = this.prompt): void {
    this.show(this.preview(prompt));
  }

  private show(result: Recall): void {
    this.output.empty();
    if (result.cards.length === 0) {
      this.output.createEl("p", { text: "Nothing would be added to Claude's context for this prompt.", cls: "vault-memory-empty" });
      return;
    }
    this.output.createEl("pre", { text: result.text, cls: "vault-memory-preview-text" });
    const list = this.output.createEl("ol", { cls: "vault-memory-preview-cards" });
    for (const card of result.cards) {
      const item = list.createEl("li");
      const link = item.createEl("a", {
        text: escapeControl(card.path),
        href: card.path,
        cls: "internal-link vault-memory-card-path",
        attr: { "data-href": card.path },
      });
      link.addEventListener("click", (evt) => {
        evt.preventDefault();
        const file = this.app.vault.getAbstractFileByPath(card.path);
        if (!(file instanceof TFile)) return;
        this.close();
        void this.app.workspace.getLeaf(Keymap.isModEvent(evt)).openFile(file);
      });
      item.createSpan({ text: ` score ${card.score.toFixed(1)}`, cls: "vault-memory-card-score" });
      // Which hint brought the card up, so a bad hint can be found and fixed in the card's properties.
      if (card.hint?.text) item.createDiv({ text: `Matched hint: ${escapeControl(card.hint.text)}`, cls: "vault-memory-card-hint" });
    }
  }

  onClose(): void {
    this.contentEl.empty();
  }
}
