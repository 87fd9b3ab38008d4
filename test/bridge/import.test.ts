import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listPending } from "../../src/core/queue/queue-store";
import { writeDigestStatus } from "../../src/core/digest/status";
import { runDigest } from "../../src/core/digest/run";
import { defaultConfig } from "../../src/core/config";
import { vaultFiles } from "../../src/core/paths";
import { copyVault, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { writeHistory, writeSession } from "../fixtures/history";

const LONG = "We traced the failure to a stale lockfile and regenerated it; the build passes now.";

function setup(count = 6) {
  const projects = tempDir("vm-import-");
  writeHistory(projects, count, { projects: 2, toolBytes: 200, turns: 3 });
  return { projects, vault: copyVault(SAMPLE_VAULT) };
}

const said = (out: string): string => (out ? ((JSON.parse(out) as { systemMessage?: string }).systemMessage ?? "") : "");

describe("import", () => {
  it("queues the sessions worth keeping, says what it passed by, and adds nothing the second time", () => {
    const { projects, vault } = setup(6);
    const r = runBridge(["import", "--vault", vault, "--from", projects]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`queued 4 sessions of 6 found in ${projects}`);
    expect(r.stdout).toContain("passed by: 2 too short to keep");
    expect(r.stdout).toContain("the nightly digest takes up to 20 a night, after the day's own conversations: about 1 night");
    // Not a terminal: no progress line.
    expect(r.stderr).toBe("");
    expect(listPending(vault).every((e) => e.imported)).toBe(true);
    const again = runBridge(["import", "--vault", vault, "--from", projects]);
    expect(again.stdout).toContain("queued 0 sessions of 6");
    expect(again.stdout).toContain("4 queued or filed already, 2 too short to keep");
    expect(listPending(vault)).toHaveLength(4);
  });

  it("reads ~/.claude/projects by default, or Claude Code's own folder when CLAUDE_CONFIG_DIR moves it", () => {
    const home = tempDir();
    writeHistory(join(home, ".claude", "projects"), 2, { toolBytes: 10 });
    const vault = copyVault(SAMPLE_VAULT);
    expect(runBridge(["import", "--vault", vault, "--dry-run"], "", { HOME: home, CLAUDE_CONFIG_DIR: "" }).stdout).toContain(
      `would queue 2 sessions of 2 found in ${join(home, ".claude", "projects")}`,
    );
    const moved = tempDir();
    writeHistory(join(moved, "projects"), 1, { toolBytes: 10 });
    expect(runBridge(["import", "--vault", vault, "--dry-run"], "", { HOME: home, CLAUDE_CONFIG_DIR: moved }).stdout).toContain("would queue 1 session of 1");
  });

  it("--dry-run names what it would queue and writes nothing", () => {
    const { projects, vault } = setup(3);
    const r = runBridge(["import", "--vault", vault, "--from", projects, "--dry-run", "--since", "2026-11-29", "--project", "project-1"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("would queue 1 session of 3");
    expect(r.stdout).toMatch(/^ {2}2026-11-29 {2}project-1 {2}3 prompts {2}00000000-0000-4000-8000-000000000001$/m);
    expect(r.stdout).toContain("2 outside the dates or project asked for");
    expect(existsSync(vaultFiles.queuePending(vault))).toBe(false);
  });

  it("fails loudly on a folder that is not there and on a date it cannot read", () => {
    const vault = copyVault(SAMPLE_VAULT);
    const missing = join(tempDir(), "nope");
    const r = runBridge(["import", "--vault", vault, "--from", missing]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(`vault-memory import: ${missing} does not exist: no Claude Code transcripts to import (or name their folder with --from)`);
    const bad = runBridge(["import", "--vault", vault, "--from", missing, "--since", "2026-02-30"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--since takes a date (2026-01-31) or an ISO time, not "2026-02-30"');
  });

  it("--json prints its progress and then the report, one JSON object a line", () => {
    const { projects, vault } = setup(3);
    const lines = runBridge(["import", "--vault", vault, "--from", projects, "--json"])
      .stdout.trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ progress: "3 of 3 transcripts read, 2 to queue" });
    expect(lines.at(-1)).toMatchObject({ protocol: 1, report: { found: 3, short: 1 } });
  });
});

describe("status", () => {
  it("counts the imported sessions apart from the day's own, and those held", () => {
    const { projects, vault } = setup(3);
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    runBridge(["import", "--vault", vault, "--from", projects]);
    const t = writeSession(tempDir(), {
      id: "today",
      cwd: "/work/app",
      endedAt: new Date(),
      turns: [
        { prompt: "a", reply: LONG },
        { prompt: "b", reply: LONG },
      ],
    });
    captureSession(vault, { sessionId: "today", transcriptPath: t, cwd: "/work/app", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    const r = runBridge(["status", "--vault", vault]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^cards: {4}\d+ notes in the snapshot, read from the vault just now$/m);
    expect(r.stdout).toMatch(/^queue: {4}1 conversation to become cards; 2 sessions imported from before the install \(oldest queued just now\)$/m);
    expect(r.stdout).toContain("digest:   has not run yet");
    expect(r.stdout).toContain("sync:     off on this computer");
    expect(r.stdout).toContain("recall:   no prompt recalled yet");
    const json = JSON.parse(runBridge(["status", "--vault", vault, "--json"]).stdout) as { queue: unknown };
    expect(json.queue).toMatchObject({ waiting: 1, imported: 2, held: 0 });
  });

  it("says when there is no snapshot yet", () => {
    const vault = tempDir();
    mkdirSync(join(vault, ".obsidian"));
    expect(runBridge(["status", "--vault", vault]).stdout).toContain("cards:    no snapshot yet: run index");
  });
});

describe("the session start's reminder with an imported backlog", () => {
  const start = (vault: string, env: NodeJS.ProcessEnv) =>
    said(runBridge(["remind", "--vault", vault], JSON.stringify({ hook_event_name: "SessionStart", source: "startup", session_id: "s1" }), env).stdout);

  it("is quiet while the digest works through it, and says it with the day's own or when the digest is not running", () => {
    const { projects, vault } = setup(3);
    const home = tempDir();
    const env = { HOME: home, XDG_CACHE_HOME: join(home, ".cache") };
    runBridge(["import", "--vault", vault, "--from", projects]);
    expect(start(vault, env)).toMatch(/^Vault Memory: 2 sessions imported from before the install wait to become cards; the nightly digest has not run yet\.$/);
    const now = new Date().toISOString();
    writeDigestStatus(vault, { startedAt: now, finishedAt: now, ok: true, created: 1, extended: 0, skipped: 0, enriched: 0, failed: 0, left: 2 });
    expect(start(vault, env)).toBe("");
    const live = writeSession(tempDir(), {
      id: "live",
      cwd: "/work/app",
      endedAt: new Date(),
      turns: [
        { prompt: "a", reply: LONG },
        { prompt: "b", reply: LONG },
      ],
    });
    captureSession(vault, { sessionId: "live", transcriptPath: live, cwd: "/work/app", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    expect(start(vault, env)).toMatch(
      /^Vault Memory: 1 conversation waits to become cards \(oldest queued less than an hour ago\), and 2 imported from before the install; /,
    );
  });
});

describe("the digest with imported sessions", () => {
  it("takes the day's own conversations first, then the imported ones, newest first", async () => {
    const { projects, vault } = setup(6);
    runBridge(["import", "--vault", vault, "--from", projects]);
    const live = writeSession(tempDir(), {
      id: "live",
      cwd: "/work/app",
      endedAt: new Date(),
      turns: [
        { prompt: "a", reply: LONG },
        { prompt: "b", reply: LONG },
      ],
    });
    captureSession(vault, { sessionId: "live", transcriptPath: live, cwd: "/work/app", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    const config = defaultConfig();
    config.enrich.perNight = 0;
    config.digest.maxEntries = 3;
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; echo '{"action":"skip","reason":"nothing new"}'`];
    const r = await runDigest({ vault, config });
    expect(r.results.map((x) => x.sessionId)).toEqual(["live", "00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000001"]);
    expect(listPending(vault)).toHaveLength(2);
  });
});
