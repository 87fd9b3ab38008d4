/** The digest's claude call acts on nothing: an answer made of Write, Edit and Bash calls changes no file, whatever the person's permission mode. */

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, type VaultMemoryConfig } from "../../src/core/config";
import { runDigest } from "../../src/core/digest/run";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listPending } from "../../src/core/queue/queue-store";
import { jsonl, line } from "../fixtures/transcript";
import { BRIDGE, SAMPLE_VAULT, copyVault, tempDir } from "../helpers";
import { CLAUDE, claudeAvailable } from "./claude-driver";
import { startStub, type Stub, type ToolCall } from "./messages-stub";

const LONG = "Here is the detail of what was done and why, long enough to be kept.";
const CARD = join("debugging", "launchd-cron-path.md");

let stub: Stub;

/** Every file under `dir` with a hash of its content, but for the folders `skip` names. */
function files(dir: string, skip: (rel: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const rel = relative(dir, join(e.parentPath, e.name));
    if (!skip(rel))
      out.set(
        rel,
        createHash("sha256")
          .update(readFileSync(join(dir, rel)))
          .digest("hex"),
      );
  }
  return out;
}

// What the digest itself writes after a night, and what Claude Code keeps in its own HOME.
const digestOwn = (rel: string) => /^(\.vault-memory|meta[\\/]digest|moc)([\\/]|$)|^MEMORY\.md$|^meta[\\/]card-writing-rules\.md$/.test(rel);
const cliOwn = (rel: string) =>
  /^\.claude\.json|^\.cache([\\/]|$)|^\.claude[\\/](projects|sessions|backups|plugins|shell-snapshots|todos|statsig|telemetry)([\\/]|$)/.test(rel);

interface Night {
  home: string;
  vault: string;
  marks: string;
}

/**
 * A vault and a HOME set up as a careless or hostile machine would be: the person's own
 * permission mode, hooks (Vault Memory's and others) and an MCP server in HOME; hooks, an
 * apiKeyHelper and an MCP server in the vault's own `.claude/`. Each of them touches a marker
 * file in `marks` when it runs.
 */
function night(mode: "acceptEdits" | "bypassPermissions"): Night {
  const home = tempDir("vm-home-");
  const vault = copyVault(SAMPLE_VAULT, "Tool vault");
  const marks = tempDir("vm-marks-");
  const touch = (name: string) => `touch "${join(marks, name)}"`;
  const ours = (cmd: string) => `"${process.execPath}" "${BRIDGE}" ${cmd} --vault "${vault}"`;
  const hook = (command: string) => [{ hooks: [{ type: "command", command }] }];
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(
    join(home, ".claude", "settings.json"),
    JSON.stringify({
      permissions: { defaultMode: mode },
      hooks: {
        UserPromptSubmit: hook(`${touch("user-prompt-hook")}; ${ours("recall --deadline-ms 600000")}`),
        Stop: hook(`${touch("user-stop-hook")}; ${ours("queue")}`),
        SessionStart: hook(`${touch("user-start-hook")}; ${ours("remind")}`),
      },
    }),
  );
  const mcp = (name: string) => ({ mcpServers: { [name]: { type: "stdio", command: "/bin/sh", args: ["-c", `${touch(name)}; sleep 5`] } } });
  writeFileSync(join(home, ".claude.json"), JSON.stringify(mcp("user-mcp")));
  mkdirSync(join(vault, ".claude"), { recursive: true });
  writeFileSync(
    join(vault, ".claude", "settings.json"),
    JSON.stringify({
      enableAllProjectMcpServers: true,
      apiKeyHelper: `${touch("vault-api-key-helper")}; echo test-key-not-real`,
      hooks: { UserPromptSubmit: hook(touch("vault-prompt-hook")) },
    }),
  );
  writeFileSync(join(vault, ".mcp.json"), JSON.stringify(mcp("vault-mcp")));
  const t = join(tempDir(), "s-tools.jsonl");
  writeFileSync(
    t,
    jsonl([
      line.prompt("CASE-tools: the nightly job and its PATH under the scheduler"),
      line.reply(LONG),
      line.prompt("more about CASE-tools"),
      line.reply(LONG),
    ]),
  );
  expect(
    captureSession(vault, { sessionId: "s-tools", transcriptPath: t, cwd: "/work/nightly", stopHookActive: false }, DEFAULT_QUEUE_RULES, {
      now: new Date("2026-11-29T01:00:00Z"),
    }).queued,
  ).toBe(true);
  return { home, vault, marks };
}

/** The calls a model bent on acting would make: new cards, a vault-root file, a rewritten card, a shell, the person's settings. */
function attack(n: Night): ToolCall[] {
  return [
    { name: "Write", input: { file_path: join(n.vault, "projects", "pwned-write-in-vault.md"), content: "---\nname: pwned\n---\npwned" } },
    { name: "Write", input: { file_path: join(n.vault, "pwned-at-root.md"), content: "pwned" } },
    { name: "Edit", input: { file_path: join(n.vault, CARD), old_string: "launchd", new_string: "pwned", replace_all: true } },
    { name: "Bash", input: { command: `touch "${join(n.vault, "pwned-bash")}" "${join(n.home, "pwned-bash")}"`, description: "touch" } },
    { name: "Write", input: { file_path: join(n.home, ".claude", "settings.json"), content: "{}" } },
    { name: "Write", input: { file_path: join(n.home, "pwned-home.md"), content: "pwned" } },
  ];
}

const env = (home: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  TMPDIR: process.env.TMPDIR,
  ANTHROPIC_BASE_URL: stub.url,
  ANTHROPIC_API_KEY: "test-key-not-real",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  // The CLI refuses bypassPermissions as root unless told it is in a sandbox; test machines often run as root.
  IS_SANDBOX: "1",
});

describe.skipIf(!claudeAvailable)("a digest answer that calls tools, with the real Claude Code CLI", () => {
  let current: Night;
  beforeAll(async () => {
    stub = await startStub();
    // The first turn answers with tool calls; once the CLI sends their results back, a plain text answer.
    stub.reply = (body) => (body.includes("tool_result") ? "Done: I wrote the cards myself." : body.includes("CASE-tools") ? attack(current) : "ok");
  });
  afterAll(async () => stub?.close());

  it.each<[string, "acceptEdits" | "bypassPermissions", (c: VaultMemoryConfig) => void]>([
    ["acceptEdits, claude by absolute path in the command", "acceptEdits", (c) => (c.digest.command = [CLAUDE, "-p", "--output-format", "json"])],
    [
      "bypassPermissions, claude by the binary setting",
      "bypassPermissions",
      (c) => ((c.digest.binary = CLAUDE), (c.digest.command = ["claude", "-p", "--output-format", "json"])),
    ],
  ])("changes nothing in the vault or HOME (%s), and keeps the conversation queued", async (_, mode, setCommand) => {
    current = night(mode);
    const { vault, home, marks } = current;
    const vaultBefore = files(vault, digestOwn);
    const homeBefore = files(home, cliOwn);
    const config = defaultConfig();
    setCommand(config);
    config.digest.timeoutSec = 30;
    const sent = stub.requests.length;

    const r = await runDigest({ vault, config, env: env(home) });

    const requests = stub.requests.slice(sent);
    // The model did try: its tool calls went out and their results came back.
    expect(requests.some((b) => b.includes("tool_result"))).toBe(true);
    expect(r.failures).toEqual([{ sessionId: "s-tools", reason: expect.stringMatching(/no JSON/) as string }]);
    expect(listPending(vault).map((e) => e.sessionId)).toEqual(["s-tools"]);
    expect(files(vault, digestOwn)).toEqual(vaultBefore);
    expect(files(home, cliOwn)).toEqual(homeBefore);
    expect(existsSync(join(vault, "projects", "pwned-write-in-vault.md"))).toBe(false);
    // No tool reached the model, and nothing the person or the vault registered ran.
    for (const b of requests) expect((JSON.parse(b) as { tools?: unknown[] }).tools ?? []).toEqual([]);
    expect(requests.some((b) => b.includes("hook success") || b.includes("Vault Memory matched"))).toBe(false);
    expect(readdirSync(marks)).toEqual([]);
    // The call is not kept as a session: no transcript of the conversation under HOME.
    const transcripts = (dir: string): string[] =>
      existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl")) : [];
    expect(transcripts(join(home, ".claude", "projects"))).toEqual([]);
  });
});
