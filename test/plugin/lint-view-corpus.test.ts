// @vitest-environment happy-dom
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { LINT_VIEW_TYPE, LintReportView, PAGE } from "../../src/plugin/lint-view";
import { App } from "../fakes/obsidian";
import { CORPUS, HAS_CORPUS, NO_CORPUS, copyVault } from "../helpers";
import { startPlugin } from "./start-plugin";

describe.skipIf(!HAS_CORPUS)(`the lint report on every help vault at once${HAS_CORPUS ? "" : ` (${NO_CORPUS})`}`, () => {
  it("stays light: over ten thousand findings in a few dozen rows, a page at a time when opened", async () => {
    // Every help note filed as a reference card, in a vault that never used tags or descriptions:
    // the ordinary notes the help is would draw no card-field findings.
    const app = new App(dirname(copyVault(CORPUS, "reference")));
    const plugin = await startPlugin(app);
    try {
      await plugin.openLintReport();
      const view = app.workspace.getLeavesOfType(LINT_VIEW_TYPE)[0].view as unknown as LintReportView;
      const counts = [...view.contentEl.querySelectorAll(".tree-item-flair")].map((f) => Number(f.textContent));
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(10_000);
      expect(view.contentEl.querySelectorAll("*").length).toBeLessThan(300);
      const biggest = [...view.contentEl.querySelectorAll<HTMLElement>(".vault-memory-lint-tree > .tree-item")].sort(
        (a, b) => Number(b.querySelector(".tree-item-flair")?.textContent) - Number(a.querySelector(".tree-item-flair")?.textContent),
      )[0];
      biggest.querySelector<HTMLElement>(".tree-item-self")!.click();
      expect(view.contentEl.querySelectorAll(".vault-memory-finding")).toHaveLength(PAGE);
      expect(view.contentEl.querySelectorAll("*").length).toBeLessThan(300 + PAGE * 8);
    } finally {
      plugin.unload();
    }
  }, 300_000);
});
