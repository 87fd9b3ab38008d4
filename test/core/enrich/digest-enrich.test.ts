import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { hintState } from "../../../src/core/card/hints";
import { defaultConfig } from "../../../src/core/config";
import { runDigest } from "../../../src/core/digest/run";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { jsonl, line } from "../../fixtures/transcript";
import { ROOT, SAMPLE_VAULT, copyVault, markdownFiles, tempDir } from "../../helpers";

describe("the nightly digest enriches after the queue", () => {
  it("gives at most perNight cards their hints, inside the run's budget, and lists them in the report", async () => {
    const vault = copyVault(SAMPLE_VAULT);
    const t = join(tempDir(), "s.jsonl");
    const reply = "A reply long enough to count as real work in this conversation.";
    writeFileSync(t, jsonl([line.prompt("first question"), line.reply(reply), line.prompt("second question"), line.reply(reply)]));
    captureSession(vault, { sessionId: "night", transcriptPath: t, cwd: "/work/x", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    const answers = join(tempDir(), "a.jsonl");
    writeFileSync(
      answers,
      markdownFiles(vault)
        .map((path) => JSON.stringify({ path, questions: [`about ${path}`] }))
        .join("\n"),
    );
    const config = defaultConfig();
    config.digest.binary = join(ROOT, "eval", "hints-llm.mjs");
    config.enrich = { ...config.enrich, perNight: 4, batchSize: 3 };
    const r = await runDigest({ vault, config, env: { ...process.env, VAULT_MEMORY_HINTS_FILE: answers } });
    expect(r.ok, r.error).toBe(true);
    expect(r.results.map((x) => x.outcome.action)).toEqual(["skipped"]);
    expect(r.enriched?.calls).toBe(2);
    const done = r.enriched?.written.map((w) => w.path) ?? [];
    expect(done).toHaveLength(4);
    for (const p of done) expect(hintState(parseCard(p, readFileSync(join(vault, p), "utf8")), "questions")).toBe("current");
    const report = readFileSync(join(vault, r.reportPath ?? ""), "utf8");
    expect(report).toMatch(/## Cards enriched \(4\)\n(- \[\[[^\]]+\]\] — 1 question\n){4}Cards left to enrich: \d+\./);

    // No budget left after the queue: nothing is enriched.
    config.digest.maxCalls = 0;
    const none = await runDigest({ vault, config, env: { ...process.env, VAULT_MEMORY_HINTS_FILE: answers } });
    expect(none.enriched).toBeUndefined();
  });
});
