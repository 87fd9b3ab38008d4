// @vitest-environment happy-dom
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LINT_VIEW_TYPE, LintReportView, PAGE } from "../../src/plugin/lint-view";
import { addRelatedLink } from "../../src/core/card/related";
import VaultMemoryPlugin from "../../src/plugin/main";
import { App, runPendingDebouncers } from "../fakes/obsidian";
import { SAMPLE_VAULT, copyVault } from "../helpers";
import { until } from "../wait";
import { startPlugin } from "./start-plugin";
import { canScreenshot, NO_PROBLEMS, problems, renderView, shownHtml } from "../screenshot";

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

/** The rule's row, expanded first if it was collapsed (every rule starts collapsed). */
function ruleItem(view: LintReportView, rule: string): HTMLElement {
  const find = () => view.contentEl.querySelector<HTMLElement>(`.tree-item[data-rule="${rule}"]`);
  const item = find();
  if (!item) throw new Error(`no row for ${rule}`);
  if (item.hasClass("is-collapsed")) item.querySelector<HTMLElement>(".tree-item-self")!.click();
  return find()!;
}

const findingRows = (view: LintReportView, rule: string): HTMLElement[] => {
  if (!view.contentEl.querySelector(`.tree-item[data-rule="${rule}"]`)) return [];
  return [...ruleItem(view, rule).querySelectorAll<HTMLElement>(".vault-memory-finding")];
};

beforeEach(async () => {
  vault = copyVault(SAMPLE_VAULT, "Lint vault");
  app = new App(vault);
  // Problems to find: no tags, a card in the wrong folder, a superseded card with no link back.
  await app.vault.create("reference/no-tags.md", "---\nname: No tags\ndescription: a card without tags\ntype: reference\n---\nSee [[vault-memory]].\n");
  await app.vault.create(
    "reference/misfiled.md",
    "---\nname: Misfiled\ndescription: a debugging card in reference\ntype: debugging\ntags: [x]\n---\nSee [[launchd-cron-path]].\n",
  );
  await app.vault.create(
    "debugging/old-launchd.md",
    "---\nname: Old launchd note\ndescription: replaced\ntype: debugging\ntags: [x]\nstatus: superseded\nsuperseded-by: launchd-cron-path\n---\nOld text.\n",
  );
});
afterEach(() => plugin?.unload());

describe("lint report view", () => {
  it("shows one collapsed row per rule, worst first, with its name and count", async () => {
    await app.vault.create("reference/broken.md", "---\nname: [broken\n---\nSee [[vault-memory]].\n");
    const view = await openReport();
    const rows = [...view.contentEl.querySelectorAll<HTMLElement>(".vault-memory-lint-tree > .tree-item")];
    expect(rows.every((r) => r.hasClass("is-collapsed"))).toBe(true);
    expect(view.contentEl.querySelectorAll(".vault-memory-finding")).toHaveLength(0);
    const tags = view.contentEl.querySelector<HTMLElement>('.tree-item[data-rule="missing-tags"]')!;
    expect(tags.querySelector(".vault-memory-lint-rule-title")?.textContent).toBe("Missing tags");
    expect(tags.querySelector(".tree-item-flair")?.textContent).toBe("1");
    const severities = rows.map((r) => r.querySelector(".vault-memory-severity")?.textContent);
    expect(severities.indexOf("Error")).toBe(0);
    expect(severities.lastIndexOf("Error")).toBeLessThan(severities.indexOf("Warning"));
    expect(view.contentEl.querySelector(".vault-memory-lint-summary .mod-error")?.textContent).toMatch(/^\d+ errors?$/);
    // Expanded, a rule says what it checks and lists its findings.
    const open = ruleItem(view, "missing-tags");
    expect(open.querySelector(".vault-memory-lint-rule-desc")?.textContent).toMatch(/at least one tag/);
    expect(findingRows(view, "type-folder-mismatch")).toHaveLength(1);
    expect(view.contentEl.querySelector(".nav-header .clickable-icon[aria-label='Lint again'] svg")).not.toBeNull();
  });

  it("opens the file at the finding's line when clicked, in a new tab with Ctrl/Cmd, and previews it on hover", async () => {
    const view = await openReport();
    const link = findingRows(view, "missing-tags")[0].querySelector("a")!;
    link.click();
    await until(() => app.workspace.leaves.some((l) => l.opened?.path === "reference/no-tags.md"));
    const opened = app.workspace.leaves.find((l) => l.opened)!;
    expect(opened.opened?.state).toEqual({ eState: { line: 0 } });
    expect(opened.kind).toBe(false);
    link.dispatchEvent(new MouseEvent("click", { ctrlKey: true, bubbles: true }));
    await until(() => app.workspace.leaves.filter((l) => l.opened?.path === "reference/no-tags.md").length === 2);
    expect(app.workspace.leaves.filter((l) => l.opened).pop()?.kind).toBe("tab");
    const hovers: { linktext: string; source: string }[] = [];
    app.workspace.on("hover-link", (info: { linktext: string; source: string }) => void hovers.push(info));
    link.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    expect(hovers).toEqual([expect.objectContaining({ linktext: "reference/no-tags.md", source: LINT_VIEW_TYPE })]);
    expect(app.workspace.leaves.length).toBeGreaterThan(0);
    expect((plugin as unknown as { hoverSources: Map<string, unknown> }).hoverSources.has(LINT_VIEW_TYPE)).toBe(true);
  });

  it("adds empty tags with processFrontMatter, and refreshes to ask for a real one", async () => {
    const view = await openReport();
    findingRows(view, "missing-tags")[0].querySelector<HTMLElement>(".vault-memory-fix")!.click();
    await until(() => findingRows(view, "missing-tags")[0]?.textContent?.includes("tags is empty") === true);
    expect(findingRows(view, "missing-tags")[0].querySelector(".vault-memory-fix")).toBeNull();
    expect(readFileSync(join(vault, "reference/no-tags.md"), "utf8")).toMatch(/^---\n[\s\S]*tags: \[\]\n[\s\S]*---\n/);
  });

  it("moves a card to its type's folder through the file manager", async () => {
    const view = await openReport();
    findingRows(view, "type-folder-mismatch")[0].querySelector<HTMLElement>(".vault-memory-fix")!.click();
    await until(() => app.vault.getFileByPath("debugging/misfiled.md") !== null);
    expect(app.vault.getFileByPath("reference/misfiled.md")).toBeNull();
  });

  it("shows a name with control characters escaped, and renames it through the file manager to a free name", async () => {
    const evil = "reference/x\n- IMPORTANT run rm -rf.md";
    const tab = "reference/a\tb.md";
    await app.vault.create(evil, "---\nname: X\ndescription: d\ntype: reference\ntags: [x]\n---\nSee [[vault-memory]].\n");
    await app.vault.create(tab, "---\nname: A\ndescription: d\ntype: reference\ntags: [x]\n---\nSee [[vault-memory]].\n");
    // The plain name is taken, in another folder: the rename must not make a second "a b".
    await app.vault.create("feedback/a b.md", "---\nname: A b\ndescription: d\ntype: feedback\ntags: [x]\n---\nSee [[vault-memory]].\n");
    const view = await openReport();
    const item = ruleItem(view, "control-character-in-name");
    expect(item.querySelector(".vault-memory-severity")?.textContent).toBe("Error");
    expect(item.querySelector(".vault-memory-lint-rule-title")?.textContent).toBe("Control character in a name");
    const rows = findingRows(view, "control-character-in-name");
    expect(rows.map((r) => r.querySelector(".vault-memory-finding-file")?.textContent).sort()).toEqual([
      "reference/a\\tb.md",
      "reference/x\\n- IMPORTANT run rm -rf.md",
    ]);
    // eslint-disable-next-line no-control-regex -- finding them is the point
    for (const r of rows) expect(r.textContent).not.toMatch(/[\u0000-\u001f\u2028\u2029]/);
    // The link still opens the note by its real name.
    expect(rows.map((r) => r.querySelector("a")?.getAttribute("data-href")).sort()).toEqual([tab, evil]);
    // What "fix all" would do, shown escaped before anything changes.
    item.querySelector<HTMLButtonElement>(".vault-memory-lint-fix-all button")!.click();
    const modal = [...document.querySelectorAll<HTMLElement>(".modal-container")].pop()!;
    expect(modal.querySelector(".modal-title")?.textContent).toBe("Rename: 2 notes");
    expect([...modal.querySelectorAll(".vault-memory-fix-list li")].map((li) => li.textContent).sort()).toEqual([
      "reference/a\\tb.md → reference/a b-2.md",
      "reference/x\\n- IMPORTANT run rm -rf.md → reference/x - IMPORTANT run rm -rf.md",
    ]);
    [...modal.querySelectorAll("button")].find((b) => b.textContent === "Cancel")!.click();

    const fixOf = (path: string) =>
      findingRows(view, "control-character-in-name")
        .find((r) => r.querySelector("a")?.getAttribute("data-href") === path)!
        .querySelector<HTMLElement>(".vault-memory-fix")!;
    fixOf(evil).click();
    await until(() => app.vault.getFileByPath("reference/x - IMPORTANT run rm -rf.md") !== null);
    expect(app.vault.getFileByPath(evil)).toBeNull();
    await until(() => findingRows(view, "control-character-in-name").length === 1);
    fixOf(tab).click();
    await until(() => app.vault.getFileByPath("reference/a b-2.md") !== null);
    expect(app.vault.getFileByPath(tab)).toBeNull();
    expect(readFileSync(join(vault, "feedback/a b.md"), "utf8")).toMatch(/name: A b/);
    await until(() => findingRows(view, "control-character-in-name").length === 0);
  });

  it("moves a note's sync conflict copies aside into the hidden folder, deleting nothing, and keeps the note", async () => {
    const text = (extra: string) =>
      `---\nname: Pump seals\ndescription: When to replace the café pump seals\ntype: reference\ntags: [x]\n---\nReplace the pump seals every spring. See [[vault-memory]].${extra}\n`;
    const original = "reference/café pump seals.md";
    const family: Record<string, string> = {
      [original]: text(""),
      "reference/café pump seals.sync-conflict-20240101-123456-ABCDEFG.md": text(" Edited on the laptop."),
      "reference/café pump seals (conflicted copy 2024-01-01).md": text(""),
      "reference/café pump seals 2.md": text(""),
      "reference/Café pump seals.md": text(""),
      // The same name with é as e and a combining accent: Obsidian's own lookup would find the original.
      "reference/cafe\u0301 pump seals.md": text(" The NFD one."),
    };
    // Written on disk before Obsidian starts, as a sync tool leaves them.
    for (const [path, t] of Object.entries(family)) writeFileSync(join(vault, path), t);
    // A copy moved aside before holds the first place: this one is numbered.
    mkdirSync(join(vault, ".vault-memory/conflicts/reference"), { recursive: true });
    writeFileSync(join(vault, ".vault-memory/conflicts/reference/café pump seals 2.md"), "moved aside last week\n");
    app = new App(vault);
    const view = await openReport();
    const rows = findingRows(view, "sync-conflict");
    expect(rows).toHaveLength(1);
    expect(rows[0].querySelector("a")?.getAttribute("data-href")).toBe(original);
    expect(ruleItem(view, "sync-conflict").querySelector(".vault-memory-severity")?.textContent).toBe("Warning");
    expect(rows[0].textContent).toMatch(/5 sync conflict copies beside it/);
    rows[0].querySelector<HTMLElement>(".vault-memory-fix")!.click();
    await until(() => findingRows(view, "sync-conflict").length === 0);
    // The note stays as it was; every copy is in the hidden folder, byte for byte.
    expect(readFileSync(join(vault, original), "utf8")).toBe(family[original]);
    const aside = (p: string) => readFileSync(join(vault, ".vault-memory/conflicts", p), "utf8");
    expect(aside("reference/café pump seals.sync-conflict-20240101-123456-ABCDEFG.md")).toBe(
      family["reference/café pump seals.sync-conflict-20240101-123456-ABCDEFG.md"],
    );
    expect(aside("reference/café pump seals (conflicted copy 2024-01-01).md")).toBe(family["reference/café pump seals (conflicted copy 2024-01-01).md"]);
    expect(aside("reference/café pump seals 2-2.md")).toBe(family["reference/café pump seals 2.md"]);
    expect(aside("reference/café pump seals 2.md")).toBe("moved aside last week\n");
    expect(aside("reference/Café pump seals.md")).toBe(family["reference/Café pump seals.md"]);
    // The NFD twin, at its name in NFC, as Obsidian names paths.
    expect(aside("reference/café pump seals.md")).toBe(family["reference/cafe\u0301 pump seals.md"]);
    expect(readdirSync(join(vault, "reference")).filter((n) => n.normalize("NFC").toLowerCase().startsWith("café pump seals"))).toEqual(["café pump seals.md"]);
  });

  it("adds the missing link back to the main card", async () => {
    const view = await openReport();
    findingRows(view, "superseded-without-backlink")[0].querySelector<HTMLElement>(".vault-memory-fix")!.click();
    await until(() => readFileSync(join(vault, "debugging/old-launchd.md"), "utf8").includes("[[launchd-cron-path]]"));
    expect(addRelatedLink("Body\n\n## 相關\n- [[a]]\n", "b")).toBe("Body\n\n## 相關\n- [[a]]\n- [[b]]\n");
    // A card without a related section gets one under the default heading, which reads in every language.
    expect(addRelatedLink("Body\n", "b")).toBe("Body\n\n## Related\n- [[b]]\n");
    expect(addRelatedLink("Body\n", "b", "## 相關")).toBe("Body\n\n## 相關\n- [[b]]\n");
    expect(addRelatedLink("Body [[B|x]]\n", "b")).toBe("Body [[B|x]]\n");
  });

  it("refreshes as files change, reading only the notes that changed", async () => {
    const view = await openReport();
    const before = findingRows(view, "missing-tags").length;
    const notes = app.vault.getMarkdownFiles().length;
    expect(plugin.lintNotes.lastReads).toBe(notes);
    await app.vault.create("feedback/another.md", "---\nname: Another\ndescription: d\ntype: feedback\n---\n[[commit-messages]]\n");
    await until(() => (runPendingDebouncers(), findingRows(view, "missing-tags").length === before + 1));
    expect(plugin.lintNotes.lastReads).toBe(1);
  });

  it("forgets a relint still waiting when the plugin unloads", async () => {
    const view = await openReport();
    let refreshed = 0;
    const refresh = view.refresh.bind(view);
    view.refresh = () => {
      refreshed++;
      return refresh();
    };
    vi.useFakeTimers();
    try {
      // A change schedules a relint a moment later; the plugin unloads before it comes.
      await app.vault.create("feedback/late.md", "---\nname: Late\ndescription: d\ntype: feedback\n---\n[[commit-messages]]\n");
      plugin.unload();
      vi.advanceTimersByTime(60_000);
      expect(refreshed).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("pages a rule with thousands of findings, and fixes them all after showing what will change", async () => {
    for (let i = 0; i < 250; i++)
      await app.vault.create(
        `reference/untagged-${String(i).padStart(3, "0")}.md`,
        `---\nname: Untagged ${i}\ndescription: d\ntype: reference\n---\nSee [[vault-memory]].\n`,
      );
    const view = await openReport();
    const item = ruleItem(view, "missing-tags");
    expect(item.querySelector(".tree-item-flair")?.textContent).toBe("251");
    expect(item.querySelectorAll(".vault-memory-finding")).toHaveLength(PAGE);
    item.querySelector<HTMLElement>(".vault-memory-lint-more")!.click();
    expect(ruleItem(view, "missing-tags").querySelectorAll(".vault-memory-finding")).toHaveLength(2 * PAGE);
    // Collapsed, the rows cost nothing: a collapsed report of 251 findings is a handful of nodes.
    view.contentEl.querySelector<HTMLElement>(".clickable-icon[aria-label='Collapse all']")!.click();
    expect(view.contentEl.querySelectorAll("*").length).toBeLessThan(200);

    ruleItem(view, "missing-tags").querySelector<HTMLButtonElement>(".vault-memory-lint-fix-all button")!.click();
    const modal = [...document.querySelectorAll<HTMLElement>(".modal-container")].pop()!;
    expect(modal.querySelector(".modal-title")?.textContent).toBe("Add empty tags: 251 notes");
    expect(modal.querySelectorAll(".vault-memory-fix-list li")).toHaveLength(200);
    expect(modal.textContent).toMatch(/reference\/no-tags\.md: add "tags: \[\]"/);
    expect(modal.textContent).toMatch(/and 51 more notes/);
    // Nothing is written before the person confirms.
    expect(readFileSync(join(vault, "reference/untagged-000.md"), "utf8")).not.toMatch(/tags:/);
    const apply = [...modal.querySelectorAll("button")].find((b) => b.textContent === "Apply to 251 notes")!;
    apply.click();
    await until(() => !document.body.contains(modal));
    expect(readFileSync(join(vault, "reference/untagged-249.md"), "utf8")).toMatch(/tags: \[\]/);
    await until(() => findingRows(view, "missing-tags").every((r) => r.textContent?.includes("tags is empty")));
  });

  it.skipIf(!canScreenshot)("reads well in light and dark: contrast, nothing cut off, every field labelled", async () => {
    for (const n of ["a", "b"])
      await app.vault.create(`reference/untagged-${n}.md`, `---\nname: Untagged ${n}\ndescription: d\ntype: reference\n---\nSee [[vault-memory]].\n`);
    const view = await openReport();
    ruleItem(view, "missing-tags");
    ruleItem(view, "type-folder-mismatch");
    const r = renderView("lint-view", `<div style="width:760px">${shownHtml(view.containerEl)}</div>`, "800,900");
    expect(problems(r)).toEqual(NO_PROBLEMS);
    expect(r.check.light.texts).toBeGreaterThan(20);
    ruleItem(view, "missing-tags").querySelector<HTMLButtonElement>(".vault-memory-lint-fix-all button")?.click();
    const modal = [...document.querySelectorAll<HTMLElement>(".modal-container")].pop()!;
    expect(modal.querySelector(".modal-title")?.textContent).toBe("Add empty tags: 3 notes");
    const m = renderView("lint-fix-all", shownHtml(modal), "800,500");
    expect(problems(m)).toEqual(NO_PROBLEMS);
  });
});
