/** The nightly digest with semantic recall on: similar cards by meaning too, and the snapshot it writes keeps its vectors. */

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, type VaultMemoryConfig } from "../../../src/core/config";
import { runDigest } from "../../../src/core/digest/run";
import { closeVectors, openVectors, vectorsPathOf } from "../../../src/core/embed/vectors";
import { archiveCardNow } from "../../../src/core/digest/edit-now";
import { vectorsAfterWrite } from "../../../src/core/digest/write-now";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { vaultFiles } from "../../../src/core/paths";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { listPending } from "../../../src/core/queue/queue-store";
import { entrySubject } from "../../../src/core/queue/review";
import { similarCards } from "../../../src/core/recall/similar";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { startEmbedStub, type EmbedStub } from "../../e2e/embed-stub";
import { jsonl, line } from "../../fixtures/transcript";
import { SAMPLE_VAULT, copyVault, hookJson, runBridgeAsync, tempDir, withMachineSettings } from "../../helpers";

const machine = withMachineSettings();

// A card and a conversation with no word in common, which the stand-in's vectors make mean the same.
const CARD = "reference/kettle-descaling.md";
const CARD_TEXT =
  "---\nname: Kettle descaling\ndescription: Descale the kettle monthly with citric acid\ntype: reference\ntags: [home]\n---\nDescale the kettle monthly with citric acid; rinse twice.\n";
const QUESTION = "how should I get rid of teapot limescale buildup?";
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
const reply = "Here is a long enough reply about the teapot limescale buildup to keep it.";

let stub: EmbedStub;
beforeAll(async () => {
  stub = await startEmbedStub(CONCEPTS);
});
afterAll(() => stub.close());

/** A vault indexed with semantic recall on, one conversation queued, and an LLM that records its prompt and skips. */
async function night(): Promise<{ vault: string; config: VaultMemoryConfig; prompts: string }> {
  const vault = copyVault(SAMPLE_VAULT, "Digest meaning");
  writeFileSync(join(vault, CARD), CARD_TEXT);
  // A budget no load reaches: the test is of what the night embeds, not of how long a prompt waits.
  const embed = { enabled: true, url: stub.url, model: "stub-model", budgetMs: 60_000 };
  mkdirSync(join(vault, ".vault-memory"), { recursive: true });
  writeFileSync(vaultFiles.config(vault), JSON.stringify({ embed }));
  machine.write({ embed });
  stub.mode = "ok";
  expect((await runBridgeAsync(["index", "--vault", vault])).status).toBe(0);
  const t = join(tempDir(), "t.jsonl");
  writeFileSync(t, jsonl([line.prompt(QUESTION), line.reply(reply), line.prompt("teapot limescale again, how should I get rid of it"), line.reply(reply)]));
  captureSession(vault, { sessionId: "kettle", transcriptPath: t, cwd: "/work/errands", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  const prompts = join(tempDir(), "prompts.txt");
  const config = defaultConfig();
  config.embed = { ...config.embed, ...embed };
  config.enrich.perNight = 0;
  config.digest.command = ["/bin/sh", "-c", `cat >> ${JSON.stringify(prompts)}; echo '{"action":"skip","reason":"a test night"}'`];
  return { vault, config, prompts };
}

const similarOffered = (prompts: string): string => /<similar_cards>([\s\S]*?)<\/similar_cards>/.exec(readFileSync(prompts, "utf8"))?.[1] ?? "";

describe("the nightly digest with semantic recall on", () => {
  it("offers the LLM the card the conversation means but does not name", async () => {
    const { vault, config, prompts } = await night();
    // Words alone do not find it: the conversation shares no word with the card.
    const entry = listPending(vault)[0];
    const { index } = buildIndexFromDisk(vault, config);
    expect(similarCards(entrySubject(entry, readFileSync(join(vault, entry.inbox), "utf8")), index, 5).map((c) => c.path)).not.toContain(CARD);
    const report = await runDigest({ vault, config });
    expect(report.ok).toBe(true);
    expect(similarOffered(prompts)).toContain(CARD);
  });

  it("offers no card that is gone since the vectors were written (renamed or deleted with Obsidian closed)", async () => {
    const { vault, config, prompts } = await night();
    renameSync(join(vault, CARD), join(tempDir(), "kettle-descaling.md"));
    const report = await runDigest({ vault, config });
    expect(report.ok).toBe(true);
    expect(report.results.map((r) => r.outcome.action)).toEqual(["skipped"]);
    expect(similarOffered(prompts)).not.toContain(CARD);
  });

  it("embeds for the snapshot it writes, so the prompt hook still finds cards by meaning after the night", async () => {
    const { vault, config } = await night();
    const before = stub.texts.length;
    const report = await runDigest({ vault, config });
    expect(report.semantic?.at(-1)).toMatch(/^semantic recall: \d+ texts? embedded, \d+ from the cache, \d+ cards/);
    // Only what the night changed is sent again (its index pages), not the cards it left alone.
    const sent = stub.texts.slice(before);
    expect(sent[0]).toBe(QUESTION);
    expect(sent.filter((t) => t.startsWith("Kettle descaling"))).toEqual([]);
    // The night's own snapshot: the vectors are for it.
    const snapshot = vaultFiles.snapshot(vault);
    const reader = SnapshotReader.open(snapshot);
    reader.close();
    const vectorsHead = JSON.parse(readFileSync(vectorsPathOf(snapshot), "utf8").split("\n")[0]) as { base: string };
    expect(vectorsHead.base).toBe(reader.header.headerSum);
    const r = await runBridgeAsync(["recall", "--vault", vault, "--deadline-ms", "60000"], hookJson(QUESTION));
    expect(r.stdout.split("\n")[2]).toContain(join(vault, CARD));
    const log = existsSync(vaultFiles.log(vault)) ? readFileSync(vaultFiles.log(vault), "utf8") : "";
    expect(log).not.toMatch(/semantic recall:/);
  });

  it("finishes the night on words when the server fails, and says so in its report", async () => {
    const { vault, config, prompts } = await night();
    stub.mode = "error";
    const report = await runDigest({ vault, config });
    stub.mode = "ok";
    expect(report.ok).toBe(true);
    expect(report.results.map((r) => r.outcome.action)).toEqual(["skipped"]);
    expect(similarOffered(prompts)).not.toContain(CARD);
    expect(report.semantic).toEqual([
      expect.stringMatching(/^semantic recall: HTTP 500: model not loaded; similar cards by words alone tonight$/),
      expect.stringMatching(/^semantic recall: (stopped|0 texts embedded)/),
    ]);
    expect(readFileSync(join(vault, report.reportPath!), "utf8")).toMatch(/^Semantic recall: HTTP 500/m);
  });

  it("extends the card a new one means in other words, rather than writing it beside it", async () => {
    const { vault, config } = await night();
    // The model files the conversation as a new card, in the conversation's words.
    const answer = {
      action: "create",
      folder: "reference",
      fileName: "teapot-limescale",
      frontmatter: { name: "Teapot limescale", description: "How should I get rid of teapot limescale buildup", type: "reference", tags: ["home"] },
      body: "how should i get rid of teapot limescale buildup",
      related: [],
    };
    const file = join(tempDir(), "answer.json");
    writeFileSync(file, JSON.stringify(answer));
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; cat '${file}'`];
    const report = await runDigest({ vault, config });
    expect(report.results[0].outcome).toMatchObject({ action: "extended", path: CARD, duplicateOf: { why: "meaning" } });
    expect(existsSync(join(vault, "reference", "teapot-limescale.md"))).toBe(false);
    expect(readFileSync(join(vault, CARD), "utf8")).toContain("teapot limescale buildup");
  });
});

describe("a card changed in place with semantic recall on", () => {
  it("gives the whole snapshot the change wrote its vectors, so recall keeps its meaning", async () => {
    const { vault, config } = await night();
    // With the snapshot gone, the change writes a whole one, with a new headerSum.
    rmSync(vaultFiles.snapshot(vault));
    const e = archiveCardNow({ path: "feedback/commit-messages.md", reason: "replaced by a newer card", personAsked: true }, { vault, config });
    expect(e.snapshot.snapshot).toBe("full");
    expect(await vectorsAfterWrite(vault, config, e.snapshot)).toBe("full");
    const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
    const headerSum = reader.header.headerSum ?? "";
    reader.close();
    const v = openVectors(vectorsPathOf(vaultFiles.snapshot(vault)), headerSum, "stub-model");
    closeVectors(v);
  });
});
