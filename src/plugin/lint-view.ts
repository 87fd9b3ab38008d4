/** The lint report view: one collapsed row per rule with its count, findings a page at a time, fixes one by one or all at once. */

import { ItemView, Keymap, Modal, Notice, Setting, TFile, setIcon, type App, type WorkspaceLeaf } from "obsidian";
import { SEVERITY_ORDER } from "../core/lint/lint";
import { RULES, ruleInfo } from "../core/lint/rules";
import type { Finding, LintFix, Severity } from "../core/lint/types";
import { escapeControl } from "../core/text/visible";
import { plural } from "../core/text/wording";
import { applyFix } from "./lint-fixes";
import { yieldToUi } from "./yield-to-ui";

export const LINT_VIEW_TYPE = "vault-memory-lint";

const SEVERITY_NAME: Record<Severity, string> = { error: "Error", warning: "Warning", info: "Info", suggestion: "Suggestion" };
const SEVERITY_PLURAL: Record<Severity, [string, string]> = {
  error: ["error", "errors"],
  warning: ["warning", "warnings"],
  info: ["info", "info"],
  suggestion: ["suggestion", "suggestions"],
};
export const FIX_LABEL: Record<LintFix["kind"], string> = {
  "add-empty-tags": "Add empty tags",
  "add-link-back": "Link back",
  "move-to-folder": "Move to its folder",
  rename: "Rename",
  archive: "Archive",
  "move-aside": "Move copies aside",
};
// A page of findings: a rule with thousands (no tags in a vault that never used them) stays light.
export const PAGE = 100;
const RULE_ORDER = Object.keys(RULES);

interface RuleGroup {
  rule: string;
  severity: Severity;
  findings: Finding[];
}

export class LintReportView extends ItemView {
  private findings: Finding[] = [];
  private readonly expanded = new Set<string>();
  private readonly shown = new Map<string, number>();

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

  /** The findings grouped by rule, worst severity first, then in the rules' own order. */
  groups(): RuleGroup[] {
    const byRule = new Map<string, RuleGroup>();
    for (const f of this.findings) {
      const g = byRule.get(f.rule);
      if (g) g.findings.push(f);
      else byRule.set(f.rule, { rule: f.rule, severity: f.severity, findings: [f] });
    }
    const rank = (g: RuleGroup): number => SEVERITY_ORDER.indexOf(g.severity) * 1000 + (RULE_ORDER.indexOf(g.rule) + 1 || 999);
    return [...byRule.values()].sort((a, b) => rank(a) - rank(b));
  }

  render(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass("vault-memory-lint");
    const header = root.createDiv({ cls: "nav-header" });
    const buttons = header.createDiv({ cls: "nav-buttons-container" });
    iconButton(buttons, "refresh-cw", "Lint again", () => void this.refresh());
    iconButton(buttons, "chevrons-down-up", "Collapse all", () => {
      this.expanded.clear();
      this.render();
    });

    if (this.findings.length === 0) {
      root.createDiv({ cls: "pane-empty", text: "No problems found." });
      return;
    }
    const counts = SEVERITY_ORDER.map((s) => [s, this.findings.filter((f) => f.severity === s).length] as const).filter(([, n]) => n > 0);
    const summary = root.createDiv({ cls: "vault-memory-lint-summary" });
    for (const [s, n] of counts) summary.createSpan({ text: plural(n, ...SEVERITY_PLURAL[s]), cls: `vault-memory-severity mod-${s}` });

    const tree = root.createDiv({ cls: "vault-memory-lint-tree" });
    for (const group of this.groups()) this.renderGroup(tree, group);
  }

  private renderGroup(tree: HTMLElement, group: RuleGroup): void {
    const info = ruleInfo(group.rule);
    const open = this.expanded.has(group.rule);
    const item = tree.createDiv({ cls: `tree-item vault-memory-lint-rule${open ? "" : " is-collapsed"}`, attr: { "data-rule": group.rule } });
    const self = item.createDiv({ cls: "tree-item-self is-clickable mod-collapsible", attr: { "aria-expanded": String(open), role: "button", tabindex: "0" } });
    const toggle = self.createDiv({ cls: `tree-item-icon collapse-icon${open ? "" : " is-collapsed"}` });
    setIcon(toggle, "right-triangle");
    const inner = self.createDiv({ cls: "tree-item-inner" });
    inner.createSpan({ cls: `vault-memory-severity mod-${group.severity}`, text: SEVERITY_NAME[group.severity] });
    inner.createSpan({ cls: "vault-memory-lint-rule-title", text: info.title });
    self.createDiv({ cls: "tree-item-flair-outer" }).createSpan({ cls: "tree-item-flair", text: String(group.findings.length) });
    const flip = (): void => {
      if (open) this.expanded.delete(group.rule);
      else this.expanded.add(group.rule);
      this.render();
    };
    self.addEventListener("click", flip);
    self.addEventListener("keydown", (evt) => {
      if (evt.key === "Enter" || evt.key === " ") {
        evt.preventDefault();
        flip();
      }
    });
    if (!open) return;

    const children = item.createDiv({ cls: "tree-item-children" });
    if (info.description) children.createDiv({ cls: "vault-memory-lint-rule-desc", text: info.description });
    const fixable = group.findings.filter((f) => f.fix);
    if (fixable.length > 1) {
      const row = children.createDiv({ cls: "vault-memory-lint-fix-all" });
      const button = row.createEl("button", { text: `${FIX_LABEL[fixable[0].fix!.kind]}: all ${fixable.length}…` });
      button.addEventListener("click", () => new FixAllModal(this.app, fixable, this.relatedHeading(), () => void this.refresh()).open());
    }
    const limit = this.shown.get(group.rule) ?? PAGE;
    for (const f of group.findings.slice(0, limit)) this.renderFinding(children, f);
    const left = group.findings.length - limit;
    if (left > 0) {
      const more = children.createDiv({ cls: "tree-item-self is-clickable vault-memory-lint-more", attr: { role: "button", tabindex: "0" } });
      more.createDiv({ cls: "tree-item-inner", text: `Show ${plural(Math.min(left, PAGE), "more finding")} (${left.toLocaleString("en-US")} left)` });
      more.addEventListener("click", () => {
        this.shown.set(group.rule, limit + PAGE);
        this.render();
      });
    }
  }

  private renderFinding(parent: HTMLElement, f: Finding): void {
    const row = parent.createDiv({ cls: "tree-item-self vault-memory-finding" });
    const inner = row.createDiv({ cls: "tree-item-inner" });
    // Shown escaped, on one line (a name may hold a line break or a bidi control); opened by the real path.
    const where = f.file ? `${escapeControl(f.file)}${f.line > 0 ? `:${f.line}` : ""}` : "Vault";
    if (f.file) {
      const link = inner.createEl("a", { text: where, cls: "internal-link vault-memory-finding-file", href: f.file, attr: { "data-href": f.file } });
      link.addEventListener("click", (evt) => {
        evt.preventDefault();
        void this.openAt(f, evt);
      });
      // Obsidian's page preview, as for any internal link: hover (with Ctrl/Cmd, by its setting).
      link.addEventListener("mouseover", (evt) => {
        this.app.workspace.trigger("hover-link", { event: evt, source: LINT_VIEW_TYPE, hoverParent: this, targetEl: link, linktext: f.file, sourcePath: "" });
      });
    } else inner.createSpan({ text: where, cls: "vault-memory-finding-file" });
    inner.createDiv({ text: escapeControl(f.message), cls: "vault-memory-finding-message" });
    if (!f.fix) return;
    const fix = f.fix;
    const button = iconButton(row.createDiv({ cls: "tree-item-flair-outer" }), fixIcon(fix), FIX_LABEL[fix.kind], () => {
      button.addClass("is-disabled");
      applyFix(this.app, f, this.relatedHeading()).then(
        (done) => {
          new Notice(done);
          void this.refresh();
        },
        (err: unknown) => {
          button.removeClass("is-disabled");
          new Notice(`Could not fix: ${err instanceof Error ? err.message : String(err)}`);
        },
      );
    });
    button.addClass("vault-memory-fix");
  }

  private async openAt(f: Finding, evt: MouseEvent): Promise<void> {
    const file = this.app.vault.getAbstractFileByPath(f.file);
    if (!(file instanceof TFile)) return;
    await this.app.workspace.getLeaf(Keymap.isModEvent(evt)).openFile(file, { eState: { line: Math.max(0, f.line - 1) } });
  }
}

/** Shows every change a "fix all" would make, and makes them only when the person confirms. */
export class FixAllModal extends Modal {
  constructor(
    app: App,
    private readonly findings: readonly Finding[],
    private readonly relatedHeading: string,
    private readonly onDone: () => void,
  ) {
    super(app);
  }

  onOpen(): void {
    const { contentEl } = this;
    const kind = this.findings[0].fix!.kind;
    this.setTitle(`${FIX_LABEL[kind]}: ${plural(this.findings.length, "note")}`);
    contentEl.createEl("p", { text: "These changes will be made, one note at a time, through Obsidian, so links follow any move:" });
    const list = contentEl.createEl("ul", { cls: "vault-memory-fix-list" });
    const SHOWN = 200;
    for (const f of this.findings.slice(0, SHOWN)) list.createEl("li", { text: describeFix(f) });
    if (this.findings.length > SHOWN) contentEl.createEl("p", { text: `…and ${plural(this.findings.length - SHOWN, "more note")}.` });
    new Setting(contentEl)
      .addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText(`Apply to ${plural(this.findings.length, "note")}`)
          .setCta()
          .onClick(() => {
            b.setDisabled(true);
            const progress = (done: number): void => {
              b.setButtonText(`Applied ${done} of ${this.findings.length}…`);
            };
            this.apply(progress)
              .catch((err: unknown) => new Notice(`Vault Memory: the fixes stopped: ${err instanceof Error ? err.message : String(err)}`))
              .finally(() => {
                this.close();
                this.onDone();
              });
          }),
      );
  }

  /** Applies each fix in turn, yielding to the window between notes; a note that cannot be fixed is counted, not fatal. */
  async apply(progress: (done: number) => void = () => {}): Promise<{ fixed: number; failed: string[] }> {
    const failed: string[] = [];
    let fixed = 0;
    for (const [i, f] of this.findings.entries()) {
      try {
        await applyFix(this.app, f, this.relatedHeading);
        fixed++;
      } catch (err) {
        failed.push(`${escapeControl(f.file)}: ${err instanceof Error ? err.message : String(err)}`);
      }
      progress(i + 1);
      await yieldToUi();
    }
    new Notice(
      failed.length === 0
        ? `Fixed ${plural(fixed, "note")}.`
        : `Fixed ${plural(fixed, "note")}; ${failed.length} could not be fixed: ${failed.slice(0, 3).join("; ")}`,
    );
    return { fixed, failed };
  }
}

function describeFix(f: Finding): string {
  const fix = f.fix!;
  const file = escapeControl(f.file);
  switch (fix.kind) {
    case "add-empty-tags":
      return `${file}: add "tags: []" to the frontmatter`;
    case "add-link-back":
      return `${file}: add a related link to [[${escapeControl(fix.target)}]]`;
    case "move-to-folder":
      return `${file} → ${escapeControl(fix.folder)}/`;
    case "rename":
      return `${file} → ${escapeControl(fix.to)}`;
    case "archive":
      return `${file}: set "status: archived", with the date and why (kept, no longer recalled)`;
    case "move-aside":
      return `${file} stays; ${fix.moves.map((m) => `${escapeControl(m.from)} → ${escapeControl(m.to)}`).join(", ")}`;
  }
}

function fixIcon(fix: LintFix): string {
  return {
    "add-empty-tags": "tag",
    "add-link-back": "link",
    "move-to-folder": "folder-input",
    rename: "pencil",
    archive: "archive",
    "move-aside": "folder-output",
  }[fix.kind];
}

/** A core-style icon button: `clickable-icon` with the icon and its label for tooltip and screen readers. */
export function iconButton(parent: HTMLElement, icon: string, label: string, onClick: (evt: MouseEvent) => void): HTMLElement {
  const button = parent.createDiv({ cls: "clickable-icon", attr: { "aria-label": label, role: "button", tabindex: "0" } });
  setIcon(button, icon);
  button.addEventListener("click", (evt) => {
    evt.stopPropagation();
    if (!button.hasClass("is-disabled")) onClick(evt);
  });
  button.addEventListener("keydown", (evt) => {
    if (evt.key === "Enter" || evt.key === " ") {
      evt.preventDefault();
      button.click();
    }
  });
  return button;
}
