// @vitest-environment happy-dom
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { App, Notice, runPendingDebouncers } from "../fakes/obsidian";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { overlayPathOf } from "../../src/core/snapshot/format";
import { SnapshotReader } from "../../src/core/snapshot/read";
import VaultMemoryPlugin from "../../src/plugin/main";
import { PreviewRecallModal } from "../../src/plugin/preview-modal";
import { copyVault, hookJson, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { until } from "../wait";
import { generateVault } from "../fixtures/generated-vault";

const GENERATED_NOTES = 2500;
import { verifySnapshot } from "../../src/core/snapshot/verify";
import { startPlugin } from "./start-plugin";
import { canScreenshot, NO_PROBLEMS, problems, renderView, shownHtml } from "../screenshot";

let vault: string;
let app: App;
let plugin: VaultMemoryPlugin;

async function started(): Promise<void> {
  plugin = await startPlugin(app);
  await until(() => existsSync(vaultFiles.snapshot(vault)));
}

function snapshotPaths(): string[] {
  const r = SnapshotReader.open(vaultFiles.snapshot(vault));
  try {
    // Base and overlay: ids of cards edited since the base are gone, their new versions after it.
    return Array.from({ length: r.idLimit }, (_, i) => r.doc(i)?.path).filter((p): p is string => p !== undefined);
  } finally {
    r.close();
  }
}

beforeEach(() => {
  vault = copyVault(SAMPLE_VAULT, "Vault 記憶");
  app = new App(vault);
});
afterEach(() => plugin?.unload());

describe("the plugin", () => {
  it("waits for layout ready, then indexes and writes the snapshot", async () => {
    // The app's own: its metadata cache follows saves, as Obsidian's does.
    const own = app.vault.listenerCount("modify");
    plugin = await startPlugin(app, false);
    expect(existsSync(vaultFiles.snapshot(vault))).toBe(false);
    expect(app.vault.listenerCount("modify")).toBe(own);
    expect(app.metadataCache.listenerCount("changed")).toBe(0);
    app.workspace.setLayoutReady();
    await until(() => existsSync(vaultFiles.snapshot(vault)));
    expect(snapshotPaths()).toHaveLength(15);
    // One for the index, one for an open lint report; the index hears of new parses too.
    expect(app.vault.listenerCount("modify")).toBe(own + 2);
    expect(app.metadataCache.listenerCount("changed")).toBe(1);
  });

  it("registers its commands without default hotkeys", async () => {
    await started();
    expect([...app.commands.keys()].sort()).toEqual([
      "vault-memory:check-connection",
      "vault-memory:enrich-cards",
      "vault-memory:import-history",
      "vault-memory:open-lint-report",
      "vault-memory:open-queue",
      "vault-memory:preview-recall",
      "vault-memory:rebuild-index",
      "vault-memory:restore-archived-card",
      "vault-memory:run-digest",
      "vault-memory:sync-now",
    ]);
  });

  it("follows create, modify, rename and delete, debounced into one snapshot write", async () => {
    await started();
    const before = statSync(vaultFiles.snapshot(vault)).mtimeMs;
    const file = await app.vault.create(
      "debugging/new-card.md",
      "---\nname: Flaky zeppelin test\ndescription: zeppelin quirk\ntags: [x]\n---\nzeppelin zeppelin",
    );
    await app.vault.modify(file, "---\nname: Flaky zeppelin test\ndescription: zeppelin quirk fixed\ntags: [x]\n---\nzeppelin hangar");
    const old = app.vault.getFileByPath("feedback/commit-messages.md");
    await app.vault.rename(old!, "feedback/commit-style.md");
    await app.vault.delete(app.vault.getFileByPath("user/user-profile.md")!);
    // Nothing is written until the edits settle.
    expect(statSync(vaultFiles.snapshot(vault)).mtimeMs).toBe(before);
    // The quiet spell ended by hand once the edits are in: the test waits for the write, not the clock.
    await until(() => (runPendingDebouncers(), existsSync(vaultFiles.snapshot(vault)) && snapshotPaths().includes("debugging/new-card.md")));
    const paths = snapshotPaths();
    expect(paths).toContain("feedback/commit-style.md");
    expect(paths).not.toContain("feedback/commit-messages.md");
    expect(paths).not.toContain("user/user-profile.md");
    const out = runBridge(["recall", "--vault", vault], hookJson("zeppelin hangar quirk")).stdout;
    expect(out).toContain("new-card.md — zeppelin quirk fixed");
  });

  it("writes a large snapshot in slices, and keeps edits made while it writes", async () => {
    // Generated, so that a fresh clone runs it too, and large enough that serialising it takes
    // many of the write's 12 ms slices on any machine (the help vault's 173 notes could take one).
    vault = join(tempDir(), "Large vault");
    generateVault(vault, GENERATED_NOTES);
    app = new App(vault);
    await started();
    const service = plugin.indexService!;
    // Created through the vault, so the plugin hears of it as of any edit.
    await app.vault.create("Plugins/Zeppelin.md", "---\ndescription: zeppelin docking\n---\nzeppelin docking bay");
    // Count the turns the write gives Obsidian, and edit a card while it has given one.
    let pauses = 0;
    const pause = service.pause;
    service.pause = () => {
      pauses++;
      return pause();
    };
    const writing = service.rebuild();
    await until(() => pauses > 0);
    await app.vault.create("Plugins/Hangar.md", "---\ndescription: hangar doors\n---\nhangar doors zeppelin");
    // A second flush while the first is paused mid-write waits its turn instead of changing
    // the index under it: the first write must come out whole.
    const second = service.flush();
    await writing;
    expect(pauses).toBeGreaterThan(0);
    expect(verifySnapshot(vaultFiles.snapshot(vault)).cards).toBeGreaterThanOrEqual(GENERATED_NOTES + 1);
    // Whole means every segment parses too, not only that its bytes match its hash.
    const lines = readFileSync(vaultFiles.snapshot(vault), "utf8").trimEnd().split("\n");
    for (const segment of lines.slice(2)) expect(() => JSON.parse(segment) as unknown).not.toThrow();
    expect(snapshotPaths()).toContain("Plugins/Zeppelin.md");
    await second;
    expect(snapshotPaths()).toEqual(expect.arrayContaining(["Plugins/Zeppelin.md", "Plugins/Hangar.md"]));
    expect(snapshotPaths()).toHaveLength(GENERATED_NOTES + 2);
    // The edit after the full write went to an overlay: the base was not written again.
    expect(existsSync(overlayPathOf(vaultFiles.snapshot(vault)))).toBe(true);
    expect(verifySnapshot(vaultFiles.snapshot(vault)).cards).toBe(GENERATED_NOTES + 1);
  });

  it("tries again when the first index build fails", async () => {
    // The synonyms note is read first; a failure there fails the whole build.
    const read = app.vault.cachedRead.bind(app.vault);
    app.vault.cachedRead = (file) => (file.path === "meta/synonyms.md" ? Promise.reject(new Error("disk busy")) : read(file));
    plugin = await startPlugin(app);
    // The failure is logged; the rebuild asked for again runs at the next edit or flush.
    await until(() => existsSync(vaultFiles.log(vault)) && readFileSync(vaultFiles.log(vault), "utf8").includes("could not rebuild the index"));
    await plugin.indexService!.idle();
    expect(existsSync(vaultFiles.snapshot(vault))).toBe(false);
    app.vault.cachedRead = read;
    await plugin.indexService!.flush();
    expect(snapshotPaths()).toHaveLength(15);
  });

  it("previews exactly what the hook prints, from the same scorer", async () => {
    await started();
    for (const prompt of ["为什么排程跑不起来", "vite 部署到自訂網域 base 路徑", "how do I write the commit message", "ok continue"]) {
      const fromHook = runBridge(["recall", "--vault", vault], hookJson(prompt)).stdout;
      expect(plugin.indexService?.preview(prompt).text).toBe(fromHook);
    }
  });

  it("rewrites the snapshot and config.json when settings change", async () => {
    await started();
    plugin.settings.recall.thresholds.maxCards = 1;
    await plugin.saveSettings();
    const config = JSON.parse(readFileSync(vaultFiles.config(vault), "utf8")) as { recall: { thresholds: { maxCards: number } } };
    expect(config.recall.thresholds.maxCards).toBe(1);
    const r = SnapshotReader.open(vaultFiles.snapshot(vault));
    expect(r.header.rules.thresholds.maxCards).toBe(1);
    r.close();
    expect(existsSync(join(vault, ".obsidian", "plugins", "vault-memory", "data.json"))).toBe(true);
  });

  it("indexes only the memory folder when one is set", async () => {
    await started();
    plugin.settings.memoryFolder = "debugging";
    await plugin.saveSettings();
    expect(snapshotPaths().every((p) => p.startsWith("debugging/"))).toBe(true);
  });

  it("shows progress while rebuilding from the command palette", async () => {
    await started();
    Notice.shown.length = 0;
    app.commands.get("vault-memory:rebuild-index")?.callback?.();
    await until(() => Notice.shown.some((n) => n.message === "Vault Memory: indexed 15 cards."));
  });
});

describe("Preview recall modal", () => {
  it("renders the hook's output and the scored cards, or says nothing would be added", async () => {
    await started();
    const modal = new PreviewRecallModal(app as never, (p) => plugin.indexService!.preview(p));
    modal.open();
    const textarea = modal.contentEl.querySelector("textarea")!;
    textarea.value = "为什么排程跑不起来";
    textarea.dispatchEvent(new Event("input"));
    modal.contentEl.querySelector("button")!.click();
    expect(modal.contentEl.querySelector("pre")?.textContent).toContain("launchd-cron-path.md");
    expect(modal.contentEl.querySelector(".vault-memory-card-path")?.textContent).toBe("debugging/launchd-cron-path.md");
    modal.render("ok continue");
    expect(modal.contentEl.querySelector(".vault-memory-empty")?.textContent).toMatch(/Nothing would be added/);
    modal.close();
  });

  it.skipIf(!canScreenshot)("reads well in light and dark, with a Chinese prompt's cards", async () => {
    await started();
    const modal = new PreviewRecallModal(app as never, (p) => plugin.indexService!.preview(p));
    modal.open();
    modal.render("为什么排程跑不起来");
    const r = renderView("preview-recall", shownHtml(modal.containerEl), "800,900");
    expect(problems(r)).toEqual(NO_PROBLEMS);
    expect(Math.min(...r.check.dark.cjkWidths)).toBeGreaterThan(20);
    modal.close();
  });

  it("shows which recall hint brought a card up", async () => {
    await started();
    await app.vault.create(
      "reference/version-history.md",
      '---\nname: Version history\ndescription: Snapshots kept for a year\ntype: reference\nquestions: ["how do I back up my vault", "get back a deleted note"]\n---\nSnapshots of every file are kept for a year.\n',
    );
    await plugin.indexService!.flush();
    const modal = new PreviewRecallModal(app as never, (p) => plugin.indexService!.preview(p));
    modal.open();
    modal.render("how should I back up my vault?");
    expect(modal.contentEl.querySelector(".vault-memory-card-path")?.textContent).toBe("reference/version-history.md");
    expect(modal.contentEl.querySelector(".vault-memory-card-hint")?.textContent).toBe("Matched hint: how do I back up my vault");
    modal.close();
  });
});
