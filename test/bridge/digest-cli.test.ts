import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listPending } from "../../src/core/queue/queue-store";
import { vaultFiles } from "../../src/core/paths";
import { jsonl, line } from "../fixtures/transcript";
import { BRIDGE, alive, copyVault, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { until } from "../wait";

const LONG = "A reply long enough to count as real work in this conversation, with details.";

/** A copy of the sample vault with `n` conversations waiting. */
function vaultWithQueue(n: number): string {
  const vault = copyVault(SAMPLE_VAULT);
  const dir = tempDir();
  for (let i = 0; i < n; i++) {
    const path = join(dir, `s${i}.jsonl`);
    writeFileSync(path, jsonl([line.prompt(`question one of session ${i}`), line.reply(LONG), line.prompt(`question two of session ${i}`), line.reply(LONG)]));
    captureSession(vault, { sessionId: `s${i}`, transcriptPath: path, cwd: "/work/project", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  }
  expect(listPending(vault)).toHaveLength(n);
  return vault;
}

// A PATH with a shell and nothing else, so no claude is found on it or on the login shell's.
const NO_CLAUDE = { PATH: "/usr/bin:/bin", SHELL: "/bin/sh", HOME: tempDir() };

describe("digest from a terminal, when it cannot start", () => {
  it("exits 1 and says so when the binary set in the settings does not exist", () => {
    const vault = vaultWithQueue(4);
    const mine = join(tempDir(), "config.json");
    writeFileSync(mine, JSON.stringify({ digest: { binary: "/nonexistent/bin/claude" } }), { mode: 0o600 });
    const r = runBridge(["digest", "--vault", vault, "--config", mine], "", NO_CLAUDE);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the LLM binary "/nonexistent/bin/claude" set in the digest settings does not exist or is not executable');
    expect(r.stderr).toContain("4 conversations wait in the queue");
    expect(listPending(vault)).toHaveLength(4);
  });

  it("does not report an empty queue on a dry run without claude", () => {
    const vault = vaultWithQueue(4);
    const r = runBridge(["digest", "--vault", vault, "--dry-run"], "", NO_CLAUDE);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toMatch(/0 left in the queue|would have created 0/);
    expect(r.stderr).toMatch(/digest stopped: cannot find "claude".*; 4 conversations wait in the queue/);
  });
});

describe("digest settings found only in the vault", () => {
  // A vault shared through git or a sync folder: whoever writes its config.json must not choose
  // what runs on every member's machine.
  it("runs neither the vault's LLM binary, its command nor its report command, and says why", () => {
    const vault = vaultWithQueue(2);
    const marker = join(tempDir(), "ran");
    const evil = join(tempDir(), "evil.sh");
    writeFileSync(evil, `#!/bin/sh\ntouch "${marker}"\n`, { mode: 0o755 });
    mkdirSync(vaultFiles.dir(vault), { recursive: true });
    writeFileSync(vaultFiles.config(vault), JSON.stringify({ digest: { binary: evil, command: [evil, "-p"], reportCommand: `touch "${marker}"` } }));
    const home = tempDir();
    const r = runBridge(["digest", "--vault", vault], "", { ...NO_CLAUDE, HOME: home, XDG_CONFIG_HOME: join(home, ".config") });
    expect(existsSync(marker)).toBe(false);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /sets digest\.command, digest\.binary, digest\.reportCommand, which are not used: settings that run a program .* read only from this computer .*trust --vault/,
    );
    expect(listPending(vault)).toHaveLength(2);
  });

  it("runs them once the person has trusted them on this computer, after being shown them", () => {
    const vault = vaultWithQueue(1);
    const marker = join(tempDir(), "ran");
    const llm = join(tempDir(), "llm.sh");
    writeFileSync(llm, `#!/bin/sh\ntouch "${marker}"\necho '{"type":"result","result":"{\\"action\\":\\"skip\\",\\"reason\\":\\"nothing\\"}"}'\n`, {
      mode: 0o755,
    });
    mkdirSync(vaultFiles.dir(vault), { recursive: true });
    writeFileSync(vaultFiles.config(vault), JSON.stringify({ digest: { binary: llm } }));
    const home = tempDir();
    const env = { ...NO_CLAUDE, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const shown = runBridge(["trust", "--vault", vault], "", env);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain(`digest.binary = ${JSON.stringify(llm)}`);
    expect(shown.stdout).toContain("Nothing was written");
    expect(existsSync(join(home, ".config", "vault-memory", "config.json"))).toBe(false);
    expect(runBridge(["trust", "--vault", vault, "--yes"], "", env).stdout).toMatch(/Copied to .*config\.json/);
    const r = runBridge(["digest", "--vault", vault], "", env);
    expect(existsSync(marker), r.stderr).toBe(true);
    expect(r.stderr).not.toMatch(/not used/);
  });

  it("refuses to trust a program inside the vault, which the vault's writers could change, and never runs one", () => {
    const vault = vaultWithQueue(1);
    const marker = join(tempDir(), "ran");
    const inVault = join(vault, "scripts", "llm.sh");
    mkdirSync(join(vault, "scripts"));
    writeFileSync(inVault, `#!/bin/sh\ntouch "${marker}"\n`, { mode: 0o755 });
    mkdirSync(vaultFiles.dir(vault), { recursive: true });
    writeFileSync(vaultFiles.config(vault), JSON.stringify({ digest: { binary: inVault, reportCommand: `sh ${join(vault, "scripts", "llm.sh")}` } }));
    const home = tempDir();
    const env = { ...NO_CLAUDE, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const r = runBridge(["trust", "--vault", vault, "--yes"], "", env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^trust: refused, nothing was written/);
    expect(r.stderr).toContain(`digest.binary: ${inVault} is inside the vault`);
    expect(r.stderr).toContain(`digest.reportCommand: ${inVault} is inside the vault`);
    expect(existsSync(join(home, ".config", "vault-memory", "config.json"))).toBe(false);
    // Set by hand in this computer's own file, it is still not run.
    const mine = join(home, "mine.json");
    writeFileSync(mine, JSON.stringify({ digest: { binary: inVault } }), { mode: 0o600 });
    const night = runBridge(["digest", "--vault", vault, "--config", mine], "", env);
    expect(night.status).toBe(1);
    expect(night.stderr).toMatch(/the LLM command is not run: .*llm\.sh is inside the vault/);
    expect(existsSync(marker)).toBe(false);
  });

  it("does not take this computer's settings from a file inside the vault, however it is reached", () => {
    const vault = vaultWithQueue(1);
    const marker = join(tempDir(), "ran");
    const llm = join(tempDir(), "llm.sh");
    writeFileSync(llm, `#!/bin/sh\ntouch "${marker}"\n`, { mode: 0o755 });
    // XDG_CONFIG_HOME inside the vault: its vault-memory/config.json is the vault's writers' file.
    mkdirSync(join(vault, ".config", "vault-memory"), { recursive: true });
    writeFileSync(join(vault, ".config", "vault-memory", "config.json"), JSON.stringify({ digest: { binary: llm } }), { mode: 0o600 });
    const home = tempDir();
    const r = runBridge(["digest", "--vault", vault], "", { ...NO_CLAUDE, HOME: home, XDG_CONFIG_HOME: join(vault, ".config") });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is inside the vault .*, which others may write; its settings that run a program or send text elsewhere are not used/);
    expect(existsSync(marker)).toBe(false);
    // A link to it from the person's own folder is the same file.
    mkdirSync(join(home, ".config", "vault-memory"), { recursive: true });
    symlinkSync(join(vault, ".config", "vault-memory", "config.json"), join(home, ".config", "vault-memory", "config.json"));
    const linked = runBridge(["trust", "--vault", vault, "--yes"], "", { ...NO_CLAUDE, HOME: home, XDG_CONFIG_HOME: join(home, ".config") });
    expect(runBridge(["digest", "--vault", vault], "", { ...NO_CLAUDE, HOME: home, XDG_CONFIG_HOME: join(home, ".config") }).stderr).toMatch(
      /is inside the vault/,
    );
    expect(linked.status).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it("are named once at a session start on this computer, with what to do", () => {
    const vault = vaultWithQueue(1);
    writeFileSync(vaultFiles.config(vault), JSON.stringify({ digest: { reportCommand: "mail -s x someone@example.com" } }));
    const home = tempDir();
    const env = { ...NO_CLAUDE, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache") };
    const first = runBridge(["remind", "--vault", vault], "", env);
    expect(first.status).toBe(0);
    const said = (JSON.parse(first.stdout) as { systemMessage: string }).systemMessage;
    expect(said).toMatch(/1 conversation waits/);
    expect(said).toMatch(/sets digest\.reportCommand, which is not used: .* "trust --vault" command/);
    const again = (JSON.parse(runBridge(["remind", "--vault", vault], "", env).stdout) as { systemMessage: string }).systemMessage;
    expect(again).not.toMatch(/not used/);
  });
});

describe("digest when the LLM cannot be reached", () => {
  // What `claude -p --output-format json` printed, exit 1, after three minutes of its own
  // retries with the API unreachable (recorded from the real CLI, ids and usage left out).
  const UNREACHABLE = JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: true,
    api_error_status: null,
    api_error: "connection_failed",
    terminal_reason: "api_error",
    result: "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
    duration_ms: 182358,
    num_turns: 1,
  });

  /** A stand-in LLM command that logs each call and prints `out`, exiting `code`. */
  function standIn(out: string, code: number): { config: string; calls: () => number } {
    const dir = tempDir();
    const log = join(dir, "calls");
    const script = join(dir, "llm.sh");
    writeFileSync(join(dir, "out"), out);
    writeFileSync(script, `#!/bin/sh\ncat > /dev/null\necho x >> "${log}"\ncat "${join(dir, "out")}"\nexit ${code}\n`, { mode: 0o755 });
    const config = join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ digest: { binary: script, command: [script] } }), { mode: 0o600 });
    return { config, calls: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0) };
  }

  it("stops at the first failed connection, exits 1, and says why in one readable line everywhere", () => {
    const vault = vaultWithQueue(4);
    const llm = standIn(UNREACHABLE, 1);
    const r = runBridge(["digest", "--vault", vault, "--config", llm.config], "", NO_CLAUDE);
    expect(r.status).toBe(1);
    // The other three would have failed the same way, three minutes each.
    expect(llm.calls()).toBe(1);
    const why = "cannot reach the API: API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)";
    expect(r.stderr).toContain(`digest stopped: ${why}`);
    expect(readFileSync(join(vault, "meta", "digest", `${new Date().toISOString().slice(0, 10)}.md`), "utf8")).toContain(why);
    expect(r.stderr).not.toContain('"duration_ms"');
    const status = JSON.parse(readFileSync(vaultFiles.digestStatus(vault), "utf8")) as { ok: boolean; error: string };
    expect(status.ok).toBe(false);
    expect(status.error).toContain(why);
    expect(listPending(vault)).toHaveLength(4);
    const remind = runBridge(["remind", "--vault", vault], JSON.stringify({ session_id: "r", hook_event_name: "SessionStart", cwd: "" }));
    expect(remind.stdout).toContain("the nightly digest failed");
    expect(remind.stdout).toContain("cannot reach the API");
  });

  it("exits 1 when an answer could not be filed, though the night went on", () => {
    const vault = vaultWithQueue(2);
    const llm = standIn("I would make a card about this, but here is no JSON.", 0);
    const r = runBridge(["digest", "--vault", vault, "--config", llm.config], "", NO_CLAUDE);
    expect(r.status).toBe(1);
    // Both conversations were asked about: a refused answer ends only its own entry.
    expect(r.stdout).toContain("failed 2; 2 left in the queue");
  });

  it("a dry run says what it would do, never that it did", () => {
    const vault = vaultWithQueue(1);
    const llm = standIn(JSON.stringify({ action: "skip", reason: "small talk" }), 0);
    const r = runBridge(["digest", "--vault", vault, "--config", llm.config, "--dry-run"], "", NO_CLAUDE);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("would skip");
    expect(r.stdout).toMatch(/dry run, nothing written: would create 0, extend 0, skip 1/);
    expect(r.stdout).not.toMatch(/\b(created|extended|skipped) /);
  });
});

describe.skipIf(process.platform === "win32")("digest stopped by its scheduler", () => {
  it("stops the model call it waits on, keeps the queue and says so, when it is sent SIGTERM", async () => {
    const vault = vaultWithQueue(2);
    const pidFile = join(tempDir(), "llm.pid");
    const llm = join(tempDir(), "llm.sh");
    // A model that never answers: the call would hold the night until its deadline, an hour away.
    writeFileSync(llm, `#!/bin/sh\necho $$ > "${pidFile}"\nexec sleep 3600\n`, { mode: 0o755 });
    const home = tempDir();
    const mine = join(home, "mine.json");
    writeFileSync(mine, JSON.stringify({ digest: { binary: llm, timeoutSec: 3600 } }), { mode: 0o600 });
    const child = spawn(process.execPath, [BRIDGE, "digest", "--vault", vault, "--config", mine], {
      env: { ...process.env, ...NO_CLAUDE, HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const ended = new Promise<number | null>((resolve) => child.on("close", resolve));
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const llmPid = Number(readFileSync(pidFile, "utf8"));
    child.kill("SIGTERM");
    expect(await ended).toBe(1);
    expect(stderr).toMatch(/digest stopped: no answer before the run was stopped/);
    await until(() => !alive(llmPid));
    expect(listPending(vault)).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(vaultFiles.dir(vault), "digest-status.json"), "utf8"))).toMatchObject({ ok: false });
  });
});
