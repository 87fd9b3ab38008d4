/**
 * `import` on transcripts the real Claude Code CLI wrote, before Vault Memory was installed (no
 * hooks): resumed sessions, a compaction, a one-prompt session, a secret typed in a prompt.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPending, readInbox } from "../../src/core/queue/queue-store";
import { SAMPLE_VAULT, copyVault, runBridge } from "../helpers";
import { claudeAvailable as available, claudeRig, type ClaudeRig } from "./claude-driver";

const REPLY = "The nightly job runs under launchd with a PATH that lacks node; we call node by its absolute path from now on.";
// A key of the shape Anthropic issues, typed into a prompt: it must never reach the queue.
const KEY = "sk-ant-api03-" + "Qx7".repeat(31) + "AA";

describe.skipIf(!available)("import of sessions the real Claude Code CLI kept", () => {
  let rig: ClaudeRig;
  let vault: string;
  const sessions: string[] = [];
  beforeAll(async () => {
    vault = copyVault(SAMPLE_VAULT, "Import vault");
    // Before the install: Claude Code runs with no hook of ours.
    rig = await claudeRig(vault, []);
    rig.stub.reply = () => REPLY;
    const ask = async (args: string[]): Promise<string> => {
      const r = await rig.run([...args, "--output-format", "json"]);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { session_id: string }).session_id;
    };
    // Two prompts, the second with a key in it.
    const a = await ask(["-p", "why does the nightly launchd job fail?"]);
    await ask(["-p", `it still fails; my key is ${KEY}, is that the problem?`, "--resume", a]);
    // Two prompts and a compaction between them.
    const b = await ask(["-p", "the vite build cache is stale after a rebase"]);
    await ask(["-p", "/compact", "--resume", b]);
    await ask(["-p", "and after the compaction, how do we clear it?", "--resume", b]);
    // One prompt: not worth keeping.
    const c = await ask(["-p", "hello"]);
    sessions.push(a, b, c);
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
  });

  it("queues the sessions worth keeping, redacted, and adds nothing the second time", () => {
    const projects = join(rig.home, ".claude", "projects");
    const r = runBridge(["import", "--vault", vault, "--from", projects]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("queued 2 sessions of 3 found");
    expect(r.stdout).toContain("passed by: 1 too short to keep");
    const pending = listPending(vault);
    expect(pending.map((e) => e.sessionId).sort()).toEqual([sessions[0], sessions[1]].sort());
    for (const e of pending) expect(e).toMatchObject({ project: "vault-memory", gitBranch: "feature-x", imported: expect.any(String) as unknown });
    // A slash command the person typed counts as a prompt, as it does for the Stop hook.
    expect(pending.map((e) => [e.sessionId, e.prompts])).toEqual(
      expect.arrayContaining([
        [sessions[0], 2],
        [sessions[1], 3],
      ]),
    );
    const first = readInbox(
      vault,
      pending.find((e) => e.sessionId === sessions[0])!,
    );
    expect(first).toContain("why does the nightly launchd job fail?");
    expect(first).toContain("absolute path");
    expect(first).not.toContain(KEY);
    // The compaction's summary is no prompt of the person's.
    const second = readInbox(
      vault,
      pending.find((e) => e.sessionId === sessions[1])!,
    );
    expect(second).toContain("how do we clear it?");
    expect(second).not.toMatch(/This session is being continued/);
    const again = runBridge(["import", "--vault", vault, "--from", projects]);
    expect(again.stdout).toContain("queued 0 sessions of 3 found");
    expect(readFileSync(join(vault, pending[0].inbox), "utf8")).toBe(readInbox(vault, pending[0]));
    expect(runBridge(["status", "--vault", vault]).stdout).toMatch(/^queue: {4}2 sessions imported from before the install/m);
  });
});
