/** The lint report view: findings grouped by severity and rule, each opening its file, with fix buttons. */

import { ItemView, Notice, TFile, type WorkspaceLeaf } from "obsidian";
import { SEVERITY_ORDER } from "../core/lint/lint";
import type { Finding, Severity } from "../core/lint/types";
import { applyFix } from "./lint-fixes";

export const LINT_VIEW_TYPE = "vault-memory-lint";

const SEVERITY_LABEL: Record<Severity, string> = { error: "Errors", warning: "Warnings", info: "Info", suggestion: "Suggestions" };
const FIX_LABEL: Record<NonNullable<Finding["fix"]>["kind"], string> = {
  "add-empty-tags": "Add empty tags",
  "add-link-back": "Link back",
  "move-to-folder": "Move to its folder",
  archive: "Archive",
};

export class LintReportView extends ItemView {
  private findings: Finding[] = [];

  constructor(
    leaf: WorkspaceLeaf,
    private readonly runLint: () => Promise<Finding[]>,
    private readonly relatedHeading: () => string = () => "",
  ) {
    super(leaf);
  }

  getViewType(): string {
    return LINT_VIEW_TYPE;
  }

  getDisplayText(): string {
    return "Vault lint";
  }

  getIcon(): string {
    return "stethoscope";
  }

  async onOpen(): Promise<void> {
    await this.refresh();
  }

  async refresh(): Promise<void> {
    this.findings = await this.runLint();
    this.render();
  }

  render(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass("vault-memory-lint");
    const head = root.createDiv({ cls: "vault-memory-lint-head" });
    const counts = SEVERITY_ORDER.map((s) => [s, this.findings.filter((f) => f.severity === s).length] as const);
    head.createEl("h4", { text: this.findings.length === 0 ? "No problems found" : `${this.findings.length} findings` });
    const summary = head.createDiv({ cls: "vault-memory-lint-counts" });
    for (const [s, n] of counts) summary.createSpan({ text: `${n} ${SEVERITY_LABEL[s].toLowerCase()}`, cls: `vault-memory-badge mod-${s}` });
    const refresh = head.createEl("button", { text: "Refresh" });
    refresh.addEventListener("click", () => void this.refresh());

    for (const severity of SEVERITY_ORDER) {
      const group = this.findings.filter((f) => f.severity === severity);
      if (group.length === 0) continue;
      const section = root.createDiv({ cls: `vault-memory-lint-severity mod-${severity}` });
      section.createEl("h5", { text: `${SEVERITY_LABEL[severity]} (${group.length})` });
      for (const rule of [...new Set(group.map((f) => f.rule))]) {
        const items = group.filter((f) => f.rule === rule);
        const details = section.createEl("details", { cls: "vault-memory-lint-rule" });
        details.open = severity === "error" || items.length <= 10;
        details.createEl("summary", { text: `${rule} (${items.length})` });
        const list = details.createEl("ul");
        for (const f of items) this.renderFinding(list.createEl("li", { cls: "vault-memory-finding" }), f);
      }
    }
  }

  private renderFinding(li: HTMLElement, f: Finding): void {
    const where = li.createEl("a", { text: f.file ? `${f.file}${f.line > 0 ? `:${f.line}` : ""}` : "Vault", cls: "vault-memory-finding-file", href: "#" });
    where.addEventListener("click", (evt) => {
      evt.preventDefault();
      void this.openAt(f);
    });
    li.createSpan({ text: f.message, cls: "vault-memory-finding-message" });
    if (f.fix) {
      const button = li.createEl("button", { text: FIX_LABEL[f.fix.kind], cls: "vault-memory-fix" });
      button.addEventListener("click", () => {
        button.disabled = true;
        applyFix(this.app, f, this.relatedHeading()).then(
          (done) => {
            new Notice(done);
            void this.refresh();
          },
          (err: unknown) => {
            button.disabled = false;
            new Notice(`Could not fix: ${err instanceof Error ? err.message : String(err)}`);
          },
        );
      });
    }
  }

  private async openAt(f: Finding): Promise<void> {
    const file = this.app.vault.getAbstractFileByPath(f.file);
    if (!(file instanceof TFile)) return;
    await this.app.workspace.getLeaf(false).openFile(file, { eState: { line: Math.max(0, f.line - 1) } });
  }
}
