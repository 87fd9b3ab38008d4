/**
 * The plugin as a person installs it: a fresh clone of the committed repository as a marketplace,
 * `claude plugin install` with the vault given as the plugin's option, then the real CLI's session.
 */

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPending } from "../../src/core/queue/queue-store";
import { ROOT, SAMPLE_VAULT, copyVault, runBridge, tempDir } from "../helpers";
import { claudeAvailable, claudeRig, type ClaudeRig } from "./claude-driver";
import type { ToolCall } from "./messages-stub";

const TOOL = "mcp__plugin_vault-memory_vault-memory__";
const hasGit = spawnSync("git", ["--version"]).status === 0 && spawnSync("git", ["-C", ROOT, "rev-parse", "HEAD"]).status === 0;

/** A clone of what is committed: what `claude plugin marketplace add <repository>` gets. */
function freshClone(): string {
  const dest = join(tempDir("vm-clone-"), "vault-memory");
  const r = spawnSync("git", ["clone", "--quiet", ROOT, dest], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return dest;
}

async function installed(vault: string | undefined): Promise<ClaudeRig> {
  const rig = await claudeRig(vault ?? "", []);
  const clone = freshClone();
  const add = await rig.run(["plugin", "marketplace", "add", clone]);
  expect(add.code, add.stderr + add.stdout).toBe(0);
  const install = await rig.run(["plugin", "install", "vault-memory@vault-memory", ...(vault ? ["--config", `vault=${vault}`] : [])]);
  expect(install.code, install.stderr + install.stdout).toBe(0);
  return rig;
}

describe.skipIf(!claudeAvailable || !hasGit)("installed from a fresh clone", () => {
  let rig: ClaudeRig;
  let vault: string;

  beforeAll(async () => {
    vault = copyVault(SAMPLE_VAULT, "Installed Vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    rig = await installed(vault);
  }, 120_000);
  afterAll(async () => rig?.close());

  it("runs its hooks, and the model's search_memory and read_card calls reach the server", async () => {
    const calls: ToolCall[] = [
      { name: `${TOOL}search_memory`, input: { query: "launchd cron PATH" } },
      { name: `${TOOL}read_card`, input: { path: "../../etc/passwd" } },
    ];
    // One tool call per request, in order, then an answer: as a model that searches, then reads.
    rig.stub.reply = (body) => {
      if (!body.includes("nightly job under launchd")) return "Done.";
      const results = (body.match(/"tool_result"/g) ?? []).length;
      return results < calls.length ? [calls[results]] : "The card says to set PATH in the plist.";
    };
    const r = await rig.run([
      "-p",
      "why does my nightly job under launchd fail?",
      "--allowedTools",
      `${TOOL}search_memory,${TOOL}read_card`,
      "--output-format",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const asks = rig.stub.requests.filter((b) => b.includes("nightly job under launchd"));
    // The prompt hook, with the vault from the plugin's option: the card is in the first request.
    expect(asks[0].includes(join(vault, "debugging", "launchd-cron-path.md"))).toBe(true);
    // The search result, holding the card, is in the next request.
    const searched = asks.find((b) => b.includes('"tool_result"') && b.includes("best first; open one with read_card"));
    expect(searched).toBeDefined();
    expect(searched?.includes("debugging/launchd-cron-path.md")).toBe(true);
    // The climb out of the vault is refused, and nothing of the file reaches the model.
    const last = asks[asks.length - 1];
    expect(last.includes("../../etc/passwd is outside the vault")).toBe(true);
    expect(/root:x:0:0/.test(last)).toBe(false);
  }, 120_000);

  it("/remember queues the session and Claude is told it was", async () => {
    rig.stub.reply = () => "Kept.";
    const first = await rig.run(["-p", "we decided to pin esbuild exactly", "--output-format", "json"]);
    const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    const before = rig.stub.requests.length;
    // An installed plugin's command is namespaced; the hook knows both spellings.
    const r = await rig.run(["-p", "--resume", id, "/vault-memory:remember", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(listPending(vault).find((e) => e.sessionId === id)).toMatchObject({ wanted: true });
    expect(rig.stub.requests.slice(before).some((b) => b.includes("Vault Memory queued this conversation"))).toBe(true);
  }, 120_000);
});

describe.skipIf(!claudeAvailable || !hasGit)("installed without a vault", () => {
  let rig: ClaudeRig;

  beforeAll(async () => {
    rig = await installed(undefined);
  }, 120_000);
  afterAll(async () => rig?.close());

  it("tells the person in one line at session start, and keeps it out of the model's context", async () => {
    const r = await rig.run(["-p", "hello", "--output-format", "stream-json", "--verbose"]);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { subtype?: string; hook_event?: string; stdout?: string });
    const start = events.filter((e) => e.subtype === "hook_response" && e.hook_event === "SessionStart");
    expect(start).toHaveLength(1);
    const message = (JSON.parse(start[0].stdout ?? "") as { systemMessage: string }).systemMessage;
    expect(message).toMatch(/^Vault Memory: no vault is set, so nothing is recalled or kept; set the plugin's vault option/);
    expect(rig.stub.requests.some((b) => b.includes("no vault is set"))).toBe(false);
  }, 120_000);

  it("/remember does not claim success", async () => {
    const before = rig.stub.requests.length;
    const r = await rig.run(["-p", "/vault-memory:remember", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const sent = rig.stub.requests.slice(before).join("\n");
    // Booleans, not the bodies: a request is tens of kilobytes of system prompt.
    expect(sent.includes("Vault Memory did not keep this conversation, nothing was queued: no vault is set")).toBe(true);
    expect(sent.includes("Vault Memory queued this conversation")).toBe(false);
    // The command's own text leaves the verdict to that line, and says what to do without one.
    expect(sent.includes("say plainly that nothing was kept")).toBe(true);
  }, 120_000);
});
