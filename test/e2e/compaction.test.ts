/**
 * A compaction with the real Claude Code CLI: the conversation so far is queued before it
 * (PreCompact), and after it the brief comes again and a card shown before may be shown again.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPending } from "../../src/core/queue/queue-store";
import { BRIEF_HEADER } from "../../src/core/text/recall-header";
import { SAMPLE_VAULT, copyVault, runBridge } from "../helpers";
import { claudeAvailable as available, claudeRig, type ClaudeRig } from "./claude-driver";

const LONG =
  "The nightly job runs under launchd with a PATH that lacks claude and node; call them by absolute path, or resolve them from a login shell before the job starts.";

describe.skipIf(!available)("a compaction, with the real Claude Code CLI", () => {
  let rig: ClaudeRig;
  let vault: string;
  beforeAll(async () => {
    vault = copyVault(SAMPLE_VAULT, "Compaction vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    // No Stop hook: the conversation can reach the queue only by the compaction's.
    rig = await claudeRig(vault, ["recall", "queue", "remind"], { events: ["UserPromptSubmit", "SessionStart", "PreCompact"] });
    rig.stub.reply = () => LONG;
  });
  afterAll(async () => {
    await rig?.close();
  });

  it("queues the conversation before it, and gives the brief and the card again after it", async () => {
    const prompt = "为什么排程跑不起来？launchd 每晚都失败";
    const first = await rig.run(["-p", prompt, "--output-format", "json"]);
    expect(first.code, first.stderr).toBe(0);
    const session = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    // Whether the prompt hook gave the card with `asked`, in the last request of the run since
    // `from`: a resumed session's request replays the earlier turns, their hook output with them.
    const withCard = (from: number, asked: string): boolean => {
      const last = rig.stub.requests.slice(from).at(-1) ?? "";
      const turn = last.slice(last.lastIndexOf(JSON.stringify(asked).slice(1, -1)));
      return /UserPromptSubmit hook[^]*?launchd-cron-path\.md/.test(turn);
    };
    expect(withCard(0, prompt)).toBe(true);
    // Once a session: asked again, the card is not given again.
    let from = rig.stub.requests.length;
    const secondAsk = "and the launchd job again: 排程跑不起来";
    const again = await rig.run(["-p", secondAsk, "--resume", session, "--output-format", "json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(withCard(from, secondAsk)).toBe(false);
    from = rig.stub.requests.length;
    expect(listPending(vault)).toHaveLength(0);
    const compacted = await rig.run(["-p", "/compact", "--resume", session, "--output-format", "json"]);
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(listPending(vault).map((e) => e.sessionId)).toContain(session);
    from = rig.stub.requests.length;
    const thirdAsk = "排程跑不起来，launchd 的问题还在";
    const after = await rig.run(["-p", thirdAsk, "--resume", session, "--output-format", "json"]);
    expect(after.code, after.stderr).toBe(0);
    expect(withCard(from, thirdAsk)).toBe(true);
    expect(rig.stub.requests.slice(from).some((b) => b.includes(JSON.stringify(BRIEF_HEADER).slice(1, -1)))).toBe(true);
  }, 240_000);
});
