// @vitest-environment happy-dom
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCard } from "../../src/core/card/card";
import { hintsOf, hintState } from "../../src/core/card/hints";
import { takeFileLock } from "../../src/core/io/file-lock";
import { vaultFiles } from "../../src/core/paths";
import type VaultMemoryPlugin from "../../src/plugin/main";
import { App, Notice } from "../fakes/obsidian";
import { ROOT, SAMPLE_VAULT, copyVault, markdownFiles, tempDir } from "../helpers";
import { until } from "../wait";
import { startPlugin } from "./start-plugin";

let plugin: VaultMemoryPlugin | undefined;
afterEach(() => {
  plugin?.unload();
  delete process.env.VAULT_MEMORY_HINTS_FILE;
});

/** The plugin on a copy of the sample vault, its LLM a recorded one answering two questions a card. */
async function started(name: string): Promise<{ vault: string; app: App; plugin: VaultMemoryPlugin }> {
  const vault = copyVault(SAMPLE_VAULT, name);
  const answers = join(tempDir(), "a.jsonl");
  writeFileSync(
    answers,
    markdownFiles(vault)
      .map((path) => JSON.stringify({ path, questions: [`what is in ${path}?`, "second question"] }))
      .join("\n"),
  );
  process.env.VAULT_MEMORY_HINTS_FILE = answers;
  const app = new App(vault);
  const started = await startPlugin(app);
  plugin = started;
  started.settings.memoryFolder = "debugging";
  started.settings.digest.binary = join(ROOT, "eval", "hints-llm.mjs");
  return { vault, app, plugin: started };
}

describe("the Enrich cards command", () => {
  it("asks the LLM command and writes each card's hints through processFrontMatter, and only inside the memory folder", async () => {
    const { vault, app, plugin } = await started("Enrich vault");
    const outside = readFileSync(join(vault, "reference", "hook-output-rules.md"), "utf8");
    const command = app.commands.get("vault-memory:enrich-cards");
    expect(command?.name).toBe("Enrich cards");
    expect(command?.hotkeys ?? []).toEqual([]);
    const shown = Notice.shown.length;
    command?.callback?.();
    await until(() => Notice.shown.slice(shown).some((n) => /enriched \d+ cards/.test(n.message)));
    expect(Notice.shown.slice(shown).map((n) => n.message)).toContainEqual("Vault Memory: enriched 3 cards, 0 skipped; 0 left.");
    // Progress went to one lasting notice, set line by line and hidden at the end.
    const progress = Notice.shown.slice(shown).find((n) => n.duration === 0);
    expect(progress?.message).toMatch(/^Vault Memory enrich: wrote 2 questions to debugging\//);
    expect(progress?.hidden).toBe(true);
    expect(app.fileManager.processFrontMatterCalls).toBe(3);
    for (const p of markdownFiles(join(vault, "debugging"))) {
      const card = parseCard(`debugging/${p}`, readFileSync(join(vault, "debugging", p), "utf8"));
      expect(hintsOf(card, "questions")).toEqual([`what is in debugging/${p}?`, "second question"]);
      expect(hintState(card, "questions")).toBe("current");
    }
    expect(readFileSync(join(vault, "reference", "hook-output-rules.md"), "utf8")).toBe(outside);

    // A second run has nothing to do.
    const again = await plugin.enrich?.run();
    expect(again).toMatchObject({ ok: true, calls: 0, written: [] });
    expect(app.fileManager.processFrontMatterCalls).toBe(3);
  });

  it("leaves a card for the next run while another writer holds the card lock, and never waits on it", async () => {
    const { vault, app, plugin } = await started("Locked vault");
    const before = markdownFiles(join(vault, "debugging")).map((p) => readFileSync(join(vault, "debugging", p), "utf8"));
    // The digest, say, writing a card: this process holds the lock, and it is alive.
    const release = takeFileLock(vaultFiles.cardsLock(vault), { staleMs: 60_000, waitMs: 1_000, what: "the test's cards" });
    try {
      const held = await plugin.enrich?.run();
      expect(held).toMatchObject({ ok: true, written: [] });
      expect(held?.skipped.map((x) => x.reason)).toEqual(Array(3).fill("changed while the LLM answered; left for the next run"));
      expect(app.fileManager.processFrontMatterCalls).toBe(0);
      expect(markdownFiles(join(vault, "debugging")).map((p) => readFileSync(join(vault, "debugging", p), "utf8"))).toEqual(before);
    } finally {
      release();
    }
    const free = await plugin.enrich?.run();
    expect(free?.written).toHaveLength(3);
    expect(app.fileManager.processFrontMatterCalls).toBe(3);
  });
});
