/** The hooks with no usable vault: one line for the person at session start, silence (and a log line) elsewhere, and /remember never claims a keep. */

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyVault, hookJson, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";

// As Claude Code runs a plugin's hooks: no --vault on the command line, the option in the environment.
function pluginEnv(vault?: string): NodeJS.ProcessEnv {
  const data = tempDir("vm-plugin-data-");
  return { CLAUDE_PLUGIN_ROOT: "/plugins/vault-memory", CLAUDE_PLUGIN_DATA: data, CLAUDE_PLUGIN_OPTION_VAULT: vault ?? "", VAULT_MEMORY_VAULT: "" };
}

describe("hooks without a usable vault", () => {
  it.each([
    [
      "unset",
      undefined,
      /^Vault Memory: no vault is set, so nothing is recalled or kept; set the plugin's vault option \(\/plugin.*claude plugin configure vault-memory@vault-memory`\)\.$/,
    ],
    [
      "missing",
      "/no/such/vault",
      /^Vault Memory: the vault folder \/no\/such\/vault does not exist, so nothing is recalled or kept; set the plugin's vault option/,
    ],
  ])("SessionStart tells the person, in one systemMessage line, what to set and where (%s)", (_what, vault, line) => {
    const env = pluginEnv(vault);
    const r = runBridge(["remind"], "{}", env);
    expect(r.status).toBe(0);
    expect(r.stdout.endsWith("\n") && r.stdout.trim().split("\n")).toHaveLength(1);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["systemMessage"]);
    expect(out.systemMessage).toMatch(line);
    expect(readFileSync(join(env.CLAUDE_PLUGIN_DATA!, "vault-memory.log"), "utf8")).toMatch(/ remind /);
  });

  it("outside the plugin, says to pass --vault in settings.json", () => {
    const r = runBridge(["remind"], "{}", { VAULT_MEMORY_VAULT: "", CLAUDE_PLUGIN_ROOT: "", CLAUDE_PLUGIN_OPTION_VAULT: "" });
    expect((JSON.parse(r.stdout) as { systemMessage: string }).systemMessage).toMatch(/pass --vault DIR to the hook commands in ~\/\.claude\/settings\.json/);
  });

  it("SessionStart names a vault folder it cannot read", () => {
    if (process.getuid?.() === 0) return; // root reads every folder
    const vault = join(tempDir(), "locked");
    mkdirSync(vault);
    chmodSync(vault, 0o000);
    const r = runBridge(["remind"], "{}", pluginEnv(vault));
    chmodSync(vault, 0o700);
    expect(r.stdout).toContain("cannot be read");
  });

  it("recall and queue stay silent and exit 0, and log why in the plugin's data folder", () => {
    const env = pluginEnv();
    expect(runBridge(["recall"], hookJson("why does launchd fail"), env)).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(runBridge(["queue"], '{"session_id":"s1","transcript_path":"/x.jsonl"}', env)).toEqual({ status: 0, stdout: "", stderr: "" });
    const log = readFileSync(join(env.CLAUDE_PLUGIN_DATA!, "vault-memory.log"), "utf8").trim().split("\n");
    expect(log).toHaveLength(2);
    expect(log[0]).toMatch(/ recall --vault DIR is required/);
    expect(log[1]).toMatch(/ queue --vault DIR is required/);
  });

  it("/remember is told that nothing was kept and why, so Claude cannot confirm a keep", () => {
    const r = runBridge(["recall"], hookJson("/remember"), pluginEnv());
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { systemMessage: string; hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
    expect(out.hookSpecificOutput.additionalContext).toMatch(
      /^Vault Memory did not keep this conversation, nothing was queued: no vault is set; to keep anything, set the plugin's vault option/,
    );
    expect(out.systemMessage).toBe(out.hookSpecificOutput.additionalContext);
  });

  it("/remember with a vault keeps the prompt without a transcript, and says nothing was kept only when nothing was", () => {
    const vault = copyVault(SAMPLE_VAULT);
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    // A session that keeps no files: the prompt itself is queued, and Claude is told so.
    const kept = JSON.parse(runBridge(["recall"], hookJson("/remember"), pluginEnv(vault)).stdout) as { hookSpecificOutput: { additionalContext: string } };
    expect(kept.hookSpecificOutput.additionalContext).toMatch(/Vault Memory queued this conversation/);
    mkdirSync(join(vault, ".vault-memory"), { recursive: true });
    writeFileSync(join(vault, ".vault-memory", "config.json"), JSON.stringify({ queue: { excludeProjects: ["client-*"] } }));
    const failed = JSON.parse(runBridge(["recall"], hookJson("/remember", { cwd: "/work/client-x" }), pluginEnv(vault)).stdout) as { systemMessage: string };
    expect(failed.systemMessage).toMatch(/did not keep this conversation, nothing was queued: project client-x is excluded/);
  });
});
