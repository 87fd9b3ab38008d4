/**
 * "Remember this" through the built bridge, with hook payloads shaped as the real CLI sends them
 * (see shared/reference/claude-code-hooks.md): at the first prompt's UserPromptSubmit the
 * transcript file does not exist yet, and at a later one it does not hold the prompt yet.
 */

import { appendFileSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { listPending, markHandled, queueDirs, type QueueEntry } from "../../src/core/queue/queue-store";
import { jsonl, line } from "../fixtures/transcript";
import { copyVault, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";

const REPLY = "Noted: esbuild stays pinned to an exact version, since a minor release changed the output once.";
const SECRET = ["ghp_", "zYxWvUtSrQpOnMlKjIhGfEdCbA9876543210"].join("");
const CWD = "/work/project";

function promptJson(session: string, transcriptPath: string, prompt: string): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: transcriptPath,
    cwd: CWD,
    prompt_id: `p-${session}`,
    permission_mode: "default",
    hook_event_name: "UserPromptSubmit",
    prompt,
  });
}

function stopJson(session: string, transcriptPath: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: transcriptPath,
    cwd: CWD,
    prompt_id: `p-${session}`,
    permission_mode: "default",
    effort: { level: "medium" },
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: REPLY,
    background_tasks: [],
    session_crons: [],
    ...extra,
  });
}

/** What Claude Code has written once the first turn is over: metadata lines, the prompt, the reply. */
function firstTurn(prompt: string): string {
  return jsonl([
    line.meta("queue-operation"),
    line.meta("queue-operation"),
    line.prompt(prompt),
    line.meta("attachment"),
    line.meta("api-request"),
    line.reply(REPLY),
    line.meta("last-prompt"),
  ]);
}

function indexedVault(): string {
  const vault = copyVault(SAMPLE_VAULT);
  expect(runBridge(["index", "--vault", vault]).status).toBe(0);
  return vault;
}

function pendingFiles(vault: string): string[] {
  return readdirSync(queueDirs.pending(vault)).filter((f) => f.endsWith(".json"));
}

function inboxOf(vault: string, e: QueueEntry): string {
  return readFileSync(join(vault, e.inbox), "utf8");
}

describe('"remember this" as the first prompt of a session', () => {
  const prompt = `remember this: we pin esbuild exactly, the deploy token is ${SECRET} <private>my home address</private>`;

  it("is queued before the transcript exists, and the Stop hook of the one-prompt session completes it", () => {
    const vault = indexedVault();
    const transcript = join(tempDir(), "first-1.jsonl");
    const r = runBridge(["recall", "--vault", vault], promptJson("first-1", transcript, prompt));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Vault Memory queued this conversation");
    const [marker] = listPending(vault);
    expect(marker).toMatchObject({ sessionId: "first-1", wanted: true, awaitingReply: true, prompts: 1, assistantChars: 0 });

    writeFileSync(transcript, firstTurn(prompt));
    expect(runBridge(["queue", "--vault", vault], stopJson("first-1", transcript))).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(pendingFiles(vault)).toEqual(["first-1.json"]);
    const [entry] = listPending(vault);
    expect(entry).toMatchObject({ sessionId: "first-1", wanted: true, prompts: 1, transcriptPath: transcript });
    expect(entry.assistantChars).toBeGreaterThan(0);
    expect(entry.awaitingReply).toBeUndefined();
    const inbox = inboxOf(vault, entry);
    expect(inbox).toMatch(/## User \(turn 0\)\n\nremember this: we pin esbuild exactly[\s\S]*## Claude \(turn 1\)\n\nNoted: esbuild stays pinned/);
  });

  it("keeps the prompt, sanitised, when the Stop hook never runs", () => {
    const vault = indexedVault();
    runBridge(["recall", "--vault", vault], promptJson("crashed", join(tempDir(), "crashed.jsonl"), prompt));
    const [entry] = listPending(vault);
    expect(entry).toMatchObject({ sessionId: "crashed", wanted: true, prompts: 1 });
    const inbox = inboxOf(vault, entry);
    expect(inbox).toContain("remember this: we pin esbuild exactly");
    expect(inbox).toContain("[REDACTED]");
    for (const text of [inbox, JSON.stringify(entry)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("home address");
    }
  });

  it("reaches the digest holding the prompt when the Stop hook never ran", () => {
    const vault = indexedVault();
    runBridge(
      ["recall", "--vault", vault],
      promptJson("unfinished", join(tempDir(), "unfinished.jsonl"), "remember this: the staging database is called heron"),
    );
    // A stand-in for the LLM that records what the digest sends it.
    const sent = join(tempDir(), "sent.txt");
    const llm = join(tempDir(), "llm.sh");
    writeFileSync(llm, `#!/bin/sh\ncat >> "${sent}"\necho '{"action":"skip","reason":"test"}'\n`, { mode: 0o755 });
    const mine = join(tempDir(), "config.json");
    writeFileSync(mine, JSON.stringify({ digest: { binary: llm, command: [llm] } }), { mode: 0o600 });
    runBridge(["digest", "--vault", vault, "--dry-run", "--only", "unfinished", "--config", mine]);
    expect(readFileSync(sent, "utf8")).toContain("the staging database is called heron");
  });

  it("keeps the prompt, and says so, in a vault with no index yet", () => {
    const vault = copyVault(SAMPLE_VAULT);
    const r = runBridge(["recall", "--vault", vault], promptJson("no-index", join(tempDir(), "no-index.jsonl"), "remember this: releases are tagged vX.Y.Z"));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Vault Memory queued this conversation");
    expect(listPending(vault)).toMatchObject([{ sessionId: "no-index", wanted: true }]);
  });

  it("keeps the prompt, and says so, when recall runs past its deadline", () => {
    const vault = indexedVault();
    const r = runBridge(
      ["recall", "--vault", vault, "--deadline-ms", "0"],
      promptJson("late", join(tempDir(), "late.jsonl"), "remember this: why does launchd fail nightly"),
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Vault Memory queued this conversation");
    expect(listPending(vault)).toMatchObject([{ sessionId: "late", wanted: true }]);
  });
});

describe('"remember this" later in a session', () => {
  it("holds the prompt the transcript does not hold yet, and the Stop hook adds the reply even to a short session", () => {
    const vault = indexedVault();
    const transcript = join(tempDir(), "later.jsonl");
    // One earlier turn with a reply too short for the queue's rules.
    writeFileSync(transcript, jsonl([line.prompt("which bundler do we use?"), line.reply("esbuild.")]));
    runBridge(["recall", "--vault", vault], promptJson("later", transcript, "/remember"));
    expect(listPending(vault)).toMatchObject([{ prompts: 2, awaitingReply: true }]);
    appendFileSync(transcript, jsonl([line.prompt("<command-name>/remember</command-name>"), line.reply(REPLY)]));
    runBridge(["queue", "--vault", vault], stopJson("later", transcript));
    const [entry] = listPending(vault);
    expect(entry).toMatchObject({ prompts: 2, wanted: true });
    expect(entry.awaitingReply).toBeUndefined();
    expect(inboxOf(vault, entry)).toContain("Noted: esbuild stays pinned");
  });

  it("is completed by a Stop hook that follows another hook's block (stop_hook_active)", () => {
    const vault = indexedVault();
    const transcript = join(tempDir(), "blocked.jsonl");
    runBridge(["recall", "--vault", vault], promptJson("blocked", transcript, "remember this: tabs, not spaces"));
    writeFileSync(transcript, firstTurn("remember this: tabs, not spaces"));
    runBridge(["queue", "--vault", vault], stopJson("blocked", transcript, { stop_hook_active: true }));
    const [entry] = listPending(vault);
    expect(entry.assistantChars).toBeGreaterThan(0);
    expect(entry.awaitingReply).toBeUndefined();
  });

  it("is completed from the Stop hook's payload when the transcript cannot be read", () => {
    const vault = indexedVault();
    // A folder where the file should be: as unreadable as a folder the hook may not enter, for root too.
    const transcript = join(tempDir(), "unreadable.jsonl");
    mkdirSync(transcript);
    const r = runBridge(["recall", "--vault", vault], promptJson("unreadable", transcript, "remember this: the cache lives in ~/.cache/vm"));
    expect(r.stdout).toContain("Vault Memory queued this conversation");
    runBridge(["queue", "--vault", vault], stopJson("unreadable", transcript));
    expect(pendingFiles(vault)).toEqual(["unreadable.json"]);
    const [entry] = listPending(vault);
    expect(entry).toMatchObject({ wanted: true, prompts: 1, assistantChars: REPLY.length });
    expect(entry.awaitingReply).toBeUndefined();
    expect(inboxOf(vault, entry)).toMatch(/the cache lives in ~\/\.cache\/vm[\s\S]*## Claude \(turn 1\)\n\nNoted: esbuild stays pinned/);
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toContain("transcript is not a regular file");
  });

  it("adds to a conversation already queued, never replaces it, when the transcript cannot be read", () => {
    const vault = indexedVault();
    const transcript = join(tempDir(), "grown.jsonl");
    writeFileSync(
      transcript,
      jsonl([line.prompt("why does the nightly build fail on the runner?"), line.reply(REPLY), line.prompt("and how do we pin it?"), line.reply(REPLY)]),
    );
    runBridge(["queue", "--vault", vault], stopJson("grown", transcript));
    expect(listPending(vault)).toMatchObject([{ prompts: 2 }]);
    // The file is no longer one the hooks may read.
    renameSync(transcript, `${transcript}.moved`);
    mkdirSync(transcript);
    runBridge(["recall", "--vault", vault], promptJson("grown", transcript, "remember this: the runner needs node 20"));
    const [entry] = listPending(vault);
    expect(entry).toMatchObject({ wanted: true, prompts: 3, awaitingReply: true });
    const inbox = inboxOf(vault, entry);
    expect(inbox).toMatch(/nightly build fail on the runner[\s\S]*how do we pin it[\s\S]*## User \(turn 4\)\n\nremember this: the runner needs node 20/);
    runBridge(["queue", "--vault", vault], stopJson("grown", transcript));
    const [done] = listPending(vault);
    expect(done.awaitingReply).toBeUndefined();
    expect(inboxOf(vault, done)).toMatch(/nightly build fail on the runner[\s\S]*runner needs node 20[\s\S]*## Claude \(turn 5\)/);
  });

  it("queues the rest of the turn as a new wanted entry when a digest filed the entry before the turn ended", () => {
    const vault = indexedVault();
    const transcript = join(tempDir(), "early.jsonl");
    runBridge(["recall", "--vault", vault], promptJson("early", transcript, "remember this: deploys go out on Tuesdays"));
    markHandled(vault, "early", { action: "created", detail: "projects/deploys.md" });
    expect(listPending(vault)).toEqual([]);
    writeFileSync(transcript, firstTurn("remember this: deploys go out on Tuesdays"));
    runBridge(["queue", "--vault", vault], stopJson("early", transcript));
    const [entry] = listPending(vault);
    expect(entry).toMatchObject({ sessionId: "early", wanted: true, resumedAfter: expect.any(String) });
    expect(inboxOf(vault, entry)).toContain("Noted: esbuild stays pinned");
    // Once the rest is queued, the session's later turns follow the usual rules again.
    markHandled(vault, "early", { action: "extended", detail: "projects/deploys.md" });
    runBridge(["queue", "--vault", vault], stopJson("early", transcript));
    expect(listPending(vault)).toEqual([]);
  });
});
