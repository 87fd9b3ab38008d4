// @vitest-environment happy-dom
/**
 * Importing earlier sessions from Obsidian: offered once after Connect, run as the bridge's own
 * `import` in a process of its own, the imported backlog counted apart in the status bar and
 * collapsed in the queue sidebar.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type VaultMemoryPlugin from "../../src/plugin/main";
import { ConnectModal } from "../../src/plugin/connect";
import { IMPORT_OFFERED_KEY } from "../../src/plugin/import-command";
import { QUEUE_VIEW_TYPE, QueueReviewView } from "../../src/plugin/queue-view";
import { listPending } from "../../src/core/queue/queue-store";
import { App, Notice } from "../fakes/obsidian";
import { copyVault, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { until } from "../wait";
import { canScreenshot, NO_PROBLEMS, problems, renderView, shownHtml } from "../screenshot";
import { writeHistory } from "../fixtures/history";
import { jsonl, line } from "../fixtures/transcript";
import { startPlugin } from "./start-plugin";

let plugin: VaultMemoryPlugin | undefined;
const saved = { HOME: process.env.HOME, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };

afterEach(async () => {
  await until(() => !plugin?.importer?.isRunning);
  plugin?.unload();
  plugin = undefined;
  for (const m of document.querySelectorAll(".modal-container")) m.remove();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Obsidian open on a vault, on a computer whose Claude Code kept `sessions` earlier sessions. */
async function obsidianWithHistory(sessions: number): Promise<{ app: App; vault: string; home: string }> {
  const home = tempDir();
  writeHistory(join(home, ".claude", "projects"), sessions, { projects: 2, toolBytes: 100, turns: 3 });
  // The bridge Obsidian starts reads the person's home, as it would.
  process.env.HOME = home;
  delete process.env.CLAUDE_CONFIG_DIR;
  const vault = copyVault(SAMPLE_VAULT, "Import vault");
  runBridge(["index", "--vault", vault]);
  const app = new App(vault);
  plugin = await startPlugin(app);
  return { app, vault, home };
}

const offer = (): HTMLElement | undefined =>
  [...document.querySelectorAll<HTMLElement>(".modal-container")].find((m) => m.querySelector(".modal-title")?.textContent === "Import earlier sessions?");

describe("import of earlier sessions in Obsidian", () => {
  it("is offered once on this computer after Connect, and queues the sessions worth keeping", async () => {
    const { app, vault } = await obsidianWithHistory(6);
    const settingsPath = join(tempDir(), "settings.json");
    writeFileSync(settingsPath, "{}\n");
    const connect = new ConnectModal(app as never, { ...plugin!.connectContext, settingsPath }, "install");
    connect.open();
    [...connect.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Connect")!.click();
    await connect.done;
    const modal = offer();
    expect(modal?.textContent).toContain("up to 20 a night after each day's own conversations, newest first");
    const from = Notice.shown.length;
    [...modal!.querySelectorAll("button")].find((b) => b.textContent === "Import")!.click();
    await until(() => listPending(vault).length === 4 && !plugin!.importer!.isRunning);
    expect(listPending(vault).every((e) => e.imported)).toBe(true);
    await until(() => Notice.shown.slice(from).some((n) => n.message.startsWith("Vault Memory import: queued 4 sessions of 6")));
    expect(
      Notice.shown
        .slice(from)
        .map((n) => n.message)
        .join("\n"),
    ).toContain("passed by: 2 too short to keep");
    // Counted apart: the backlog is the digest's, not a review waiting.
    await until(() => (plugin as unknown as { statusBar: HTMLElement }).statusBar.textContent === "4 imported");
    expect(app.loadLocalStorage(IMPORT_OFFERED_KEY)).toBeTruthy();
    // Asked once, whatever the answer: a second Connect does not ask again.
    offer()?.remove();
    plugin!.offerImport();
    expect(offer()).toBeUndefined();
  });

  it("is not offered by a disconnect, and a person who says not now is not asked again", async () => {
    const { app, vault } = await obsidianWithHistory(3);
    const settingsPath = join(tempDir(), "settings.json");
    writeFileSync(settingsPath, "{}\n");
    const ctx = { ...plugin!.connectContext, settingsPath };
    const connect = new ConnectModal(app as never, ctx, "install");
    connect.open();
    [...connect.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Connect")!.click();
    await connect.done;
    [...offer()!.querySelectorAll("button")].find((b) => b.textContent === "Not now")!.click();
    expect(offer()).toBeUndefined();
    const disconnect = new ConnectModal(app as never, ctx, "uninstall");
    disconnect.open();
    [...disconnect.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Disconnect")!.click();
    await disconnect.done;
    plugin!.offerImport();
    expect(offer()).toBeUndefined();
    expect(listPending(vault)).toEqual([]);
    // The command stays in the palette.
    app.commands.get("vault-memory:import-history")?.callback?.();
    await until(() => listPending(vault).length === 2 && !plugin!.importer!.isRunning);
  });

  it("says why when the bridge cannot import", async () => {
    const { app } = await obsidianWithHistory(0);
    process.env.HOME = join(tempDir(), "no-such-home");
    const from = Notice.shown.length;
    app.commands.get("vault-memory:import-history")?.callback?.();
    await until(() => !plugin!.importer!.isRunning && Notice.shown.length > from + 1);
    expect(Notice.shown.slice(from).map((n) => n.message)).toContainEqual(
      expect.stringMatching(/^Vault Memory import stopped: the import ended \(exit 1\) without a report: vault-memory import: .*no-such-home.* does not exist/),
    );
  });
});

describe("the queue sidebar with imported sessions", () => {
  it("keeps the day's own conversations in view and the imported ones collapsed apart, newest first", async () => {
    const { app, vault, home } = await obsidianWithHistory(90);
    expect(runBridge(["import", "--vault", vault], "", { HOME: home }).status).toBe(0);
    const t = join(tempDir(), "today.jsonl");
    const reply = "Here is what changed and why, in enough words to be worth keeping as a card later on.";
    writeFileSync(
      t,
      jsonl([line.prompt("the nightly launchd job cannot find claude again"), line.reply(reply), line.prompt("and on windows?"), line.reply(reply)]),
    );
    runBridge(["queue", "--vault", vault], JSON.stringify({ session_id: "today", transcript_path: t, cwd: "/work/blog", stop_hook_active: false }));
    await plugin!.openQueue();
    const view = app.workspace.getLeavesOfType(QUEUE_VIEW_TYPE)[0]?.view;
    if (!(view instanceof QueueReviewView)) throw new Error("no queue view");
    const items = (): HTMLElement[] => [...view.contentEl.querySelectorAll<HTMLElement>(".vault-memory-queue-item")];
    expect(view.contentEl.querySelector(".vault-memory-queue-summary")?.textContent).toBe("1 conversation waits for review");
    expect(items()).toHaveLength(1);
    const part = view.contentEl.querySelector<HTMLElement>(".vault-memory-imported")!;
    expect(part.classList.contains("is-collapsed")).toBe(true);
    expect(part.textContent).toBe("Imported from before the install60");
    part.querySelector<HTMLElement>(".tree-item-self")!.click();
    // Each row reads its conversation: the first 50 are shown, the rest counted.
    expect(items()).toHaveLength(51);
    expect(view.contentEl.querySelector(".vault-memory-imported")?.textContent).toContain("… and 10 older");
    const firstImported = items()[1].textContent ?? "";
    expect(firstImported).toMatch(/project-0 · .* · 3 prompts · imported/);
    expect(items()[1].querySelector(".vault-memory-queue-first")?.textContent).toBe("Session 0 step 0: why does launchd PATH fail here?");
    if (!canScreenshot) return;
    const shot = renderView("queue-imported", shownHtml(view.contentEl));
    expect(problems(shot)).toEqual(NO_PROBLEMS);
  });
});
