/**
 * End to end with the real Claude Code CLI (npm @anthropic-ai/claude-code-linux-x64, pinned and
 * fetched by `npm run fetch-claude`, see claude-bin.ts): hooks registered in a temporary HOME, the model replaced by a stand-in
 * on 127.0.0.1.
 */

import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPending } from "../../src/core/queue/queue-store";
import { BRIEF_HEADER, RECALL_HEADER } from "../../src/core/text/recall-header";
import { SAMPLE_VAULT, copyVault, runBridge } from "../helpers";
import { claudeAvailable as available, claudeRig, type ClaudeRig } from "./claude-driver";

let rig: ClaudeRig;
let vault: string;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe.skipIf(!available)("with the real Claude Code CLI", () => {
  beforeAll(async () => {
    vault = copyVault(SAMPLE_VAULT, "Memory Vault 記憶");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    rig = await claudeRig(vault);
  });

  afterAll(async () => {
    await rig?.close();
  });

  let sessionId = "";
  const secret = ["ghp_", "zYxWvUtSrQpOnMlKjIhGfEdCbA9876543210"].join("");

  it("brings the matching card's path into the model's request", async () => {
    const r = await rig.run(["-p", "为什么排程跑不起来？launchd 每晚都失败", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    sessionId = (JSON.parse(r.stdout) as { session_id: string }).session_id;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const withCard = rig.stub.requests.filter((b) => b.includes("launchd-cron-path.md"));
    expect(withCard.length).toBeGreaterThan(0);
    expect(withCard[0]).toContain(JSON.stringify(join(vault, "debugging", "launchd-cron-path.md")).slice(1, -1));
  }, 120_000);

  it("starts each session knowing what the memory holds for the project", () => {
    // The first session's requests: the brief came from its SessionStart hook, before any prompt.
    const first = rig.stub.requests[0] ?? "";
    expect(first).toContain(JSON.stringify(BRIEF_HEADER).slice(1, -1));
    expect(first).toContain(JSON.stringify(join(vault, "projects", "vault-memory.md")).slice(1, -1));
    expect(first).not.toContain("blog-site.md");
  });

  it("recalls, in the next session, a card written by plain file I/O, with no index run", async () => {
    writeFileSync(
      join(vault, "debugging", "zeppelin-mast.md"),
      "---\nname: Zeppelin mast\ndescription: the zeppelin moors at the mast before the hangar opens\ntype: debugging\ntags: [airship]\nproject: vault-memory\n---\nMoor the zeppelin at the mast, then open the hangar doors.\n",
    );
    const before = rig.stub.requests.length;
    const r = await rig.run(["-p", "where does the zeppelin moor before the hangar opens?", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const asked = rig.stub.requests.slice(before).filter((b) => b.includes("where does the zeppelin moor"));
    // Printed by the prompt hook's recall, not only named in the session brief.
    const recalled = asked[0].indexOf(JSON.stringify(RECALL_HEADER).slice(1, -1));
    expect(recalled).toBeGreaterThan(0);
    expect(asked[0].indexOf(JSON.stringify(join(vault, "debugging", "zeppelin-mast.md")).slice(1, -1), recalled)).toBeGreaterThan(recalled);
  });

  it("does not queue a session of one prompt", () => {
    expect(listPending(vault)).toEqual([]);
  });

  it("queues exactly one entry once --resume adds a second prompt", async () => {
    const r = await rig.run([
      "-p",
      "--resume",
      sessionId,
      `also, the deploy token is ${secret}; we decided to set PATH in the plist`,
      "--output-format",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const pending = listPending(vault);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ sessionId, prompts: 2, project: "vault-memory", gitBranch: "feature-x" });
    expect(pending[0].candidates.some((c) => c.kind === "decision")).toBe(true);
  }, 120_000);

  it("keeps the secret typed in a prompt off the vault's disk", () => {
    const inbox = readFileSync(join(vault, listPending(vault)[0].inbox), "utf8");
    expect(inbox).toContain("[REDACTED]");
    for (const f of filesUnder(vault)) expect(readFileSync(f, "utf8"), f).not.toContain(secret);
  });

  it("reminds the person, not Claude, at a new session that a conversation waits", async () => {
    const before = rig.stub.requests.length;
    const r = await rig.run(["-p", "ok", "--output-format", "stream-json", "--verbose"]);
    expect(r.code, r.stderr).toBe(0);
    // A systemMessage: the CLI shows it to the person and keeps it out of the model's context.
    const start = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { subtype?: string; hook_event?: string; stdout?: string })
      .find((e) => e.subtype === "hook_response" && e.hook_event === "SessionStart");
    expect((JSON.parse(start?.stdout ?? "{}") as { systemMessage?: string }).systemMessage).toMatch(/^Vault Memory: 1 conversation waits to become cards/);
    expect(rig.stub.requests.slice(before).some((b) => b.includes("1 conversation waits to become cards"))).toBe(false);
  }, 120_000);
});
