// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/core/config";
import { VaultMemorySettingTab } from "../../src/plugin/settings";
import { App, Plugin } from "../fakes/obsidian";
import { tempDir } from "../helpers";
import { until } from "../wait";
import { canScreenshot, NO_PROBLEMS, problems, renderView, shownHtml } from "../screenshot";

/** The tab as Obsidian shows it, over default settings; `saves()` counts the saves asked for. */
function openTab() {
  const settings = defaultConfig();
  let saved = 0;
  const app = new App(tempDir());
  const plugin = new Plugin(app, { id: "vault-memory", name: "Vault Memory", version: "0" });
  const tab = new VaultMemorySettingTab(app as never, { plugin: plugin as never, settings, saveSettings: async () => void saved++, connect: () => {} });
  tab.display();
  return { settings, tab, saves: () => saved };
}

describe("settings tab", () => {
  it("says, with semantic recall on, which model made the vectors and whether the vault is calibrated", async () => {
    const settings = defaultConfig();
    settings.embed.enabled = true;
    const app = new App(tempDir());
    const plugin = new Plugin(app, { id: "vault-memory", name: "Vault Memory", version: "0" });
    const said = "12 of 12 cards embedded by multilingual-e5-small-q4; calibrated on 56 background prompts.";
    const tab = new VaultMemorySettingTab(app as never, {
      plugin: plugin as never,
      settings,
      saveSettings: async () => {},
      connect: () => {},
      semanticStatus: async () => said,
    });
    tab.display();
    const status = [...tab.containerEl.querySelectorAll(".setting-item")].find((s) => s.querySelector(".setting-item-name")?.textContent === "Status")!;
    await until(() => status.querySelector(".setting-item-description")?.textContent === said);
  });

  it("shows every section, in sentence case, and saves what is changed", async () => {
    const { settings, tab, saves } = openTab();
    const headings = [...tab.containerEl.querySelectorAll(".setting-item-heading .setting-item-name")].map((h) => h.textContent);
    expect(headings).toEqual(["Recall", "Queue", "Nightly digest", "Sync", "Recall hints", "Semantic recall", "Lint rules"]);
    for (const name of tab.containerEl.querySelectorAll(".setting-item-name")) {
      const text = name.textContent ?? "";
      // Sentence case: after the first word, only acronyms and brand names ("Claude Code") keep capitals.
      expect(
        text
          .split(" ")
          .slice(1)
          .every((w) => w === w.toLowerCase() || ["LLM", "Code", "MEMORY.md"].includes(w)),
        text,
      ).toBe(true);
    }
    const field = (label: string) =>
      [...tab.containerEl.querySelectorAll(".setting-item")].find((s) => s.querySelector(".setting-item-name")?.textContent === label)!;
    const time = field("Time").querySelector("input")!;
    time.value = "04:30";
    time.dispatchEvent(new Event("input"));
    expect(settings.digest.time).toBe("04:30");
    const synonyms = field("Synonyms note").querySelector("input")!;
    expect(synonyms.value).toBe("meta/synonyms.md");
    synonyms.value = " meta/words.md ";
    synonyms.dispatchEvent(new Event("input"));
    expect(settings.index.synonymsNote).toBe("meta/words.md");
    const set = (label: string, value: string) => {
      const input = field(label).querySelector("input")!;
      input.value = value;
      input.dispatchEvent(new Event("input"));
    };
    set("Cards enriched per night", "5");
    set("Cards per call", "0");
    set("Questions per card", "4");
    set("Also in language", "zh-TW");
    expect(settings.enrich).toEqual({ perNight: 5, batchSize: 6, questionsPerCard: 4, alsoLanguage: "zh-TW" });
    set("Also in language", "not a language!");
    expect(settings.enrich.alsoLanguage).toBe("zh-TW");
    // Rules by name, each saying what it checks.
    expect(field("Orphan card").querySelector(".setting-item-description")?.textContent).toMatch(/No links in or out/);
    expect(field("Cards per call").querySelector("input")?.type).toBe("number");
    field("Session brief").querySelector<HTMLElement>(".checkbox-container")!.click();
    expect(settings.brief.enabled).toBe(false);
    const toggle = field("Orphan card").querySelector<HTMLElement>(".checkbox-container")!;
    toggle.click();
    expect(settings.lint.disabled).toEqual(["orphan"]);
    // Saving is debounced: wait for the save itself.
    await until(() => saves() > 0);
  });

  it.skipIf(!canScreenshot)("reads well in light and dark: every field labelled, every rule described", () => {
    const { tab } = openTab();
    const html = shownHtml(tab.containerEl);
    // What a person sees in the fields, not empty boxes: the character cap, the digest's time.
    expect(html).toContain('value="2000"');
    expect(html).toContain('value="03:00"');
    const r = renderView("settings", `<div style="width:700px">${html}</div>`, "740,3400");
    expect(problems(r)).toEqual(NO_PROBLEMS);
    expect(r.check.light.texts).toBeGreaterThan(80);
  });

  it("keeps semantic recall off until turned on, and asks before a server on another computer", async () => {
    const { settings, tab, saves } = openTab();
    const field = (label: string) =>
      [...tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")].find((s) => s.querySelector(".setting-item-name")?.textContent === label)!;
    expect(settings.embed.enabled).toBe(false);
    expect(field("Semantic recall").textContent).toMatch(/ollama pull bge-m3/);
    field("Use semantic recall").querySelector<HTMLElement>(".checkbox-container")!.click();
    await until(() => settings.embed.enabled && saves() > 0);
    expect(settings.embed.enabled).toBe(true);
    expect(saves()).toBeGreaterThan(0);
    // A server on this computer needs no confirming; the remote switch stays hidden.
    const remote = field("Allow a server on another computer");
    expect(remote.hasClass("vault-memory-hidden")).toBe(true);
    const url = field("Server address").querySelector("input")!;
    url.value = "http://gpu-box.lan:11434";
    url.dispatchEvent(new Event("input"));
    expect(remote.hasClass("vault-memory-hidden")).toBe(false);
    expect(remote.textContent).toMatch(/sent to gpu-box\.lan:11434/);
    // Turning it on asks first; cancelling leaves it off.
    remote.querySelector<HTMLElement>(".checkbox-container")!.click();
    const modal = [...document.querySelectorAll<HTMLElement>(".modal-container")].pop()!;
    expect(modal.querySelector(".modal-title")?.textContent).toBe("Send prompts to another computer?");
    [...modal.querySelectorAll("button")].find((b) => b.textContent === "Cancel")!.click();
    expect(settings.embed.allowRemote).toBe(false);
    remote.querySelector<HTMLElement>(".checkbox-container")!.click();
    const again = [...document.querySelectorAll<HTMLElement>(".modal-container")].pop()!;
    [...again.querySelectorAll("button")].find((b) => b.textContent === "Allow gpu-box.lan:11434")!.click();
    expect(settings.embed.allowRemote).toBe(true);
  });
});
