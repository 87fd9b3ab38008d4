import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureSession, DEFAULT_QUEUE_RULES, isExcluded } from "../../../src/core/queue/capture";
import { listHandled, listPending, markHandled, restoreHandled } from "../../../src/core/queue/queue-store";
import { RECALL_HEADER } from "../../../src/core/text/recall-header";
import { tempDir } from "../../helpers";
import { jsonl, line } from "../../fixtures/transcript";

function setup(lines: unknown[], sessionId = "sess-1") {
  const vault = tempDir();
  const transcript = join(tempDir(), `${sessionId}.jsonl`);
  writeFileSync(transcript, jsonl(lines));
  const payload = { sessionId, transcriptPath: transcript, cwd: "/work/project", stopHookActive: false };
  return { vault, transcript, payload };
}

const LONG = "Here is a reply long enough to count as real work done in this turn.";

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("captureSession", () => {
  it("queues nothing for one prompt, and queues at two", () => {
    const lines = [line.prompt("how do I set PATH for launchd?"), line.reply(LONG)];
    const one = setup(lines);
    expect(captureSession(one.vault, one.payload, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: false, reason: expect.stringContaining("1 prompt") });
    const two = setup([...lines, line.prompt("and on Windows?"), line.reply(LONG)]);
    expect(captureSession(two.vault, two.payload, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: true });
    expect(listPending(two.vault)).toHaveLength(1);
  });

  it("needs 60 characters of reply", () => {
    const s = setup([line.prompt("a"), line.reply("ok"), line.prompt("b"), line.reply("fine")]);
    expect(captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: false, reason: expect.stringContaining("characters") });
  });

  it("does nothing when the stop hook is already active", () => {
    const s = setup([line.prompt("a"), line.reply(LONG), line.prompt("b"), line.reply(LONG)]);
    expect(captureSession(s.vault, { ...s.payload, stopHookActive: true }, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: false });
    expect(listPending(s.vault)).toEqual([]);
  });

  it("keeps one entry per session and updates it as the session grows", () => {
    const s = setup([line.prompt("first question"), line.reply(LONG), line.prompt("second"), line.reply(LONG)]);
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES, { now: new Date("2026-11-30T01:00:00Z") });
    expect(captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: false, reason: "already queued, unchanged" });
    writeFileSync(s.transcript, readFileSync(s.transcript, "utf8") + jsonl([line.prompt("third"), line.reply(LONG)]));
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES, { now: new Date("2026-11-30T02:00:00Z") });
    const pending = listPending(s.vault);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ prompts: 3, queuedAt: "2026-11-30T01:00:00.000Z", updatedAt: "2026-11-30T02:00:00.000Z" });
  });

  it("records the session's metadata and its condensed text without tool output", () => {
    const s = setup([
      line.prompt("We decided to use launchd for the nightly job."),
      line.toolResult("TOOL-OUTPUT-XYZ"),
      line.reply(LONG),
      line.prompt("next"),
      line.reply(LONG),
    ]);
    const r = captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES);
    expect(r.queued).toBe(true);
    const entry = listPending(s.vault)[0];
    expect(entry).toMatchObject({ sessionId: "sess-1", project: "project", cwd: "/work/project", gitBranch: "main", prompts: 2, transcriptPath: s.transcript });
    expect(entry.candidates).toContainEqual({ kind: "decision", text: "We decided to use launchd for the nightly job.", turn: 0 });
    const inbox = readFileSync(join(s.vault, entry.inbox), "utf8");
    expect(inbox).toContain("## User (turn 0)");
    expect(inbox).not.toContain("TOOL-OUTPUT-XYZ");
  });

  it("never writes secrets, private passages or our own recall block", () => {
    const secret = ["ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"].join("");
    const s = setup([
      line.prompt(`use this token ${secret} to push`),
      line.reply(`${LONG} <private>the staging password is swordfish</private>`),
      line.prompt(`${RECALL_HEADER}\n- /vault/cards/a.md — injected card line\nreal question here`),
      line.reply(LONG),
    ]);
    expect(captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES).queued).toBe(true);
    for (const f of allFiles(s.vault)) {
      const text = readFileSync(f, "utf8");
      expect(text).not.toContain(secret);
      expect(text).not.toContain("swordfish");
      expect(text).not.toContain("injected card line");
    }
  });

  it("never queues an excluded project", () => {
    const s = setup([line.prompt("a"), line.reply(LONG), line.prompt("b"), line.reply(LONG)]);
    const rules = { ...DEFAULT_QUEUE_RULES, excludeProjects: ["proj*"] };
    expect(captureSession(s.vault, s.payload, rules)).toMatchObject({ queued: false, reason: expect.stringContaining("excluded") });
    expect(isExcluded("client-x", "/home/me/work/client-x", ["/home/me/work/*"])).toBe(true);
    expect(isExcluded("Secret", "/x", ["secret"])).toBe(true);
    expect(isExcluded("public", "/x", ["secret", "client-?"])).toBe(false);
  });

  it("queues a wanted session whatever the thresholds, and marks it", () => {
    const s = setup([line.prompt("remember this: use pnpm"), line.reply("ok")]);
    expect(captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES, { wanted: true })).toMatchObject({ queued: true, entry: { wanted: true } });
  });

  it("re-queues a handled session only once it has grown", () => {
    const s = setup([line.prompt("a question"), line.reply(LONG), line.prompt("b question"), line.reply(LONG)]);
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES);
    markHandled(s.vault, "sess-1", { action: "skipped", detail: "nothing new" });
    expect(listPending(s.vault)).toEqual([]);
    expect(captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: false, reason: "already handled, unchanged" });
    writeFileSync(s.transcript, readFileSync(s.transcript, "utf8") + jsonl([line.prompt("c question"), line.reply(LONG)]));
    expect(captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: true, entry: { resumedAfter: expect.any(String) } });
  });

  it("refuses session ids that are not plain ids", () => {
    const s = setup([line.prompt("a"), line.reply(LONG), line.prompt("b"), line.reply(LONG)]);
    expect(captureSession(s.vault, { ...s.payload, sessionId: "../../etc" }, DEFAULT_QUEUE_RULES)).toMatchObject({ queued: false });
    expect(captureSession(s.vault, { ...s.payload, sessionId: "a/b" }, DEFAULT_QUEUE_RULES)).toMatchObject({
      queued: false,
      reason: "session id is not a plain id",
    });
    // Nothing was written for either, inside the vault or beside it.
    expect(existsSync(join(s.vault, ".vault-memory"))).toBe(false);
    expect(existsSync(join(s.vault, "..", "etc.json"))).toBe(false);
  });
});

describe("a session that grows while its entry is being filed", () => {
  it("stays queued for its new turns, and the handled record says what was filed", () => {
    const s = setup([line.prompt("a question"), line.reply(LONG), line.prompt("b question"), line.reply(LONG)]);
    const first = captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES);
    if (!first.queued) throw new Error("not queued");
    // The digest has read the entry and waits for the LLM; the Stop hook records two more turns.
    writeFileSync(s.transcript, readFileSync(s.transcript, "utf8") + jsonl([line.prompt("c question about postgres"), line.reply(LONG)]));
    expect(captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES, { now: new Date(Date.now() + 1000) })).toMatchObject({ queued: true });
    markHandled(s.vault, first.entry.sessionId, { action: "created", detail: "x.md" }, new Date(), first.entry);
    const pending = listPending(s.vault);
    expect(pending.map((e) => [e.prompts, typeof e.resumedAfter])).toEqual([[3, "string"]]);
    const handled = JSON.parse(readFileSync(join(s.vault, ".vault-memory", "queue", "handled", `${first.entry.sessionId}.json`), "utf8")) as {
      prompts: number;
    };
    expect(handled.prompts).toBe(2);
  });
});

describe("restoring a handled session to the queue", () => {
  it("puts its entry back, and keeps the handled record beside it", () => {
    const s = setup([line.prompt("a question"), line.reply(LONG), line.prompt("b question"), line.reply(LONG)]);
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES);
    markHandled(s.vault, "sess-1", { action: "skipped", detail: "nothing new" });
    expect(restoreHandled(s.vault, "sess-1")).toMatchObject({ sessionId: "sess-1", prompts: 2 });
    expect(listPending(s.vault).map((e) => e.prompts)).toEqual([2]);
    expect(readdirSync(join(s.vault, ".vault-memory", "queue", "handled")).filter((f) => f.includes(".restored-"))).toHaveLength(1);
  });

  it("never replaces the entry of a session queued again since, nor its note", () => {
    const s = setup([line.prompt("a question"), line.reply(LONG), line.prompt("b question"), line.reply(LONG)]);
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES);
    markHandled(s.vault, "sess-1", { action: "skipped", detail: "nothing new" });
    // The session goes on; the person asks to remember something, which queues it again.
    writeFileSync(s.transcript, readFileSync(s.transcript, "utf8") + jsonl([line.prompt("c question"), line.reply(LONG)]));
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES, { wanted: true, note: { text: "KEEP: staging listens on 8443" } });
    // Then restores the handled entry from the sidebar.
    const back = restoreHandled(s.vault, "sess-1");
    expect(back).toMatchObject({ prompts: 3, wanted: true });
    expect(listPending(s.vault)).toEqual([expect.objectContaining({ prompts: 3, wanted: true })]);
    expect(JSON.stringify(listPending(s.vault))).toContain("KEEP: staging listens on 8443");
    expect(readdirSync(join(s.vault, ".vault-memory", "queue", "handled")).filter((f) => f.includes(".restored-"))).toHaveLength(1);
  });
});

describe("a session filed twice", () => {
  it("keeps the record of each filing", () => {
    const s = setup([line.prompt("a question"), line.reply(LONG), line.prompt("b question"), line.reply(LONG)]);
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES);
    markHandled(s.vault, "sess-1", { action: "created", detail: "first.md" }, new Date("2026-12-01T00:00:00Z"));
    writeFileSync(s.transcript, readFileSync(s.transcript, "utf8") + jsonl([line.prompt("c question"), line.reply(LONG)]));
    captureSession(s.vault, s.payload, DEFAULT_QUEUE_RULES);
    markHandled(s.vault, "sess-1", { action: "appended", detail: "first.md" }, new Date("2026-12-02T00:00:00Z"));
    const handled = join(s.vault, ".vault-memory", "queue", "handled");
    const records = readdirSync(handled).map(
      (f) => (JSON.parse(readFileSync(join(handled, f), "utf8")) as { outcome: { detail: string; action: string } }).outcome.action,
    );
    expect(records.sort()).toEqual(["appended", "created"]);
    // The queue's list shows the latest; the earlier stays beside it.
    expect(listHandled(s.vault).map((e) => e.outcome.action)).toEqual(["appended"]);
    expect(readdirSync(join(s.vault, ".vault-memory", "queue", "pending")).filter((f) => f.includes(".handled"))).toHaveLength(2);
  });
});
