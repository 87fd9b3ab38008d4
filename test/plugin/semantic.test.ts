// @vitest-environment happy-dom
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { vectorsPathOf } from "../../src/core/embed/vectors";
import { vaultFiles } from "../../src/core/paths";
import { SnapshotReader } from "../../src/core/snapshot/read";
import type VaultMemoryPlugin from "../../src/plugin/main";
import { startEmbedStub, type EmbedStub } from "../e2e/embed-stub";
import { App, runPendingDebouncers } from "../fakes/obsidian";
import { SAMPLE_VAULT, copyVault, hookJson, runBridgeAsync, withMachineSettings } from "../helpers";
import { until } from "../wait";

// Semantic recall is set on this computer (the per-user file the plugin and the hook both read).
const machine = withMachineSettings();
import { startPlugin } from "./start-plugin";
import { PreviewRecallModal } from "../../src/plugin/preview-modal";
import { QUEUE_VIEW_TYPE, QueueReviewView } from "../../src/plugin/queue-view";
import { jsonl, line } from "../fixtures/transcript";
import { similarCards } from "../../src/core/recall/similar";
import { entrySubject } from "../../src/core/queue/review";
import { listPending } from "../../src/core/queue/queue-store";

const CARD = "reference/kettle-descaling.md";
// Every word of the prompt lands on one of the card's: the stand-in's hashed vectors spread
// widely over a vault, so a likeness must be near whole to stand out (embed/calibration.ts).
const CONCEPTS = {
  teapot: "kettle",
  limescale: "descale",
  buildup: "citric",
  rid: "monthly",
  get: "rinse",
  should: "acid",
  how: "with",
  i: "the",
  of: "twice",
};

let stub: EmbedStub;
let plugin: VaultMemoryPlugin | undefined;
beforeAll(async () => {
  stub = await startEmbedStub(CONCEPTS);
});
afterAll(() => stub.close());
afterEach(() => plugin?.unload());

describe("semantic recall from Obsidian", () => {
  it("embeds after the plugin writes the snapshot, so the hook finds a card by meaning", async () => {
    const vault = copyVault(SAMPLE_VAULT, "Plugin semantic");
    writeFileSync(
      join(vault, CARD),
      "---\nname: Kettle descaling\ndescription: Descale the kettle monthly with citric acid\ntype: reference\ntags: [home]\n---\nDescale the kettle monthly with citric acid; rinse twice.\n",
    );
    mkdirSync(join(vault, ".obsidian", "plugins", "vault-memory"), { recursive: true });
    writeFileSync(join(vault, ".obsidian", "plugins", "vault-memory", "data.json"), "{}");
    machine.write({ embed: { enabled: true, url: stub.url, model: "stub-model", budgetMs: 5000 } });
    plugin = await startPlugin(new App(vault));
    const snapshot = vaultFiles.snapshot(vault);
    const base = (): string => {
      if (!existsSync(snapshot)) return "";
      const r = SnapshotReader.open(snapshot);
      r.close();
      return r.header.headerSum ?? "";
    };
    const vectorsBase = (): string => {
      const path = vectorsPathOf(snapshot);
      if (!existsSync(path)) return "?";
      return (JSON.parse(readFileSync(path, "utf8").split("\n")[0]) as { base: string }).base;
    };
    await until(() => (runPendingDebouncers(), base() !== "" && vectorsBase() === base()));
    const r = await runBridgeAsync(["recall", "--vault", vault], hookJson("how should I get rid of teapot limescale buildup?"));
    expect(r.stdout.split("\n")[2]).toContain(CARD);

    // Preview recall shows the same, and says when it had to do without meaning.
    const modal = new PreviewRecallModal(
      plugin.app,
      (p) => plugin!.indexService!.preview(p),
      (p) => plugin!.indexService!.previewWithMeaning(p),
    );
    modal.open();
    await modal.renderWithMeaning("how should I get rid of teapot limescale buildup?");
    expect(modal.contentEl.querySelector(".vault-memory-card-path")?.textContent).toBe(CARD);
    stub.mode = "error";
    await modal.renderWithMeaning("how should I get rid of teapot limescale buildup?");
    expect(modal.contentEl.textContent).toMatch(/Semantic recall could not be used \(HTTP 500/);
    stub.mode = "ok";
    modal.close();
  });

  it("says once that the server cannot be reached, and recall keeps to words", async () => {
    const vault = copyVault(SAMPLE_VAULT, "Plugin semantic down");
    mkdirSync(join(vault, ".obsidian", "plugins", "vault-memory"), { recursive: true });
    writeFileSync(join(vault, ".obsidian", "plugins", "vault-memory", "data.json"), "{}");
    machine.write({ embed: { enabled: true, url: "http://127.0.0.1:9", model: "stub-model" } });
    plugin = await startPlugin(new App(vault));
    await until(
      () => (runPendingDebouncers(), existsSync(vaultFiles.log(vault)) && /semantic recall: stopped/.test(readFileSync(vaultFiles.log(vault), "utf8"))),
    );
    const r = await runBridgeAsync(["recall", "--vault", vault], hookJson("why does my nightly job fail under launchd?"));
    expect(r.stdout).toContain("launchd-cron-path.md");
  });

  it("suggests, in the queue sidebar, the card the conversation means but does not name", async () => {
    const vault = copyVault(SAMPLE_VAULT, "Plugin semantic queue");
    writeFileSync(
      join(vault, CARD),
      "---\nname: Kettle descaling\ndescription: Descale the kettle monthly with citric acid\ntype: reference\ntags: [kitchen]\n---\nDescale the kettle monthly with citric acid; rinse twice.\n",
    );
    mkdirSync(join(vault, ".obsidian", "plugins", "vault-memory"), { recursive: true });
    writeFileSync(join(vault, ".obsidian", "plugins", "vault-memory", "data.json"), "{}");
    machine.write({ embed: { enabled: true, url: stub.url, model: "stub-model", budgetMs: 5000 } });
    const transcript = join(vault, "..", "t.jsonl");
    // No word of the conversation is in the card: only the stand-in's meaning joins them.
    const reply = "Here is a long enough reply about the teapot limescale buildup to keep it.";
    writeFileSync(
      transcript,
      jsonl([
        line.prompt("how should I get rid of teapot limescale buildup?"),
        line.reply(reply),
        line.prompt("teapot limescale again, how should I get rid of it"),
        line.reply(reply),
      ]),
    );
    expect(
      (
        await runBridgeAsync(
          ["queue", "--vault", vault],
          JSON.stringify({ session_id: "kettle", transcript_path: transcript, cwd: "/work/errands", stop_hook_active: false }),
        )
      ).status,
    ).toBe(0);
    plugin = await startPlugin(new App(vault));
    const snapshot = vaultFiles.snapshot(vault);
    await until(() => (runPendingDebouncers(), existsSync(vectorsPathOf(snapshot))));
    await plugin.openQueue();
    const view = plugin.app.workspace.getLeavesOfType(QUEUE_VIEW_TYPE)[0].view as unknown as QueueReviewView;
    view.open("kettle");
    const suggested = () => [...view.contentEl.querySelectorAll(".vault-memory-suggestion .internal-link")].map((a) => a.textContent);
    // Words alone do not suggest it (the conversation shares no word with it); meaning does.
    const entry = listPending(vault)[0];
    const wordsOnly = similarCards(entrySubject(entry, readFileSync(join(vault, entry.inbox), "utf8")), plugin.indexService!.source, 5).map((c) => c.path);
    expect(wordsOnly).not.toContain(CARD);
    await until(() => (runPendingDebouncers(), suggested().includes(CARD)));
  });
});
