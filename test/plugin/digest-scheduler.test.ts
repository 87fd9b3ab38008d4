// @vitest-environment happy-dom
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DigestScheduler } from "../../src/plugin/digest-scheduler";
import VaultMemoryPlugin from "../../src/plugin/main";
import { defaultConfig } from "../../src/core/config";
import { acquireLock, releaseLock } from "../../src/core/llm/lock";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listHandled, listPending } from "../../src/core/queue/queue-store";
import { App } from "../fakes/obsidian";
import { jsonl, line } from "../fixtures/transcript";
import { ROOT, SAMPLE_VAULT, copyVault, tempDir } from "../helpers";
import { until } from "../wait";

// An LLM command that always answers "skip": the scheduling is under test here, not the LLM.
const SKIP = ["/bin/sh", "-c", `cat >/dev/null; echo '{"action":"skip","reason":"scheduled test"}'`];

function setup() {
  const vault = copyVault(SAMPLE_VAULT, "Scheduled vault");
  const t = join(tempDir(), "s.jsonl");
  const reply = "A reply long enough to count as real work in this conversation.";
  writeFileSync(t, jsonl([line.prompt("first question"), line.reply(reply), line.prompt("second question"), line.reply(reply)]));
  captureSession(vault, { sessionId: "night", transcriptPath: t, cwd: "/work/x", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  // Scheduling began days ago, so last night counts as missed.
  writeFileSync(join(vault, ".vault-memory", "digest-schedule.json"), JSON.stringify({ since: "2026-11-20T00:00:00.000Z" }));
  const config = defaultConfig();
  config.digest.command = SKIP;
  return { vault, config };
}

// The bridge as built, run by this Node: what the plugin does with its own copy and Electron.
const runner = () => ({ node: process.execPath, bridge: join(ROOT, "hook-bridge", "dist", "vault-memory.cjs"), env: process.env });

const status = (vault: string) => JSON.parse(readFileSync(join(vault, ".vault-memory", "digest-status.json"), "utf8")) as { startedAt: string; ok: boolean };

let plugin: VaultMemoryPlugin | undefined;
afterEach(() => plugin?.unload());

describe("digest scheduling", () => {
  it("does not start an LLM run the moment it is installed", async () => {
    const { vault, config } = setup();
    writeFileSync(join(vault, ".vault-memory", "digest-schedule.json"), "not json");
    const s = new DigestScheduler(vault, () => config, runner);
    expect(await s.tick(new Date())).toBeUndefined();
    expect(listPending(vault)).toHaveLength(1);
    // The next morning, last night's run is due.
    const tomorrow = new Date(Date.now() + 86_400_000);
    tomorrow.setHours(9, 0, 0, 0);
    expect((await s.tick(tomorrow))?.results).toHaveLength(1);
  });

  it("runs a night missed while Obsidian was closed, then waits for the next night", async () => {
    const { vault, config } = setup();
    writeFileSync(join(vault, ".vault-memory", "digest-status.json"), JSON.stringify({ startedAt: "2026-11-27T03:00:00.000Z", ok: true }));
    const s = new DigestScheduler(vault, () => config, runner);
    const report = await s.tick(new Date("2026-11-30T09:00:00"));
    expect(report?.results.map((r) => r.outcome.action)).toEqual(["skipped"]);
    expect(listHandled(vault).map((e) => e.sessionId)).toEqual(["night"]);
    expect(await s.tick(new Date())).toBeUndefined();
  });

  it("pipes the daily report to the report command, and keeps to the call budget", async () => {
    const { vault, config } = setup();
    const out = join(tempDir(), "mailed.txt");
    config.digest.reportCommand = `cat > ${JSON.stringify(out)}`;
    config.digest.maxCalls = 0;
    const report = await new DigestScheduler(vault, () => config, runner).run();
    expect(report?.results).toEqual([]);
    expect(listPending(vault)).toHaveLength(1);
    expect(readFileSync(out, "utf8")).toMatch(/^---\nname: Digest \d{4}-\d{2}-\d{2}[\s\S]*Queue left: 1\./);
  });

  it("does not run while another window or machine holds the lock", async () => {
    const { vault, config } = setup();
    const lock = join(vault, ".vault-memory", "digest.lock");
    writeFileSync(lock, JSON.stringify({ pid: 99999, host: "other-machine", startedAt: new Date().toISOString() }));
    const report = await new DigestScheduler(vault, () => config, runner).run();
    expect(report?.ok).toBe(false);
    expect(report?.error).toMatch(/another digest is running \(other-machine/);
    expect(listPending(vault)).toHaveLength(1);
    releaseLock(lock);
    expect(acquireLock(lock).ok).toBe(false);
  });

  it("starts on layout ready when a night was missed, and has a command to run now", async () => {
    const { vault, config } = setup();
    const app = new App(vault);
    const started = new VaultMemoryPlugin(app as never, { id: "vault-memory", name: "Vault Memory", version: "0.1.0" } as never);
    plugin = started;
    await started.onload();
    started.settings.digest = config.digest;
    app.workspace.setLayoutReady();
    await until(() => listPending(vault).length === 0);
    expect(listHandled(vault).map((e) => e.sessionId)).toEqual(["night"]);
    await until(() => !started.digest?.isRunning);
    const first = status(vault).startedAt;
    app.commands.get("vault-memory:run-digest")?.callback?.();
    await until(() => status(vault).startedAt !== first);
    expect(status(vault).startedAt).not.toBe(first);
  });
});
