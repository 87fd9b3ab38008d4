import { spawn } from "node:child_process";
import { readFileSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listPending, queueDirs } from "../../src/core/queue/queue-store";
import { vaultFiles } from "../../src/core/paths";
import { BRIDGE, copyVault, editHeader, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { jsonl, line } from "../fixtures/transcript";

const LONG = "A reply long enough to count as real work in this conversation, with details.";

function transcript(dir: string, session: string, prompts = 2): string {
  const path = join(dir, `${session}.jsonl`);
  const lines: unknown[] = [];
  for (let i = 0; i < prompts; i++) lines.push(line.prompt(`question ${i} about the ${session} build`), line.reply(LONG));
  writeFileSync(path, jsonl(lines));
  return path;
}

function stopJson(session: string, transcriptPath: string): string {
  return JSON.stringify({ session_id: session, transcript_path: transcriptPath, cwd: "/work/project", hook_event_name: "Stop", stop_hook_active: false });
}

function runAsync(args: string[], input: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BRIDGE, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.on("close", (code) => resolve({ code, stdout }));
    child.stdin.end(input);
  });
}

describe("queue as the Stop hook", () => {
  it("prints nothing and exits 0, queued or not", () => {
    const vault = tempDir();
    const t1 = transcript(tempDir(), "one", 1);
    expect(runBridge(["queue", "--vault", vault], stopJson("one", t1))).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(listPending(vault)).toEqual([]);
    const t2 = transcript(tempDir(), "two", 2);
    expect(runBridge(["queue", "--vault", vault], stopJson("two", t2))).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(listPending(vault).map((e) => e.sessionId)).toEqual(["two"]);
  });

  it.each(["", "not json", "[]", '{"session_id":"x"}', '{"session_id":"x","transcript_path":"/nope.jsonl"}'])("fails open on %j", (input) => {
    const vault = tempDir();
    expect(runBridge(["queue", "--vault", vault], input)).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  it("leaves 50 intact entries when 50 sessions stop at the same moment", async () => {
    const vault = tempDir();
    const dir = tempDir();
    const sessions = Array.from({ length: 50 }, (_, i) => `session-${i}`);
    const results = await Promise.all(sessions.map((s) => runAsync(["queue", "--vault", vault], stopJson(s, transcript(dir, s)))));
    expect(results.every((r) => r.code === 0 && r.stdout === "")).toBe(true);
    const pending = listPending(vault);
    expect(pending.map((e) => e.sessionId).sort()).toEqual([...sessions].sort());
    for (const e of pending) expect(readFileSync(join(vault, e.inbox), "utf8")).toContain(`about the ${e.sessionId} build`);
    expect(readdirSync(queueDirs.pending(vault)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("leaves one intact entry when two hooks of one session run at once", async () => {
    const vault = tempDir();
    const t = transcript(tempDir(), "same", 3);
    const results = await Promise.all([1, 2, 3, 4].map(() => runAsync(["queue", "--vault", vault], stopJson("same", t))));
    expect(results.every((r) => r.code === 0)).toBe(true);
    const files = readdirSync(queueDirs.pending(vault));
    expect(files).toEqual(["same.json"]);
    expect(JSON.parse(readFileSync(join(queueDirs.pending(vault), "same.json"), "utf8"))).toMatchObject({ sessionId: "same", prompts: 3 });
  });
});

describe("remind as the SessionStart hook", () => {
  it("prints nothing when the queue is empty, and one line when entries wait", () => {
    const vault = tempDir();
    expect(runBridge(["remind", "--vault", vault], "{}")).toEqual({ status: 0, stdout: "", stderr: "" });
    runBridge(["queue", "--vault", vault], stopJson("waiting", transcript(tempDir(), "waiting")));
    const r = runBridge(["remind", "--vault", vault], "{}");
    expect(r.status).toBe(0);
    // For the person, not for Claude: one systemMessage document on one line.
    expect(r.stdout).toMatch(
      /^\{"systemMessage":"Vault Memory: 1 conversation waits to become cards \(oldest queued less than an hour ago\); the nightly digest has not run yet\."\}\n$/,
    );
    expect(Object.keys(JSON.parse(r.stdout) as object)).toEqual(["systemMessage"]);
    writeFileSync(
      join(vault, ".vault-memory", "digest-status.json"),
      JSON.stringify({ finishedAt: new Date(Date.now() - 5 * 3_600_000).toISOString(), ok: false, error: "quota exceeded" }),
    );
    expect(runBridge(["remind", "--vault", vault], "{}").stdout).toContain("the nightly digest failed 5 hours ago (quota exceeded)");
    // A night that ran but could not file its only entry says so.
    writeFileSync(
      join(vault, ".vault-memory", "digest-status.json"),
      JSON.stringify({ finishedAt: new Date(Date.now() - 2 * 3_600_000).toISOString(), ok: true, failed: 1, left: 1 }),
    );
    expect(runBridge(["remind", "--vault", vault], "{}").stdout).toContain(
      "the nightly digest last ran 2 hours ago and could not file 1 conversation (see its report in meta/digest).",
    );
  });

  it("rebuilds a snapshot recall cannot use, and leaves a file that is not one alone", () => {
    const vault = copyVault(SAMPLE_VAULT);
    const snapshot = vaultFiles.snapshot(vault);
    const recallOf = () => runBridge(["recall", "--vault", vault], JSON.stringify({ prompt: "为什么排程跑不起来", session_id: `s-${Math.random()}` })).stdout;
    runBridge(["index", "--vault", vault]);
    const bytes = readFileSync(snapshot, "utf8");
    for (const broken of [
      editHeader(Buffer.from(bytes), (h) => h.replace(/"tokenizer":\d+/, '"tokenizer":1')).toString(), // written by an older release
      bytes.slice(0, bytes.length - 100), // cut short
      null, // missing
    ]) {
      if (broken === null) unlinkSync(snapshot);
      else writeFileSync(snapshot, broken);
      expect(recallOf()).toBe("");
      const remind = runBridge(["remind", "--vault", vault], "{}");
      expect(remind).toMatchObject({ status: 0, stderr: "" });
      // Nothing for the person (the queue is empty); for Claude, the brief of the rebuilt snapshot.
      expect(JSON.parse(remind.stdout)).toEqual({
        hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: expect.stringContaining("vault-memory.md") },
      });
      expect(recallOf()).toContain("launchd-cron-path.md");
    }
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/rebuilt the recall snapshot \(tokenizer-mismatch\): 15 cards/);
    // A long header (it holds the synonyms note's groups) is still read to tell old from new.
    writeFileSync(join(vault, "meta", "synonyms.md"), Array.from({ length: 400 }, (_, i) => `- word${i}, other${i}`).join("\n"));
    runBridge(["index", "--vault", vault]);
    writeFileSync(
      snapshot,
      editHeader(readFileSync(snapshot), (h) => h.replace(/"tokenizer":\d+/, '"tokenizer":1')),
    );
    expect(readFileSync(snapshot, "utf8").indexOf("\n")).toBeGreaterThan(8192);
    runBridge(["remind", "--vault", vault], "{}");
    expect(recallOf()).toContain("launchd-cron-path.md");
    // One written by a newer release is left for it, or two releases would take turns rewriting it.
    const newer = editHeader(readFileSync(snapshot), (h) => h.replace(/"tokenizer":\d+/, '"tokenizer":99')).toString();
    writeFileSync(snapshot, newer);
    runBridge(["remind", "--vault", vault], "{}");
    expect(readFileSync(snapshot, "utf8")).toBe(newer);
    // Another tool's JSON at our path is not ours to replace.
    writeFileSync(snapshot, '{"format":"someone-elses-index"}\n');
    runBridge(["remind", "--vault", vault], "{}");
    expect(readFileSync(snapshot, "utf8")).toBe('{"format":"someone-elses-index"}\n');
  });
});
