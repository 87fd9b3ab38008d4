/**
 * `vault-memory sync` as separate processes: two computers syncing at the same moment, round
 * after round, lose nothing and end equal; a sync killed with SIGKILL half-way is finished by the
 * next one.
 */

import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE, runBridge, tempDir } from "../helpers";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../git-remote";

const card = (name: string, body: string): string => `---\nname: ${name}\ndescription: ${name}\ntype: reference\ntags: [t]\n---\n${body}\n`;

function syncProcess(c: Computer, env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BRIDGE, "sync", "--vault", c.vault], { env: { ...c.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

function cards(c: Computer): string[] {
  return readdirSync(join(c.vault, "reference")).sort();
}

function noMarkers(c: Computer): void {
  for (const f of readdirSync(c.vault, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md") && !f.startsWith(".git"))) {
    expect(readFileSync(join(c.vault, f), "utf8"), f).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)( |$)/m);
  }
}

describe.skipIf(!gitAvailable || process.platform === "win32")("vault-memory sync, as processes", () => {
  let remote: Remote;
  let a: Computer;
  let b: Computer;
  beforeAll(async () => {
    remote = await startRemote();
    a = computer(remote.url, "desk", { seed: { "reference/seed.md": card("seed", "The first card.") } });
    b = computer(remote.url, "laptop");
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it("two computers syncing at the same moment, five rounds: every card on both, nothing twice, no markers", async () => {
    for (let round = 0; round < 5; round++) {
      writeFileSync(join(a.vault, "reference", `desk-${round}.md`), card(`desk ${round}`, `Written on the desk, round ${round}.`));
      writeFileSync(join(b.vault, "reference", `laptop-${round}.md`), card(`laptop ${round}`, `Written on the laptop, round ${round}.`));
      const [ra, rb] = await Promise.all([syncProcess(a), syncProcess(b)]);
      expect(ra.status, ra.stderr).toBe(0);
      expect(rb.status, rb.stderr).toBe(0);
    }
    // One more each, so both have what the other pushed last.
    for (const c of [a, b, a]) expect(runBridge(["sync", "--vault", c.vault], "", c.env).status).toBe(0);
    const expected = ["seed.md", ...[0, 1, 2, 3, 4].flatMap((r) => [`desk-${r}.md`, `laptop-${r}.md`])].sort();
    expect(cards(a)).toEqual(expected);
    expect(cards(b)).toEqual(expected);
    expect(a.git("rev-parse", "HEAD")).toBe(b.git("rev-parse", "HEAD"));
    expect(a.git("status", "--porcelain")).toBe("");
    noMarkers(a);
    noMarkers(b);
  });

  it.each([
    ["with the merge placed in the files but the branch not yet moved", "update-ref"],
    ["while git holds its index lock", "add"],
  ])("is finished by the next sync when killed %s", async (_, step) => {
    // A git on the PATH that runs the real one and kills the sync that called it, after it or before.
    const bin = tempDir("vm-bin-");
    const real = process.env
      .PATH!.split(":")
      .map((d) => join(d, "git"))
      .find((p) => existsSync(p))!;
    const lock = join(b.vault, ".git", "index.lock");
    writeFileSync(
      join(bin, "git"),
      step === "add"
        ? `#!/bin/sh\n"${real}" "$@"\nstatus=$?\ncase " $* " in *" add "*) touch "${lock}"; kill -9 $PPID;; esac\nexit $status\n`
        : // Killed before the branch moves: the files are placed, the commit is not the branch's yet.
          `#!/bin/sh\ncase " $* " in *" ${step} "*) kill -9 $PPID; exit 1;; esac\nexec "${real}" "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    writeFileSync(join(a.vault, "reference", `both-${step}.md`), card(`both ${step}`, "From the desk."));
    expect(runBridge(["sync", "--vault", a.vault], "", a.env).status).toBe(0);
    mkdirSync(join(b.vault, "reference"), { recursive: true });
    writeFileSync(join(b.vault, "reference", `laptop-${step}.md`), card(`laptop ${step}`, "From the laptop."));
    const killed = await syncProcess(b, { PATH: `${bin}:${b.env.PATH}` });
    expect(killed.status).toBe(null);
    if (step === "add") expect(existsSync(lock)).toBe(true);
    else {
      // The desk's card is in the files already; the branch has not moved to the merge.
      expect(existsSync(join(b.vault, "reference", `both-${step}.md`))).toBe(true);
      expect(b.git("log", "-1", "--format=%s", "HEAD")).toMatch(/^vault-memory sync from /);
    }
    const next = runBridge(["sync", "--vault", b.vault], "", b.env);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toContain("finished a sync that was stopped half-way");
    expect(existsSync(join(b.vault, "reference", `both-${step}.md`))).toBe(true);
    expect(runBridge(["sync", "--vault", a.vault], "", a.env).status).toBe(0);
    expect(existsSync(join(a.vault, "reference", `laptop-${step}.md`))).toBe(true);
    noMarkers(b);
  });

  it("with --json, prints one JSON object a line: progress as it goes, then the report (Obsidian's protocol)", () => {
    writeFileSync(join(a.vault, "reference", "as-json.md"), card("as json", "Told line by line."));
    // Obsidian hands over its settings on stdin.
    const r = runBridge(["sync", "--vault", a.vault, "--json", "--config", "-"], "{}", a.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.slice(0, -1).every((l) => typeof l.progress === "string")).toBe(true);
    expect(lines.map((l) => l.progress)).toContain("fetching origin/main");
    expect(lines[lines.length - 1]).toMatchObject({ protocol: 1, report: { ok: true, committed: 1, pushed: true, upstream: "origin/main", conflicts: [] } });
    // A sync that stops is a report too, with its reason, and exit 1.
    const notRepo = runBridge(["sync", "--vault", tempDir(), "--json"], "", a.env);
    expect(notRepo.status).toBe(1);
    expect(JSON.parse(notRepo.stdout)).toMatchObject({
      protocol: 1,
      report: { ok: false, error: expect.stringMatching(/^the vault is not a git repository/) },
    });
  });
});
