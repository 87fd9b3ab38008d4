/** The Claude Code plugin package, loaded by the real CLI with --plugin-dir: hooks from hooks.json, /remember. */

import { existsSync } from "node:fs";
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
    // No hooks of our own: they come from the plugin, which finds the vault through the settings'
    // environment; its MCP server through the plugin's option, as install sets it.
    const options = { "vault-memory@inline": { options: { vault } } };
    rig = await claudeRig(vault, [], {
      args: ["--plugin-dir", join(ROOT, "claude-plugin")],
      settings: { env: { VAULT_MEMORY_VAULT: vault }, pluginConfigs: options },
    });
  });
  afterAll(async () => rig?.close());

  it("recalls through the plugin's hooks.json", async () => {
    const r = await rig.run(["-p", "为什么排程跑不起来", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(rig.stub.requests.some((b) => b.includes("launchd-cron-path.md"))).toBe(true);
  });

  it("writes the card the model asks write_card for, and the next session's prompt recalls it", async () => {
    const tool = "mcp__plugin_vault-memory_vault-memory__write_card";
    const card = {
      title: "Zeppelin hangar doors stick in frost",
      description: "Why the zeppelin hangar doors stick on frosty nights, and how to free them",
      type: "debugging",
      body: "The door rails ice over below -5 °C. Run the rail heater for twenty minutes before opening.",
      tags: ["hangar", "frost"],
    };
    // One tool call, then an answer: as a model that writes down the fix it just found.
    rig.stub.reply = (body) =>
      !body.includes("we freed the hangar doors") ? "Done." : body.includes('"tool_result"') ? "Written down." : [{ name: tool, input: card }];
    const first = await rig.run(["-p", "we freed the hangar doors at last; keep the fix", "--allowedTools", tool, "--output-format", "json"]);
    expect(first.code, first.stderr).toBe(0);
    const path = join(vault, "debugging", "zeppelin-hangar-doors-stick-in-frost.md");
    expect(existsSync(path)).toBe(true);
    expect(rig.stub.requests.some((b) => b.includes('"tool_result"') && b.includes("Created debugging/zeppelin-hangar-doors-stick-in-frost.md."))).toBe(true);
    rig.stub.reply = () => "Run the rail heater first.";
    const before = rig.stub.requests.length;
    const second = await rig.run(["-p", "why do the zeppelin hangar doors stick when it is frosty?", "--output-format", "json"]);
    expect(second.code, second.stderr).toBe(0);
    // No index run between the two: the prompt hook found the card in the snapshot write_card updated.
    expect(rig.stub.requests.slice(before).some((b) => b.includes(path))).toBe(true);
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
