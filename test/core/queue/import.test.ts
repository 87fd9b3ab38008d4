import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { importHistory, importLines } from "../../../src/core/queue/import";
import { digestOrder, listPending, markHandled, readInbox } from "../../../src/core/queue/queue-store";
import { tempDir } from "../../helpers";
import { projectFolder, sessionLines, writeHistory, writeSession } from "../../fixtures/history";

const uid = process.getuid?.();
const NOW = new Date("2026-12-06T09:00:00Z");
const LONG = "We traced the failure to a stale lockfile and regenerated it; the build passes now.";

function setup(count = 6) {
  const projects = tempDir("vm-import-");
  const vault = tempDir();
  const paths = writeHistory(projects, count, { projects: 2, toolBytes: 200, turns: 3 });
  return { projects, vault, paths };
}

function run(vault: string, from: string, extra: Partial<Parameters<typeof importHistory>[1]> = {}) {
  return importHistory(vault, { from, rules: DEFAULT_QUEUE_RULES, uid, now: NOW, ...extra });
}

describe("importHistory", () => {
  it("queues the sessions worth keeping, newest first, marked as imported", () => {
    const { projects, vault } = setup(6);
    const r = run(vault, projects);
    // Every third session is one prompt: not worth keeping by the Stop hook's rules.
    expect(r).toMatchObject({ found: 6, short: 2, known: 0, refused: [], left: 0 });
    expect(r.queued.map((s) => s.sessionId.slice(-2))).toEqual(["00", "01", "03", "04"]);
    const pending = listPending(vault);
    expect(pending).toHaveLength(4);
    for (const e of pending) expect(e).toMatchObject({ imported: NOW.toISOString(), prompts: 3, project: expect.stringMatching(/^project-[01]$/) });
    expect(readInbox(vault, pending[0])).toContain("why does");
  });

  it("adds nothing the second time, and reads only what it could not pass by", () => {
    const { projects, vault } = setup(6);
    run(vault, projects);
    const before = readdirSync(join(vault, ".vault-memory", "queue", "pending")).map((f) =>
      readFileSync(join(vault, ".vault-memory", "queue", "pending", f), "utf8"),
    );
    const again = run(vault, projects, { now: new Date(NOW.getTime() + 60_000) });
    expect(again).toMatchObject({ queued: [], known: 4, short: 2 });
    const after = readdirSync(join(vault, ".vault-memory", "queue", "pending")).map((f) =>
      readFileSync(join(vault, ".vault-memory", "queue", "pending", f), "utf8"),
    );
    expect(after).toEqual(before);
  });

  it("passes by what the digest filed, and what the Stop hook queued", () => {
    const { projects, vault, paths } = setup(3);
    const first = run(vault, projects);
    markHandled(vault, first.queued[0].sessionId, { action: "created", detail: "x.md" }, new Date());
    // The Stop hook of a session running now queues it as a live one.
    const live = writeSession(projects, {
      id: "live-session",
      cwd: "/home/dev/src/project-0",
      endedAt: new Date(),
      turns: [
        { prompt: "a", reply: LONG },
        { prompt: "b", reply: LONG },
      ],
    });
    captureSession(vault, { sessionId: "live-session", transcriptPath: live, cwd: "/home/dev/src/project-0", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    const again = run(vault, projects, { now: new Date() });
    expect(again.queued).toEqual([]);
    expect(again.known).toBe(3);
    expect(listPending(vault).find((e) => e.sessionId === "live-session")?.imported).toBeUndefined();
    expect(paths).toHaveLength(3);
  });

  it("brings an entry up to date when its session went on after the import, and the Stop hook makes it a live one", () => {
    const { projects, vault, paths } = setup(1);
    run(vault, projects);
    const more = sessionLines({
      id: "00000000-0000-4000-8000-000000000000",
      cwd: "/home/dev/src/project-0",
      endedAt: new Date("2026-12-01T00:00:00Z"),
      turns: [{ prompt: "one more question", reply: LONG }],
    });
    appendFileSync(
      paths[0],
      more
        .slice(0, -1)
        .map((l) => l.replace(/-(\d+)"/g, '-x$1"'))
        .join("\n") + "\n",
    );
    // Written after the import ran.
    const later = new Date(NOW.getTime() + 120_000);
    utimesSync(paths[0], later, later);
    const again = run(vault, projects, { now: new Date(NOW.getTime() + 180_000) });
    expect(again.queued).toHaveLength(1);
    expect(listPending(vault)[0]).toMatchObject({ prompts: 4, imported: NOW.toISOString() });
    // The person resumes the session: its Stop hook's entry is a live one from then on.
    appendFileSync(
      paths[0],
      more
        .slice(0, -1)
        .map((l) => l.replace(/-(\d+)"/g, '-y$1"'))
        .join("\n") + "\n",
    );
    const r = captureSession(
      vault,
      { sessionId: listPending(vault)[0].sessionId, transcriptPath: paths[0], cwd: "/home/dev/src/project-0", stopHookActive: false },
      DEFAULT_QUEUE_RULES,
      {
        now: new Date(NOW.getTime() + 240_000),
      },
    );
    expect(r.queued).toBe(true);
    const after = listPending(vault);
    expect(after).toHaveLength(1);
    expect(after[0].prompts).toBe(5);
    expect(after[0].imported).toBeUndefined();
  });

  it("takes only the sessions since a date, and only one project's", () => {
    const { projects, vault } = setup(6);
    const since = run(vault, projects, { since: new Date("2026-11-28T00:00:00Z"), dryRun: true });
    expect(since.queued.map((s) => s.sessionId.slice(-2))).toEqual(["00", "01"]);
    expect(since.outside).toBe(3);
    const one = run(vault, projects, { project: "PROJECT-1", dryRun: true });
    expect(one.queued.map((s) => s.project)).toEqual(["project-1", "project-1"]);
    // Sessions 0, 2 and 4 are project-0's.
    expect(one.outside).toBe(3);
    expect(listPending(vault)).toEqual([]);
  });

  it("leaves out the projects the settings exclude", () => {
    const { projects, vault } = setup(6);
    const r = run(vault, projects, { rules: { ...DEFAULT_QUEUE_RULES, excludeProjects: ["project-1"] } });
    expect(r.excluded).toBe(3);
    expect(r.queued.every((s) => s.project === "project-0")).toBe(true);
  });

  it("redacts secrets and private passages before anything is queued", () => {
    const projects = tempDir("vm-import-");
    const vault = tempDir();
    const key = "sk-ant-api03-" + "Zq8".repeat(30) + "AA";
    writeSession(projects, {
      id: "secret-session",
      cwd: "/home/dev/src/app",
      endedAt: new Date("2026-11-01T00:00:00Z"),
      turns: [
        { prompt: `my key is ${key}, set it in the env`, reply: LONG },
        { prompt: "and <private>my home address is 1 Elm St</private> keep going", reply: LONG },
      ],
    });
    run(vault, projects);
    const text = readInbox(vault, listPending(vault)[0]);
    expect(text).not.toContain(key);
    expect(text).not.toContain("Elm St");
    expect(text).toContain("set it in the env");
  });

  it("refuses what is no transcript of this account's, without hanging or following links", () => {
    const { projects, vault } = setup(3);
    const folder = projectFolder(projects, "/home/dev/src/project-0");
    execFileSync("mkfifo", [join(folder, "fifo-session.jsonl")]);
    mkdirSync(join(folder, "dir-session.jsonl"));
    const elsewhere = tempDir("vm-import-");
    const outside = writeSession(elsewhere, {
      id: "outside",
      cwd: "/x",
      endedAt: new Date(),
      turns: [
        { prompt: "a", reply: LONG },
        { prompt: "b", reply: LONG },
      ],
    });
    symlinkSync(outside, join(folder, "link-session.jsonl"));
    // A project folder that is a link to another folder is not entered either.
    symlinkSync(projectFolder(elsewhere, "/x"), join(projects, "-linked-project"));
    // A session's sub-agents are no conversation of the person's.
    mkdirSync(join(folder, "00000000-0000-4000-8000-000000000000", "subagents"), { recursive: true });
    writeFileSync(
      join(folder, "00000000-0000-4000-8000-000000000000", "subagents", "agent-1.jsonl"),
      sessionLines({
        id: "a",
        cwd: "/x",
        endedAt: new Date(),
        turns: [
          { prompt: "a", reply: LONG },
          { prompt: "b", reply: LONG },
        ],
      }).join("\n"),
    );
    const r = run(vault, projects);
    expect(r.queued).toHaveLength(2);
    expect(r.refused.map((x) => [x.path.split("/").pop(), x.why])).toEqual(
      expect.arrayContaining([
        ["fifo-session.jsonl", "a FIFO, not a transcript"],
        ["dir-session.jsonl", "a folder, not a transcript"],
        ["link-session.jsonl", "a link, not a transcript"],
      ]),
    );
    expect(r.refused).toHaveLength(3);
    expect(listPending(vault).map((e) => e.sessionId)).not.toContain("outside");
  });

  it("refuses transcripts another account owns", () => {
    const { projects, vault } = setup(3);
    const other = (uid ?? 0) + 1;
    const r = run(vault, projects, { uid: other });
    expect(r.queued).toEqual([]);
    expect(r.refused).toHaveLength(3);
    expect(r.refused[0].why).toMatch(/^owned by another account \(uid \d+\)$/);
  });

  it("reads truncated, overlong and damaged transcripts as far as they go", () => {
    const projects = tempDir("vm-import-");
    const vault = tempDir();
    const good = sessionLines({
      id: "cut",
      cwd: "/home/dev/src/app",
      endedAt: new Date("2026-11-01T00:00:00Z"),
      turns: [
        { prompt: "a", reply: LONG },
        { prompt: "b", reply: LONG },
      ],
    });
    const folder = projectFolder(projects, "/home/dev/src/app");
    mkdirSync(folder, { recursive: true });
    // Cut mid-line, as a session killed while writing leaves it.
    writeFileSync(join(folder, "cut.jsonl"), good.join("\n").slice(0, -40));
    // A line of 9 MB (a pasted file), then the conversation.
    writeFileSync(join(folder, "overlong.jsonl"), `{"type":"user","x":"${"y".repeat(9 << 20)}"}\n` + good.join("\n").replaceAll('"cut', '"overlong') + "\n");
    // Bytes that are no JSON at all, and no newline anywhere.
    writeFileSync(join(folder, "garbage.jsonl"), Buffer.alloc(3 << 20, 0xff));
    writeFileSync(join(folder, "empty.jsonl"), "");
    const r = run(vault, projects);
    expect(r.queued.map((s) => s.sessionId).sort()).toEqual(["cut", "overlong"]);
    expect(r.short).toBe(2);
  });

  it("stops when its time is up, and the next run takes the rest", () => {
    const { projects, vault } = setup(6);
    const r = run(vault, projects, { deadline: 0 });
    expect(r).toMatchObject({ queued: [], left: 6, stopped: "out of time" });
    expect(importLines(r, 20).join("\n")).toContain("6 transcripts not reached; run import again to go on");
    expect(run(vault, projects).queued).toHaveLength(4);
  });

  it("says a folder that is not one", () => {
    const vault = tempDir();
    const file = join(tempDir("vm-import-"), "f");
    writeFileSync(file, "");
    expect(() => run(vault, file)).toThrow(/is not a folder/);
    rmSync(file);
    expect(() => run(vault, file)).toThrow(/ENOENT/);
  });
});

describe("digestOrder", () => {
  it("takes the day's own conversations first, then the imported ones, newest first", () => {
    const e = (id: string, queuedAt: string, lastTimestamp: string, imported?: string) =>
      ({ sessionId: id, queuedAt, lastTimestamp, ...(imported ? { imported } : {}) }) as Parameters<typeof digestOrder>[0][number];
    const order = digestOrder([
      e("old-import", "2026-12-01", "2026-01-01", "2026-12-01"),
      e("live-1", "2026-12-02", "2026-12-02"),
      e("new-import", "2026-12-01", "2026-06-01", "2026-12-01"),
      e("live-2", "2026-12-03", "2026-12-03"),
    ]);
    expect(order.map((x) => x.sessionId)).toEqual(["live-1", "live-2", "new-import", "old-import"]);
  });
});
