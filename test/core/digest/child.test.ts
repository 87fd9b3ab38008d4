import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { runDigestChild } from "../../../src/core/digest/child";
import { runDigest } from "../../../src/core/digest/run";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { listHandled, listPending } from "../../../src/core/queue/queue-store";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { jsonl, line } from "../../fixtures/transcript";
import { BRIDGE, SAMPLE_VAULT, copyVault, markdownFiles, tempDir } from "../../helpers";

const reply = "A reply long enough to count as real work in this conversation.";

function queued(id = "night"): string {
  const vault = copyVault(SAMPLE_VAULT, "Child vault");
  const t = join(tempDir(), "t.jsonl");
  writeFileSync(t, jsonl([line.prompt("first question"), line.reply(reply), line.prompt("second question"), line.reply(reply)]));
  captureSession(vault, { sessionId: id, transcriptPath: t, cwd: "/work/x", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  return vault;
}

function script(body: string): string {
  const path = join(tempDir(), "bridge.cjs");
  writeFileSync(path, body);
  return path;
}

describe("the digest in a process of its own", () => {
  it("runs the bridge's digest with the settings it is handed, and streams its progress", async () => {
    const vault = queued();
    const config = defaultConfig();
    // Only the settings on stdin name this command: config.json in the vault has none.
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; echo '{"action":"skip","reason":"child test"}'`];
    const lines: string[] = [];
    const report = await runDigestChild({ node: process.execPath, bridge: BRIDGE, vault, config, onProgress: (l) => lines.push(l) });
    expect(report.ok).toBe(true);
    expect(report.results.map((r) => r.outcome.action)).toEqual(["skipped"]);
    expect(lines[0]).toMatch(/^digesting night/);
    expect(listHandled(vault).map((e) => e.sessionId)).toEqual(["night"]);
  });

  it("passes the entries asked for, and only those", async () => {
    const vault = queued("first");
    const t = join(tempDir(), "u.jsonl");
    writeFileSync(t, jsonl([line.prompt("another question"), line.reply(reply), line.prompt("and one more"), line.reply(reply)]));
    captureSession(vault, { sessionId: "second", transcriptPath: t, cwd: "/work/y", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    const config = defaultConfig();
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; echo '{"action":"skip","reason":"child test"}'`];
    const report = await runDigestChild({ node: process.execPath, bridge: BRIDGE, vault, config, sessionIds: ["second"] });
    expect(report.results.map((r) => r.sessionId)).toEqual(["second"]);
    expect(listPending(vault).map((e) => e.sessionId)).toEqual(["first"]);
  });

  it("says what went wrong when the bridge prints something else, dies, or cannot start", async () => {
    const vault = queued();
    const config = defaultConfig();
    const garbage = await runDigestChild({ node: process.execPath, bridge: script(`console.log("Hello from another program")`), vault, config });
    expect(garbage).toMatchObject({ ok: false, error: expect.stringMatching(/printed something that is not the digest's: Hello from another program/) });
    const dies = await runDigestChild({
      node: process.execPath,
      bridge: script(`process.stderr.write("first\\nout of memory\\n"); process.exit(3)`),
      vault,
      config,
    });
    expect(dies).toMatchObject({ ok: false, error: "the digest ended (exit 3) without a report: out of memory" });
    const missing = await runDigestChild({ node: join(tempDir(), "no-such-node"), bridge: BRIDGE, vault, config });
    expect(missing).toMatchObject({ ok: false, error: expect.stringMatching(/^could not start the digest: .*ENOENT/) });
    // Another release's report shape is not taken for ours.
    const other = await runDigestChild({
      node: process.execPath,
      bridge: script(`console.log(JSON.stringify({ protocol: 99, report: { ok: true, results: [], failures: [], left: 0 } }))`),
      vault,
      config,
    });
    expect(other.ok).toBe(false);
    expect(listPending(vault)).toHaveLength(1);
  });

  it("reads each note of the vault once in a night that writes a card", async () => {
    const vault = queued();
    const config = defaultConfig();
    const answer = {
      action: "create",
      folder: "debugging",
      fileName: "child-test",
      frontmatter: { name: "Child test", description: "A card from the child test", type: "debugging", tags: ["test"] },
      body: "Body.",
      related: [],
    };
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; echo '${JSON.stringify(answer)}'`];
    config.enrich.perNight = 0;
    const notes = new NoteCache(vault);
    const report = await runDigest({ vault, config, notes });
    expect(report.results[0].outcome.action).toBe("created");
    const after = markdownFiles(vault).length;
    // Every note once; a note the night changed after reading it (the card it linked back from)
    // once more. Before, the vault was read five times over.
    const changed = report.results[0].outcome.linked.length;
    expect(notes.reads).toBeGreaterThanOrEqual(after);
    expect(notes.reads).toBeLessThanOrEqual(after + changed);
    expect(readFileSync(join(vault, "debugging", "child-test.md"), "utf8")).toMatch(/name: Child test/);
  });
});
