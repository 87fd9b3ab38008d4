// @vitest-environment happy-dom
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LINT_VIEW_TYPE, LintReportView } from "../../src/plugin/lint-view";
import { addRelatedLink } from "../../src/core/card/related";
import VaultMemoryPlugin from "../../src/plugin/main";
import { App } from "../fakes/obsidian";
import { SAMPLE_VAULT, copyVault } from "../helpers";
import { startPlugin } from "./start-plugin";
import { canScreenshot, screenshot } from "../screenshot";

let vault: string;
let app: App;
let plugin: VaultMemoryPlugin;

async function openReport(): Promise<LintReportView> {
  plugin = await startPlugin(app);
  await plugin.openLintReport();
  const view = app.workspace.getLeavesOfType(LINT_VIEW_TYPE)[0]?.view;
  if (!(view instanceof LintReportView)) throw new Error("no lint view");
  return view;
}

const findingRows = (view: LintReportView, rule: string) =>
  [...view.contentEl.querySelectorAll("details")].filter((d) => d.querySelector("summary")?.textContent?.startsWith(rule)).flatMap((d) => [...d.querySelectorAll("li")]);

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(cond()).toBe(true);
}

beforeEach(async () => {
  vault = copyVault(SAMPLE_VAULT, "Lint vault");
  app = new App(vault);
  // Problems to find: no tags, a card in the wrong folder, a superseded card with no link back.
  await app.vault.create("reference/no-tags.md", "---\nname: No tags\ndescription: a card without tags\ntype: reference\n---\nSee [[vault-memory]].\n");
  await app.vault.create("reference/misfiled.md", "---\nname: Misfiled\ndescription: a debugging card in reference\ntype: debugging\ntags: [x]\n---\nSee [[launchd-cron-path]].\n");
  await app.vault.create(
    "debugging/old-launchd.md",
    "---\nname: Old launchd note\ndescription: replaced\ntype: debugging\ntags: [x]\nstatus: superseded\nsuperseded-by: launchd-cron-path\n---\nOld text.\n",
  );
});
afterEach(() => plugin?.unload());

describe("lint report view", () => {
  it("groups findings by severity and rule, with counts", async () => {
    const view = await openReport();
    const text = view.contentEl.textContent ?? "";
    expect(text).toMatch(/Errors \(\d+\)/);
    expect(text).toMatch(/Warnings \(\d+\)/);
    expect(findingRows(view, "missing-tags")).toHaveLength(1);
    expect(findingRows(view, "type-folder-mismatch")).toHaveLength(1);
    expect(view.contentEl.querySelector(".vault-memory-badge.mod-error")?.textContent).toMatch(/^\d+ errors$/);
  });

  it("opens the file at the finding's line when clicked", async () => {
    const view = await openReport();
    const link = findingRows(view, "missing-tags")[0].querySelector("a")!;
    link.click();
    await until(() => app.workspace.leaves.some((l) => l.opened?.path === "reference/no-tags.md"));
    expect(app.workspace.leaves.find((l) => l.opened)?.opened?.state).toEqual({ eState: { line: 0 } });
  });

  it("adds empty tags with processFrontMatter, and refreshes to ask for a real one", async () => {
    const view = await openReport();
    findingRows(view, "missing-tags")[0].querySelector("button")!.click();
    await until(() => findingRows(view, "missing-tags")[0]?.textContent?.includes("tags is empty") === true);
    expect(findingRows(view, "missing-tags")[0].querySelector("button")).toBeNull();
    expect(readFileSync(join(vault, "reference/no-tags.md"), "utf8")).toMatch(/^---\n[\s\S]*tags: \[\]\n[\s\S]*---\n/);
  });

  it("moves a card to its type's folder through the file manager", async () => {
    const view = await openReport();
    findingRows(view, "type-folder-mismatch")[0].querySelector("button")!.click();
    await until(() => app.vault.getFileByPath("debugging/misfiled.md") !== null);
    expect(app.vault.getFileByPath("reference/misfiled.md")).toBeNull();
  });

  it("adds the missing link back to the main card", async () => {
    const view = await openReport();
    findingRows(view, "superseded-without-backlink")[0].querySelector("button")!.click();
    await until(() => readFileSync(join(vault, "debugging/old-launchd.md"), "utf8").includes("[[launchd-cron-path]]"));
    expect(addRelatedLink("Body\n\n## 相關\n- [[a]]\n", "b")).toBe("Body\n\n## 相關\n- [[a]]\n- [[b]]\n");
    // A card without a related section gets one under the default heading, which reads in every language.
    expect(addRelatedLink("Body\n", "b")).toBe("Body\n\n## Related\n- [[b]]\n");
    expect(addRelatedLink("Body\n", "b", "## 相關")).toBe("Body\n\n## 相關\n- [[b]]\n");
    expect(addRelatedLink("Body [[B|x]]\n", "b")).toBe("Body [[B|x]]\n");
  });

  it("refreshes as files change", async () => {
    const view = await openReport();
    const before = findingRows(view, "missing-tags").length;
    await app.vault.create("feedback/another.md", "---\nname: Another\ndescription: d\ntype: feedback\n---\n[[commit-messages]]\n");
    await until(() => findingRows(view, "missing-tags").length === before + 1);
  }, 15_000);

  it.skipIf(!canScreenshot)("looks right: a headless Chromium screenshot styled by styles.css", async () => {
    const view = await openReport();
    const png = screenshot("lint-view", view.containerEl.outerHTML);
    expect(png).toMatch(/lint-view\.png$/);
  }, 60_000);
});
