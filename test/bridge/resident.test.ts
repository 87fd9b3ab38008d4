/**
 * The resident recall server (hook-bridge/src/resident): a hook it answers prints what the hook's
 * own process would have, and a server that is missing, stopped, of other code or not the
 * person's alone costs a prompt nothing but the time of recalling in its own process.
 *
 * Every test has a cache folder of its own, where its servers keep their folders, and stops every
 * server it started. Servers run as separate processes, as Claude Code's hooks start them.
 */

import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_FILE, BRIDGE_FILES } from "../../src/core/install/hook-commands";
import { alive, BRIDGE, copyVault, hookJson, ROOT, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { until } from "../wait";

interface Cache {
  dir: string;
  env: NodeJS.ProcessEnv;
}

const caches: Cache[] = [];

/** A cache folder of the test's own, and the environment that turns the server on with it. */
function cache(idleMinutes = "30"): Cache {
  const root = tempDir("vm-resident-");
  const c = { dir: join(root, "vault-memory"), env: { XDG_CACHE_HOME: root, VAULT_MEMORY_RESIDENT: idleMinutes } };
  caches.push(c);
  return c;
}

/** The servers' folders in a cache folder. */
function folders(c: Cache): string[] {
  return existsSync(c.dir) ? readdirSync(c.dir).filter((n) => n.startsWith("recall-")) : [];
}

/** The pid of the server that serves, once one does. */
async function serving(c: Cache, not?: number): Promise<number> {
  let pid = 0;
  await until(() => {
    for (const f of folders(c)) {
      try {
        pid = Number(readFileSync(join(c.dir, f, "alive"), "utf8"));
      } catch {
        continue;
      }
      if (pid !== not && alive(pid)) return true;
    }
    return false;
  });
  return pid;
}

/** Every process started with this cache folder (a server, or a hook on its way to one). */
function processesOf(c: Cache): number[] {
  const found: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${p}/environ`, "utf8").split("\0");
      if (env.includes(`XDG_CACHE_HOME=${c.env.XDG_CACHE_HOME}`) && alive(Number(p))) found.push(Number(p));
    } catch {
      /* gone */
    }
  }
  return found;
}

async function stopAll(c: Cache): Promise<void> {
  for (const pid of processesOf(c)) {
    try {
      process.kill(pid, "SIGCONT");
      process.kill(pid, "SIGTERM");
    } catch {
      /* gone */
    }
  }
  await until(() => processesOf(c).length === 0);
}

afterEach(async () => {
  for (const c of caches.splice(0)) await stopAll(c);
});

function indexed(): string {
  const vault = copyVault(SAMPLE_VAULT, "Resident Vault");
  expect(runBridge(["index", "--vault", vault]).status).toBe(0);
  return vault;
}

function recall(vault: string, input: string, env: NodeJS.ProcessEnv, bridge = BRIDGE, extra: string[] = ["--deadline-ms", "600000"]): string {
  const r = spawnSync(process.execPath, [bridge, "recall", "--vault", vault, ...extra], {
    input,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
  expect(r.status).toBe(0);
  expect(r.stderr).toBe("");
  return r.stdout;
}

/**
 * A vault whose server the first hook (with this deadline) started, then stopped as a suspended or
 * overloaded process is: it holds its folder's mark but answers nothing.
 */
async function stoppedServer(deadlineMs?: number): Promise<{ vault: string; c: Cache; stopped: number }> {
  const vault = indexed();
  const c = cache();
  recall(
    vault,
    hookJson("why does my nightly job fail under launchd?"),
    c.env,
    BRIDGE,
    deadlineMs === undefined ? undefined : ["--deadline-ms", String(deadlineMs)],
  );
  const stopped = await serving(c);
  process.kill(stopped, "SIGSTOP");
  return { vault, c, stopped };
}

/** The recall log's lines: whether the server answered each. */
function logged(vault: string): { session: string; resident?: boolean }[] {
  return readFileSync(join(vault, ".vault-memory", "recall-log.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { session: string; resident?: boolean });
}

const FAILED = (session: string): string =>
  JSON.stringify({
    session_id: session,
    cwd: "",
    hook_event_name: "PostToolUseFailure",
    tool_name: "Bash",
    tool_input: { command: "launchctl kickstart -k gui/501/com.me.nightly" },
    error: "Exit code 127\n/Users/me/bin/nightly.sh: line 4: claude: command not found\nnightly digest failed under launchd",
  });

describe("the resident recall server", () => {
  it("answers each hook as the hook's own process does, and the recall log says which answered", async () => {
    const vault = indexed();
    const c = cache();
    // The first hook recalls by itself and starts the server.
    expect(recall(vault, hookJson("why does my nightly job fail under launchd?"), c.env)).toContain("launchd-cron-path.md");
    await serving(c);
    const payloads: [string, (s: string) => string][] = [
      ["an English prompt", (s) => hookJson("why does my nightly job fail under launchd?", { session_id: s })],
      ["a Chinese prompt", (s) => hookJson("为什么排程跑不起来", { session_id: s })],
      ["chit-chat", (s) => hookJson("ok continue", { session_id: s })],
      ["a prompt no card answers", (s) => hookJson("what is the capital of Mongolia", { session_id: s })],
      ["a failed command", FAILED],
      ["remember this, without a transcript", (s) => hookJson("remember this: the nightly job needs an absolute path", { session_id: s })],
      ["a payload that is not one", () => "not json"],
    ];
    for (const [what, payload] of payloads) {
      const own = recall(vault, payload(`own-${what}`), { VAULT_MEMORY_RESIDENT: "off" });
      const served = recall(vault, payload(`served-${what}`), c.env);
      expect(served, what).toBe(own);
    }
    // The same session twice: the once-a-session rule holds across the two.
    const twice = hookJson("why does my nightly job fail under launchd?", { session_id: "twice" });
    expect(recall(vault, twice, c.env)).toContain("launchd-cron-path.md");
    expect(recall(vault, twice, c.env)).toBe("");
    const log = logged(vault);
    expect(log.filter((l) => l.session.startsWith("served-")).every((l) => l.resident === true)).toBe(true);
    expect(log.filter((l) => l.session.startsWith("served-")).length).toBeGreaterThanOrEqual(4);
    expect(log.filter((l) => l.session.startsWith("own-")).some((l) => l.resident)).toBe(false);
    expect(processesOf(c)).toHaveLength(1);
    // `status` says who answered.
    const served = log.filter((l) => l.resident).length;
    expect(runBridge(["status", "--vault", vault]).stdout).toMatch(
      new RegExp(`^recall: {3}${served} of the last ${log.length} prompts answered by the resident recall server, the rest by the hook's own process$`, "m"),
    );
  });

  it("is started by the session's start, so that the first prompt finds it", async () => {
    const vault = indexed();
    const c = cache();
    const start = runBridge(
      ["remind", "--vault", vault],
      JSON.stringify({ session_id: "first", hook_event_name: "SessionStart", source: "startup", cwd: "" }),
      c.env,
    );
    expect(start.status).toBe(0);
    await serving(c);
    expect(recall(vault, hookJson("why does my nightly job fail under launchd?", { session_id: "first" }), c.env)).toContain("launchd-cron-path.md");
    expect(logged(vault).find((l) => l.session === "first")?.resident).toBe(true);
    // A second session's start finds it there and starts no other.
    runBridge(["remind", "--vault", vault], JSON.stringify({ session_id: "second", hook_event_name: "SessionStart", source: "startup", cwd: "" }), c.env);
    expect(processesOf(c)).toHaveLength(1);
  });

  it("leaves when the bridge's files change, and the hook then recalls in its own process and starts one of the new code", async () => {
    const vault = indexed();
    const c = cache();
    const dir = tempDir("vm-resident-bridge-");
    for (const name of BRIDGE_FILES) copyFileSync(join(ROOT, "hook-bridge", "dist", name), join(dir, name));
    const bridge = join(dir, BRIDGE_FILE);
    recall(vault, hookJson("why does my nightly job fail under launchd?"), c.env, bridge);
    const first = await serving(c);
    expect(recall(vault, hookJson("why does my nightly job fail under launchd?", { session_id: "old" }), c.env, bridge)).toContain("launchd-cron-path.md");
    // An upgrade writes the bridge's files anew.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, "vault-memory-scoring.cjs"), later, later);
    expect(recall(vault, hookJson("why does my nightly job fail under launchd?", { session_id: "new" }), c.env, bridge)).toContain("launchd-cron-path.md");
    // The request it handed back is gone with it: no server runs it again later.
    for (const f of folders(c)) expect(readdirSync(join(c.dir, f)).filter((n) => /^[qw]-/.test(n))).toEqual([]);
    await until(() => !alive(first));
    const second = await serving(c, first);
    expect(second).not.toBe(first);
    const log = logged(vault);
    expect(log.find((l) => l.session === "old")?.resident).toBe(true);
    expect(log.find((l) => l.session === "new")?.resident).toBeUndefined();
  });

  it("costs a stopped server's hook only its answer, and the next hook starts another", async () => {
    const { vault, c, stopped } = await stoppedServer();
    // Past its deadline the hook prints nothing, as a slow recall does.
    expect(recall(vault, hookJson("why does my nightly job fail under launchd?"), c.env, BRIDGE, ["--deadline-ms", "200"])).toBe("");
    const next = await serving(c, stopped);
    expect(recall(vault, hookJson("why does my nightly job fail under launchd?", { session_id: "after" }), c.env)).toContain("launchd-cron-path.md");
    expect(logged(vault).find((l) => l.session === "after")?.resident).toBe(true);
    // Woken, the stopped one sees its folder taken over, and leaves.
    process.kill(stopped, "SIGCONT");
    await until(() => !alive(stopped));
    expect(alive(next)).toBe(true);
  });

  it('keeps a "remember this" that a stopped server would have kept, and says so', async () => {
    const { vault, c, stopped } = await stoppedServer(200);
    const out = recall(vault, hookJson("remember this: the nightly job needs an absolute path", { session_id: "keep-me" }), c.env, BRIDGE, [
      "--deadline-ms",
      "200",
    ]);
    expect(out).toContain("Vault Memory queued this conversation");
    expect(readdirSync(join(vault, ".vault-memory", "queue", "pending")).some((n) => n.includes("keep-me"))).toBe(true);
    expect(readFileSync(join(vault, ".vault-memory", "vault-memory.log"), "utf8")).toMatch(
      /resident recall server: the resident recall server did not answer in time/,
    );
    process.kill(stopped, "SIGCONT");
  });

  it("counts the time a request waited toward its hook's deadline", async () => {
    const { vault, c, stopped } = await stoppedServer(300);
    const started = Date.now();
    let done = false;
    const hook = new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [BRIDGE, "recall", "--vault", vault, "--deadline-ms", "300"], { env: { ...process.env, ...c.env } });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
      child.on("close", () => {
        done = true;
        resolve(out);
      });
      child.stdin.end(hookJson("why does my nightly job fail under launchd?", { session_id: "waited" }));
    });
    // The request is in, and its hook's deadline has passed, before the server wakes to it.
    const requested = (): boolean => folders(c).some((f) => readdirSync(join(c.dir, f)).some((n) => n.startsWith("q-")));
    await until(() => requested() || done);
    expect(done).toBe(false);
    await until(() => Date.now() - started > 300);
    process.kill(stopped, "SIGCONT");
    expect(await hook).toBe("");
    // Neither the server nor the hook recorded cards it did not give.
    expect(logged(vault).filter((l) => l.session === "waited")).toEqual([]);
  });

  it("takes over a folder whose mark names no server", async () => {
    const vault = indexed();
    const c = cache();
    recall(vault, hookJson("why does my nightly job fail under launchd?"), c.env);
    const first = await serving(c);
    const folder = join(c.dir, folders(c)[0]);
    process.kill(first, "SIGTERM");
    await until(() => !alive(first));
    for (const text of ["", "0", "-1"]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "alive"), text);
      recall(vault, hookJson("why does my nightly job fail under launchd?"), c.env);
      const pid = await serving(c);
      process.kill(pid, "SIGTERM");
      await until(() => !alive(pid));
    }
  });

  it("is started once by hooks that find none at the same time", async () => {
    const vault = indexed();
    const c = cache();
    const hooks = Array.from(
      { length: 4 },
      (_, i) =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, [BRIDGE, "recall", "--vault", vault, "--deadline-ms", "600000"], { env: { ...process.env, ...c.env } });
          let out = "";
          child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
          child.on("close", () => resolve(out));
          child.stdin.end(hookJson("why does my nightly job fail under launchd?", { session_id: `at-once-${i}` }));
        }),
    );
    for (const out of await Promise.all(hooks)) expect(out).toContain("launchd-cron-path.md");
    const pid = await serving(c);
    await until(() => processesOf(c).length === 1);
    expect(processesOf(c)).toEqual([pid]);
  });

  it("leaves once no prompt comes, and takes its folder with it", async () => {
    const vault = indexed();
    // A few seconds.
    const c = cache("0.05");
    recall(vault, hookJson("why does my nightly job fail under launchd?"), c.env);
    await until(() => processesOf(c).length === 0);
    expect(folders(c)).toEqual([]);
  });

  it("is not started where it is turned off, or where the cache folder is not the person's alone", async () => {
    const vault = indexed();
    const off = cache("off");
    const open = cache();
    // A cache folder's parent that anyone may write: another account could put its own server there.
    mkdirSync(open.env.XDG_CACHE_HOME!, { recursive: true });
    chmodSync(open.env.XDG_CACHE_HOME!, 0o777);
    for (const c of [off, open]) {
      for (let i = 0; i < 2; i++)
        expect(recall(vault, hookJson("why does my nightly job fail under launchd?", { session_id: `${c.env.VAULT_MEMORY_RESIDENT}-${i}` }), c.env)).toContain(
          "launchd-cron-path.md",
        );
      expect(folders(c)).toEqual([]);
      expect(processesOf(c)).toEqual([]);
    }
    expect(logged(vault).some((l) => l.resident)).toBe(false);
  });

  it("refuses a folder outside the person's cache folder when run by hand", () => {
    const c = cache();
    const r = spawnSync(process.execPath, [BRIDGE, "recall-server", tempDir("vm-resident-elsewhere-"), "recall"], {
      encoding: "utf8",
      env: { ...process.env, ...c.env },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^vault-memory recall-server: the prompt hook starts this/);
  });
});
