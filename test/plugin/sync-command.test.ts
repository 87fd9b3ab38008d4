// @vitest-environment happy-dom
/**
 * Sync from Obsidian: "Sync memory now" runs the bridge's `sync` in a process of its own against a
 * real git remote, and says in a notice what it did; the settings tab's switch is this computer's.
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type VaultMemoryPlugin from "../../src/plugin/main";
import { MACHINE_STORAGE_KEY } from "../../src/plugin/machine-settings";
import { SyncRunner } from "../../src/plugin/sync-command";
import { vaultFiles } from "../../src/core/paths";
import { defaultConfig } from "../../src/core/config";
import { App, Notice } from "../fakes/obsidian";
import { tempDir } from "../helpers";
import { until } from "../wait";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../git-remote";
import { startPlugin } from "./start-plugin";

const card = (name: string, body: string): string => `---\nname: ${name}\ndescription: ${name}\ntype: reference\ntags: [t]\n---\n${body}\n`;

/** The notices shown from now on, by their text. */
function noticesFrom(): () => string[] {
  const from = Notice.shown.length;
  return () => Notice.shown.slice(from).map((n) => n.message);
}

let plugin: VaultMemoryPlugin | undefined;
const saved = { HOME: process.env.HOME, GIT_CONFIG_NOSYSTEM: process.env.GIT_CONFIG_NOSYSTEM };

/** Obsidian open on this computer's vault: the bridge it starts runs git with this computer's HOME. */
async function obsidianOn(c: Computer): Promise<{ app: App; obsidian: VaultMemoryPlugin; syncNow: () => void }> {
  process.env.HOME = c.env.HOME;
  process.env.GIT_CONFIG_NOSYSTEM = "1";
  const app = new App(c.vault);
  const obsidian = await startPlugin(app);
  plugin = obsidian;
  return { app, obsidian, syncNow: () => void app.commands.get("vault-memory:sync-now")?.callback?.() };
}

afterEach(async () => {
  // Nothing of the test may still run when the next one starts.
  await until(() => !plugin?.syncer?.isRunning);
  plugin?.unload();
  plugin = undefined;
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe.skipIf(!gitAvailable || process.platform === "win32")("Sync memory now", () => {
  let remote: Remote;
  let desk: Computer;
  let laptop: Computer;
  beforeAll(async () => {
    remote = await startRemote();
    desk = computer(remote.url, "desk", { seed: { "reference/seed.md": card("seed", "The first card.") } });
    laptop = computer(remote.url, "laptop");
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it("sends a card written in the vault to the remote, where another computer's clone finds it, one sync at a time", async () => {
    const { app, obsidian } = await obsidianOn(desk);
    writeFileSync(join(desk.vault, "reference", "written-in-obsidian.md"), card("written in Obsidian", "Kept on the desk, shared with the laptop."));
    const said = noticesFrom();
    const command = app.commands.get("vault-memory:sync-now");
    expect(command?.name).toBe("Sync memory now");
    expect(command?.hotkeys).toBeUndefined();
    void command?.callback?.();
    // A second press while the first runs starts nothing and says so.
    void command?.callback?.();
    expect(said()).toEqual(["Vault Memory sync: starting…", "The sync is already running."]);
    await until(() => !obsidian.syncer!.isRunning);
    const outcome = said().pop()!;
    expect(outcome).toMatch(/^Vault Memory sync: committed \d+ files; nothing new on origin\/main; pushed$/);
    // The progress notice is gone once the sync ended.
    expect(Notice.shown.find((n) => n.message.startsWith("Vault Memory sync: fetching"))?.hidden ?? true).toBe(true);
    laptop.git("pull", "-q");
    expect(readFileSync(join(laptop.vault, "reference", "written-in-obsidian.md"), "utf8")).toContain("Kept on the desk, shared with the laptop.");
    // What is this computer's own stays here.
    expect(existsSync(join(laptop.vault, ".vault-memory"))).toBe(false);
  });

  it("merges what the other computer pushed, and names a conflict in its notice", async () => {
    writeFileSync(join(laptop.vault, "reference", "seed.md"), card("seed", "The first card, as the laptop tells it."));
    writeFileSync(join(laptop.vault, "reference", "from-laptop.md"), card("from the laptop", "Written on the laptop."));
    laptop.git("add", "-A");
    laptop.git("commit", "-q", "-m", "laptop");
    laptop.git("push", "-q");
    const { obsidian, syncNow } = await obsidianOn(desk);
    writeFileSync(join(desk.vault, "reference", "seed.md"), card("seed", "The first card, as the desk tells it."));
    const said = noticesFrom();
    syncNow();
    await until(() => !obsidian.syncer!.isRunning);
    const last = Notice.shown[Notice.shown.length - 1];
    expect(last.message.split("\n")).toEqual([
      "Vault Memory sync: committed 1 file; merged 1 commit from origin/main; pushed",
      expect.stringMatching(
        /^conflict in reference\/seed\.md: kept this computer's version; the other's is reference\/seed \(conflicted copy \d{4}-\d\d-\d\d [0-9a-f]{7}\)\.md$/,
      ),
    ]);
    // A conflict to act on stays on screen longer than a plain outcome.
    expect(last.duration).toBeGreaterThan(10_000);
    // Its progress was shown meanwhile, in the words of a sync.
    expect(said()[0]).toMatch(/^Vault Memory sync: /);
    expect(said()[0]).not.toMatch(/^Vault Memory sync: Vault Memory/);
    expect(existsSync(join(desk.vault, "reference", "from-laptop.md"))).toBe(true);
    expect(readFileSync(join(desk.vault, "reference", "seed.md"), "utf8")).toContain("as the desk tells it");
  });

  it("syncs by itself every few minutes when this computer asks for it, quietly", async () => {
    const { obsidian } = await obsidianOn(desk);
    writeFileSync(join(desk.vault, "reference", "on-a-timer.md"), card("on a timer", "Sent without a press."));
    // The last sync ended long ago (the one a moment ago would hold the next off for the interval).
    writeFileSync(join(vaultFiles.dir(desk.vault), "sync-status.json"), JSON.stringify({ finishedAt: "2026-01-01T00:00:00Z", ok: true }));
    const said = noticesFrom();
    // Off unless this computer turns sync on and sets an interval.
    obsidian.settings.sync = { enabled: false, intervalMinutes: 5 };
    expect(await obsidian.syncer!.tick()).toBeUndefined();
    obsidian.settings.sync = { enabled: true, intervalMinutes: 0 };
    expect(await obsidian.syncer!.tick()).toBeUndefined();
    obsidian.settings.sync = { enabled: true, intervalMinutes: 5 };
    const report = await obsidian.syncer!.tick();
    expect(report).toMatchObject({ ok: true, committed: 1, pushed: true });
    // The next is due five minutes after this one ended.
    expect(await obsidian.syncer!.tick()).toBeUndefined();
    expect(said()).toEqual([]);
    laptop.git("pull", "-q");
    expect(existsSync(join(laptop.vault, "reference", "on-a-timer.md"))).toBe(true);
  });

  it("shows why it stopped when the remote is down, and keeps this computer's changes committed", async () => {
    const down = await startRemote();
    const solo = computer(down.url, "solo", { seed: { "reference/seed.md": card("seed", "The first card.") } });
    await down.stop();
    const { obsidian, syncNow } = await obsidianOn(solo);
    writeFileSync(join(solo.vault, "reference", "offline.md"), card("offline", "Written while the remote was down."));
    syncNow();
    await until(() => !obsidian.syncer!.isRunning);
    const last = Notice.shown[Notice.shown.length - 1];
    expect(last.message).toMatch(
      /^Vault Memory sync stopped: cannot reach the remote origin: .+; this computer's changes are committed here and go with the next sync$/,
    );
    expect(last.duration).toBeGreaterThan(10_000);
    expect(solo.git("log", "-1", "--name-only", "--format=")).toContain("reference/offline.md");
    // And the plugin's log says it too.
    expect(readFileSync(vaultFiles.log(solo.vault), "utf8")).toMatch(/sync: stopped: cannot reach the remote origin/);
  });

  it("stops a sync that hangs, with what it started, and says so", async () => {
    // A bridge stuck on a network that never answers: the deadline is what is tested here.
    const hung = join(tempDir(), "bridge.sh");
    writeFileSync(hung, "cat >/dev/null; sleep 3600 & wait\n");
    const vault = tempDir();
    const said = noticesFrom();
    const runner = new SyncRunner(
      vault,
      defaultConfig,
      () => ({ node: "/bin/sh", bridge: hung, env: process.env }),
      () => {},
      100,
    );
    expect(await runner.run()).toMatchObject({ ok: false });
    expect(said().pop()).toBe("Vault Memory sync stopped: the sync did not end within 0.1 s and was stopped; the next sync finishes what it began");
  });
});

describe("the settings tab's sync switch", () => {
  let userDir = "";
  let before: string | undefined;
  beforeEach(() => {
    before = process.env.XDG_CONFIG_HOME;
    userDir = tempDir();
    process.env.XDG_CONFIG_HOME = userDir;
  });
  afterEach(() => {
    process.env.XDG_CONFIG_HOME = before;
  });

  it("is this computer's: written to the per-user file and this device's storage, never to the vault's files", async () => {
    const app = new App(tempDir());
    const obsidian = await startPlugin(app);
    plugin = obsidian;
    const tab = (obsidian as unknown as { settingTabs: { display(): void; containerEl: HTMLElement }[] }).settingTabs[0];
    tab.display();
    const field = (label: string) =>
      [...tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")].find((s) => s.querySelector(".setting-item-name")?.textContent === label)!;
    const toggle = field("Sync with other computers");
    expect(toggle.querySelector(".setting-item-description")?.textContent).toMatch(/before and after each night's digest.*session starts/i);
    toggle.querySelector<HTMLElement>(".checkbox-container")!.click();
    const interval = field("Sync interval").querySelector("input")!;
    interval.value = "15";
    interval.dispatchEvent(new Event("input"));
    const file = join(userDir, "vault-memory", "config.json");
    type UserFile = { vaults?: Record<string, { sync?: unknown }> };
    const user = (): UserFile => (existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as UserFile) : {});
    await until(() => JSON.stringify(user().vaults?.[app.vault.basePath]?.sync) === JSON.stringify({ enabled: true, intervalMinutes: 15 }));
    expect((app.loadLocalStorage(MACHINE_STORAGE_KEY) as { sync: unknown }).sync).toEqual({ enabled: true, intervalMinutes: 15 });
    // The vault's own files, which every computer sharing it can write, never hold it.
    const mirror = JSON.parse(readFileSync(vaultFiles.config(app.vault.basePath), "utf8")) as { sync?: object };
    const data = JSON.parse(readFileSync(join(app.vault.basePath, ".obsidian", "plugins", "vault-memory", "data.json"), "utf8")) as { sync?: object };
    expect(mirror.sync ?? {}).toEqual({});
    expect(data.sync ?? {}).toEqual({});
    // Turned off again: this computer follows the default, and the file says nothing of sync for the vault.
    toggle.querySelector<HTMLElement>(".checkbox-container")!.click();
    await until(() => JSON.stringify(user().vaults?.[app.vault.basePath]?.sync) === JSON.stringify({ intervalMinutes: 15 }));
    expect(obsidian.settings.sync.enabled).toBe(false);
  });
});
