/**
 * A night interrupted between writing a card and marking its conversation handled (killed, or the
 * entry's lock held): the next night finishes it, and the conversation never becomes two cards
 * nor extends a card twice.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { runDigest } from "../../../src/core/digest/run";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { handledPath, listHandled, listPending } from "../../../src/core/queue/queue-store";
import { jsonl, line } from "../../fixtures/transcript";
import { tempDir, vaultWith } from "../../helpers";

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CARD = "---\nname: Pool size\ndescription: how big the pool is\ntype: reference\ntags: [db]\n---\n# Pool size\n\nTen connections.\n";

function setUp(): { vault: string; calls: string } {
  const vault = vaultWith({ "reference/pool-size.md": CARD });
  const dir = tempDir();
  made.push(vault, dir);
  const t = join(dir, "t.jsonl");
  const reply = "A reply long enough to count as real work in this conversation.";
  writeFileSync(t, jsonl([line.prompt("how big should the pool be"), line.reply(reply), line.prompt("and the timeout"), line.reply(reply)]));
  captureSession(vault, { sessionId: "night-1", transcriptPath: t, cwd: "/work/x", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  return { vault, calls: join(dir, "calls.log") };
}

/** A night whose LLM answers `answer`, counting its calls; the handled entry's place blocked when `blocked`. */
async function night(vault: string, calls: string, answer: unknown) {
  const config = defaultConfig();
  config.enrich.perNight = 0;
  config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; echo call >> "${calls}"; echo '${JSON.stringify(answer)}'`];
  return runDigest({ vault, config });
}

const callsMade = (calls: string): number => (existsSync(calls) ? readFileSync(calls, "utf8").split("\n").filter(Boolean).length : 0);

describe("a night interrupted after writing", () => {
  it("makes one card of a conversation, and says at once what happened", async () => {
    const { vault, calls } = setUp();
    const create = {
      action: "create",
      folder: "reference",
      fileName: "pool-timeout",
      frontmatter: { name: "Pool timeout", description: "the timeout of the pool", type: "reference", tags: ["db"] },
      body: "Thirty seconds.",
      related: ["pool-size"],
    };
    // The entry cannot be marked handled: something stands where its handled record goes.
    mkdirSync(handledPath(vault, "night-1"), { recursive: true });
    const first = await night(vault, calls, create);
    expect(
      first.results.map((r) => [r.outcome.action, r.outcome.path]),
      JSON.stringify(first),
    ).toEqual([["created", "reference/pool-timeout.md"]]);
    expect(first.failures[0].reason).toMatch(/created reference\/pool-timeout\.md, but its queue entry could not be marked handled .*the next run finishes it/);
    expect(listPending(vault).map((e) => e.sessionId)).toEqual(["night-1"]);
    rmSync(handledPath(vault, "night-1"), { recursive: true });

    // The next night would be answered differently; it is not asked.
    const second = await night(vault, calls, { ...create, fileName: "pool-timeout-again", frontmatter: { ...create.frontmatter, name: "Pool timeout again" } });
    expect(second.ok).toBe(true);
    expect(second.results.map((r) => [r.outcome.action, r.outcome.path])).toEqual([["created", "reference/pool-timeout.md"]]);
    expect(callsMade(calls)).toBe(1);
    expect(readdirSync(join(vault, "reference")).sort()).toEqual(["pool-size.md", "pool-timeout.md"]);
    expect(listPending(vault)).toEqual([]);
    expect(listHandled(vault).map((e) => [e.sessionId, e.outcome.detail])).toEqual([["night-1", "reference/pool-timeout.md"]]);
  });

  it("extends a card once", async () => {
    const { vault, calls } = setUp();
    const append = { action: "append", target: "reference/pool-size.md", section: "Raise it to twenty under load.", related: [] };
    mkdirSync(handledPath(vault, "night-1"), { recursive: true });
    await night(vault, calls, append);
    rmSync(handledPath(vault, "night-1"), { recursive: true });
    const second = await night(vault, calls, append);
    expect(second.ok).toBe(true);
    expect(second.results.map((r) => r.outcome.action)).toEqual(["extended"]);
    expect(readFileSync(join(vault, "reference", "pool-size.md"), "utf8").split("Raise it to twenty under load.").length).toBe(2);
    expect(callsMade(calls)).toBe(1);
  });
});
