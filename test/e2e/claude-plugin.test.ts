/** The Claude Code plugin package, loaded by the real CLI with --plugin-dir: hooks from hooks.json, /remember. */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPending } from "../../src/core/queue/queue-store";
import { ROOT, SAMPLE_VAULT, copyVault, runBridge, tempDir } from "../helpers";
import { CLAUDE, claudeAvailable } from "./claude-driver";
import { startStub, type Stub } from "./messages-stub";

let stub: Stub;
let home: string;
let vault: string;
let project: string;

function claude(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(CLAUDE, ["--plugin-dir", join(ROOT, "claude-plugin"), ...args], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: "test-key-not-real", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!claudeAvailable)("as a Claude Code plugin", () => {
  beforeAll(async () => {
    stub = await startStub();
    home = tempDir("vm-home-");
    vault = copyVault(SAMPLE_VAULT, "Plugin Vault");
    project = join(tempDir(), "proj");
    mkdirSync(project);
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    mkdirSync(join(home, ".claude"), { recursive: true });
    // The plugin's hooks find the vault through the settings' environment.
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: { VAULT_MEMORY_VAULT: vault } }));
  }, 60_000);
  afterAll(async () => stub?.close());

  it("recalls through the plugin's hooks.json", async () => {
    const r = await claude(["-p", "为什么排程跑不起来", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(stub.requests.some((b) => b.includes("launchd-cron-path.md"))).toBe(true);
  }, 60_000);

  it("queues a one-prompt session at once when the person says /remember, marked as wanted", async () => {
    const first = await claude(["-p", "we decided to pin esbuild exactly", "--output-format", "json"]);
    const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    expect(listPending(vault).find((e) => e.sessionId === id)).toBeUndefined();
    const r = await claude(["-p", "--resume", id, "/remember", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(listPending(vault).find((e) => e.sessionId === id)).toMatchObject({ wanted: true });
  }, 60_000);
});
