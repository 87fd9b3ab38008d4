/** The Claude Code plugin package, loaded by the real CLI with --plugin-dir: hooks from hooks.json, /remember. */

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPending } from "../../src/core/queue/queue-store";
import { ROOT, SAMPLE_VAULT, copyVault, runBridge } from "../helpers";
import { claudeAvailable, claudeRig, type ClaudeRig } from "./claude-driver";

let rig: ClaudeRig;
let vault: string;

describe.skipIf(!claudeAvailable)("as a Claude Code plugin", () => {
  beforeAll(async () => {
    vault = copyVault(SAMPLE_VAULT, "Plugin Vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    // No hooks of our own: they come from the plugin, which finds the vault through the settings' environment.
    rig = await claudeRig(vault, [], { args: ["--plugin-dir", join(ROOT, "claude-plugin")], settings: { env: { VAULT_MEMORY_VAULT: vault } } });
  });
  afterAll(async () => rig?.close());

  it("recalls through the plugin's hooks.json", async () => {
    const r = await rig.run(["-p", "为什么排程跑不起来", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(rig.stub.requests.some((b) => b.includes("launchd-cron-path.md"))).toBe(true);
  });

  it("queues a one-prompt session at once when the person says /remember, marked as wanted", async () => {
    const first = await rig.run(["-p", "we decided to pin esbuild exactly", "--output-format", "json"]);
    const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    expect(listPending(vault).find((e) => e.sessionId === id)).toBeUndefined();
    const r = await rig.run(["-p", "--resume", id, "/remember", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(listPending(vault).find((e) => e.sessionId === id)).toMatchObject({ wanted: true });
  });
});
