// @vitest-environment happy-dom
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { folderChoices } from "../../src/plugin/first-run";
import type VaultMemoryPlugin from "../../src/plugin/main";
import { App } from "../fakes/obsidian";
import { SAMPLE_VAULT, copyVault, tempDir } from "../helpers";
import { until } from "../wait";
import { canScreenshot, NO_PROBLEMS, problems, renderView, shownHtml } from "../screenshot";
import { startPlugin } from "./start-plugin";

let plugin: VaultMemoryPlugin | undefined;
afterEach(() => {
  plugin?.unload();
  for (const m of document.querySelectorAll(".modal-container")) m.remove();
});

const modal = () => [...document.querySelectorAll<HTMLElement>(".modal-container")].pop();
const buttonIn = (el: HTMLElement, text: string) => [...el.querySelectorAll("button")].find((b) => b.textContent === text)!;

/** A vault of notes that are not memory, with Claude's memory in one folder of it. */
function mixedVault(): string {
  const vault = tempDir("vm-first-");
  mkdirSync(join(vault, "journal"), { recursive: true });
  mkdirSync(join(vault, "claude", "debugging"), { recursive: true });
  writeFileSync(join(vault, "journal", "monday.md"), "# Monday\nA walk by the river.\n");
  writeFileSync(join(vault, "claude", "MEMORY.md"), "# Memory\n- [[launchd]]\n");
  writeFileSync(
    join(vault, "claude", "debugging", "launchd.md"),
    "---\nname: launchd PATH\ndescription: cron jobs lack the login PATH\ntype: debugging\ntags: [launchd]\n---\nUse the absolute path.\n",
  );
  return vault;
}

describe("the first run", () => {
  it("offers the folders that hold a MEMORY.md first, then memory/, then the whole vault", () => {
    expect(folderChoices(["a.md", "claude/MEMORY.md", "deep/er/MEMORY.md"], () => false).map((c) => [c.folder, c.create])).toEqual([
      ["claude", false],
      ["deep/er", false],
      ["memory", true],
      ["", false],
    ]);
    expect(folderChoices(["MEMORY.md", "x.md"], (p) => p === "memory").map((c) => c.label)).toEqual([
      "The whole vault (it has MEMORY.md at its root)",
      "memory/",
    ]);
  });

  it("asks on first enable, explains what the folder is for, and uses the answer", async () => {
    const vault = mixedVault();
    const app = new App(vault);
    plugin = await startPlugin(app, true, false);
    const m = modal()!;
    expect(m.querySelector(".modal-title")?.textContent).toBe("Where does Claude's memory live?");
    expect(m.textContent).toMatch(/recalls, lints and enriches the notes in one folder/);
    expect(m.querySelector("select")?.value).toBe("0");
    expect([...m.querySelectorAll("option")].map((o) => o.textContent)).toEqual(["claude/ (it has a MEMORY.md)", "A new folder: memory/", "The whole vault"]);
    buttonIn(m, "Use this folder").click();
    await until(() => plugin?.settings.memoryFolder === "claude");
    expect(plugin.settings.memoryFolder).toBe("claude");
    const saved = JSON.parse(readFileSync(join(vault, ".obsidian", "plugins", "vault-memory", "data.json"), "utf8")) as { memoryFolder: string };
    expect(saved.memoryFolder).toBe("claude");
    // The answer is saved, then the index rebuilt for the folder alone.
    await until(async () => (await plugin?.indexService?.idle(), plugin?.indexService?.cardCount === 1));
    expect(plugin.indexService!.cardCount).toBe(1);
    plugin.unload();
    // Asked once: the next start goes straight to work.
    m.remove();
    plugin = await startPlugin(new App(vault), true, false);
    expect(modal()).toBeUndefined();
  });

  it("makes memory/ when that is the answer", async () => {
    const vault = mixedVault();
    const app = new App(vault);
    plugin = await startPlugin(app, true, false);
    const m = modal()!;
    const select = m.querySelector("select")!;
    select.value = "1";
    select.dispatchEvent(new Event("change"));
    buttonIn(m, "Use this folder").click();
    await until(() => plugin?.settings.memoryFolder === "memory" && existsSync(join(vault, "memory")));
    expect(existsSync(join(vault, "memory"))).toBe(true);
    expect(plugin.settings.memoryFolder).toBe("memory");
  });

  it("leaves a vault set up before as it is, and asks again later when the person decides later", async () => {
    const before = copyVault(SAMPLE_VAULT, "Set up");
    mkdirSync(join(before, ".obsidian", "plugins", "vault-memory"), { recursive: true });
    writeFileSync(join(before, ".obsidian", "plugins", "vault-memory", "data.json"), JSON.stringify({ memoryFolder: "" }));
    plugin = await startPlugin(new App(before), true, false);
    expect(modal()).toBeUndefined();
    expect(plugin.settings.memoryFolder).toBe("");
    plugin.unload();

    const vault = mixedVault();
    plugin = await startPlugin(new App(vault), true, false);
    buttonIn(modal()!, "Decide later").click();
    expect(plugin.settings.memoryFolder).toBe("");
    expect(existsSync(join(vault, ".obsidian", "plugins", "vault-memory", "data.json"))).toBe(false);
  });

  it.skipIf(!canScreenshot)("reads well in light and dark", async () => {
    plugin = await startPlugin(new App(mixedVault()), true, false);
    const r = renderView("first-run", shownHtml(modal()!), "800,600");
    expect(problems(r)).toEqual(NO_PROBLEMS);
  });
});
