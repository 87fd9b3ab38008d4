/**
 * "Remember this" with the real Claude Code CLI: its hooks in a temporary HOME, the bridge's MCP
 * server from the build, the model replaced by the stand-in. A one-prompt session is below the
 * queue's rules, so only the request to keep can queue it.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPending } from "../../src/core/queue/queue-store";
import { ROOT, SAMPLE_VAULT, copyVault, runBridge } from "../helpers";
import { claudeAvailable, claudeRig, type ClaudeRig } from "./claude-driver";

const TOOL = "mcp__vault-memory__remember";
const MCP = join(ROOT, "hook-bridge", "dist", "vault-memory-mcp.cjs");

describe.skipIf(!claudeAvailable)("remember, with the real Claude Code CLI", () => {
  let rig: ClaudeRig;
  let vault: string;

  beforeAll(async () => {
    vault = copyVault(SAMPLE_VAULT, "Remember Vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const servers = { mcpServers: { "vault-memory": { command: process.execPath, args: [MCP, "--vault", vault] } } };
    rig = await claudeRig(vault, ["recall", "queue"], { args: ["--mcp-config", JSON.stringify(servers)] });
  });
  afterAll(async () => rig?.close());

  const sessionOf = (stdout: string) => (JSON.parse(stdout) as { session_id: string }).session_id;

  it('keeps "remember this" as the session\'s first and only prompt, with the reply', async () => {
    rig.stub.reply = () => "Kept: esbuild stays pinned to an exact version, as you asked.";
    const before = rig.stub.requests.length;
    const r = await rig.run(["-p", "remember this: we pin esbuild to an exact version", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const id = sessionOf(r.stdout);
    const entries = listPending(vault).filter((e) => e.sessionId === id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ wanted: true, prompts: 1 });
    expect(entries[0].assistantChars).toBeGreaterThan(0);
    expect(entries[0].awaitingReply).toBeUndefined();
    expect(readFileSync(join(vault, entries[0].inbox), "utf8")).toMatch(/we pin esbuild to an exact version[\s\S]*Kept: esbuild stays pinned/);
    // Claude was told, truthfully, in the same request as the prompt.
    expect(rig.stub.requests.slice(before).some((b) => b.includes("Vault Memory queued this conversation"))).toBe(true);
  }, 120_000);

  it("completes the remember tool's entry with the reply written after the call", async () => {
    rig.stub.reply = (body) =>
      body.includes('"tool_result"')
        ? "I asked Vault Memory to keep that the changelog is written by hand."
        : [{ name: TOOL, input: { text: "the changelog is written by hand" } }];
    const r = await rig.run(["-p", "the changelog is written by hand; keep that in mind next time", "--allowedTools", TOOL, "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const id = sessionOf(r.stdout);
    const entries = listPending(vault).filter((e) => e.sessionId === id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ wanted: true, prompts: 1, note: "the changelog is written by hand" });
    expect(entries[0].assistantChars).toBeGreaterThan(0);
    expect(readFileSync(join(vault, entries[0].inbox), "utf8")).toContain("I asked Vault Memory to keep that");
  }, 120_000);
});
