import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDigest } from "../../src/core/digest/run";
import { defaultConfig } from "../../src/core/config";
import { vaultFiles } from "../../src/core/paths";
import { listPending, pendingPath, readEntry } from "../../src/core/queue/queue-store";
import { BRIDGE, copyVault, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { jsonl, line } from "../fixtures/transcript";
import { ALL_SECRET_CASES as SECRET_CASES } from "../fixtures/secret-sets";

const LONG = "A reply long enough to count as real work in this conversation, with details.";

function stopJson(session: string, transcriptPath: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: transcriptPath,
    cwd: "/work/project",
    hook_event_name: "Stop",
    stop_hook_active: false,
    ...extra,
  });
}

/** Every file under `dir`, hidden folders included, as text. */
function allFiles(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...allFiles(p));
    else if (e.isFile()) out.push({ path: p, text: readFileSync(p, "utf8") });
  }
  return out;
}

function logOf(vault: string): string {
  return existsSync(vaultFiles.log(vault)) ? readFileSync(vaultFiles.log(vault), "utf8") : "";
}

describe("queue keeps every secret shape off the disk", () => {
  it(`redacts ${SECRET_CASES.length} secret shapes from prompts and replies before anything is written`, async () => {
    const vault = copyVault(SAMPLE_VAULT);
    const dir = tempDir();
    // A nested private passage, whose tail a non-nesting strip would keep; first, so that the
    // part of the conversation the LLM is sent holds it.
    const lines: unknown[] = [line.prompt("keep this <private>outer <private>inner</private> NESTEDTAILSECRET</private> and this"), line.reply(LONG)];
    for (const c of SECRET_CASES) {
      lines.push(line.prompt(`please look at this, ${c.template.replace("%s", c.secret)}`));
      lines.push(line.reply(`${LONG} I saw ${c.template.replace("%s", c.secret)} in your message.`));
    }
    // A secret across the 20,000-character cut of a turn: the cut must not halve it into a shape
    // no rule knows, so redaction runs first.
    const anthropic = SECRET_CASES.find((c) => c.name === "Anthropic API key")!.secret;
    lines.push(line.prompt("x".repeat(20_000 - 20) + " " + anthropic + " and more"));
    const transcript = join(dir, "secrets.jsonl");
    writeFileSync(transcript, jsonl(lines));
    expect(runBridge(["queue", "--vault", vault], stopJson("secrets", transcript))).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(listPending(vault).map((e) => e.sessionId)).toEqual(["secrets"]);

    // The digest sends the inbox to the LLM: run it with a stand-in that records what it was sent.
    const sent = join(dir, "sent.txt");
    const llm = join(dir, "llm.sh");
    writeFileSync(llm, `#!/bin/sh\ncat >> "${sent}"\necho '{"action":"skip","reason":"test"}'\n`, { mode: 0o755 });
    const config = defaultConfig();
    config.digest.binary = llm;
    await runDigest({ vault, config });
    expect(readFileSync(sent, "utf8")).toContain("keep this");

    const files = [...allFiles(vault), { path: sent, text: readFileSync(sent, "utf8") }];
    const leaks: string[] = [];
    for (const c of SECRET_CASES) {
      // A piece another case keeps as its name ("access_token" of Braintree's value) is no leak.
      const pieces = [
        c.value,
        ...Array.from({ length: Math.max(0, Math.floor((c.value.length - 12) / 4) + 1) }, (_, i) => c.value.slice(i * 4, i * 4 + 12)),
      ].filter((piece) => !SECRET_CASES.some((k) => (k.template + k.secret).includes(piece) && !k.value.includes(piece)));
      for (const f of files) if (pieces.some((piece) => f.text.includes(piece))) leaks.push(`${c.name} in ${f.path}`);
    }
    for (const f of files) if (f.text.includes("NESTEDTAILSECRET") || f.text.includes(anthropic.slice(0, 14))) leaks.push(`cut or nested secret in ${f.path}`);
    expect(leaks).toEqual([]);
    const inbox = readFileSync(join(vault, ".vault-memory", "inbox", "secrets.md"), "utf8");
    expect(inbox).toContain("keep this");
    expect(inbox).toContain("and this");
  });
});

describe("queue on hostile payloads", () => {
  it("refuses a device and a FIFO as the transcript, quickly and with a reason", () => {
    const vault = tempDir();
    const fifo = join(tempDir(), "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    for (const [path, reason] of [
      ["/dev/zero", "not a .jsonl file"],
      [fifo, "not a regular file"],
    ] as const) {
      const r = runBridge(["queue", "--vault", vault], stopJson("dev", path));
      expect(r).toEqual({ status: 0, stdout: "", stderr: "" });
      expect(logOf(vault)).toContain(reason);
    }
  });

  it("keeps memory bounded on a transcript that is one endless line", () => {
    const vault = tempDir();
    const path = join(tempDir(), "one-line.jsonl");
    // 20 MB without a newline: the line buffer must not hold it.
    writeFileSync(path, "x".repeat(20 << 20));
    const r = spawnSyncWithPeak(["queue", "--vault", vault], stopJson("oneline", path));
    expect(r.status).toBe(0);
    expect(logOf(vault)).toMatch(/not queued: 0 prompt\(s\), fewer than 2 \(1 line\(s\) over 8 MiB skipped\)/);
    // Node itself takes about 45 MB; holding the line would add its 20 MB at least twice.
    expect(r.peakKb).toBeLessThan(100_000);
  });

  it.each([
    ["{}", "no session id"],
    ['{"session_id": 42, "transcript_path": ["x"]}', "no session id"],
    [stopJson("../../x", "/tmp/t.jsonl"), "session id is not a plain id"],
    [stopJson("a/b", "/tmp/t.jsonl"), "session id is not a plain id"],
    [stopJson("nopath", ""), "no transcript path"],
    [stopJson("passwd", "/etc/passwd"), "transcript is not a .jsonl file"],
    [stopJson("missing", "/nonexistent/dir/t.jsonl"), "no transcript (ENOENT)"],
    ["not json", "stdin is not a hook payload"],
  ])("logs why it did not queue %s", (input, reason) => {
    const vault = tempDir();
    expect(runBridge(["queue", "--vault", vault], input)).toEqual({ status: 0, stdout: "", stderr: "" });
    const log = logOf(vault).trim().split("\n");
    expect(log).toHaveLength(1);
    expect(log[0]).toContain(reason);
  });

  it("logs why a short session was not queued", () => {
    const vault = tempDir();
    const path = join(tempDir(), "short.jsonl");
    writeFileSync(path, jsonl([line.prompt("just one question"), line.reply(LONG)]));
    runBridge(["queue", "--vault", vault], stopJson("short", path));
    expect(logOf(vault)).toContain("queue not queued: 1 prompt(s), fewer than 2");
  });
});

describe("queue and remember on one session at once", () => {
  it("never loses the wanted mark", async () => {
    const trials = 15;
    let lost = 0;
    for (let trial = 0; trial < trials; trial++) {
      const vault = tempDir();
      const path = join(tempDir(), `s${trial}.jsonl`);
      const lines: unknown[] = [];
      for (let i = 0; i < 3; i++) lines.push(line.prompt(`question ${i} about the build`), line.reply(LONG));
      writeFileSync(path, jsonl(lines));
      const session = `race-${trial}`;
      // Stop hooks of one session, and the remember command, all at the same moment.
      await Promise.all([
        runAsync(["queue", "--vault", vault], stopJson(session, path)),
        runAsync(["remember", "--vault", vault], stopJson(session, path)),
        runAsync(["queue", "--vault", vault], stopJson(session, path)),
      ]);
      if (readEntry(pendingPath(vault, session))?.wanted !== true) lost++;
      expect(readdirSync(join(vault, ".vault-memory", "queue", "pending")).filter((f) => f.endsWith(".lock"))).toEqual([]);
    }
    expect(lost).toBe(0);
  }, 120_000);

  it("takes over a lock left by a process that died", () => {
    const vault = tempDir();
    const path = join(tempDir(), "stale.jsonl");
    writeFileSync(path, jsonl([line.prompt("q one about x"), line.reply(LONG), line.prompt("q two about y"), line.reply(LONG)]));
    const lock = `${pendingPath(vault, "stale")}.lock`;
    runBridge(["queue", "--vault", vault], stopJson("other", path)); // makes the folder
    writeFileSync(lock, "");
    const old = new Date(Date.now() - 60_000);
    execFileSync("touch", ["-d", old.toISOString(), lock]);
    expect(statSync(lock).mtimeMs).toBeLessThan(Date.now() - 30_000);
    runBridge(["queue", "--vault", vault], stopJson("stale", path));
    expect(readEntry(pendingPath(vault, "stale"))?.prompts).toBe(2);
  });
});

function runAsync(args: string[], input: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BRIDGE, ...args], { stdio: ["pipe", "ignore", "ignore"] });
    child.on("close", (code) => resolve(code));
    child.stdin.end(input);
  });
}

/** Runs the bridge under GNU time for its peak resident memory. */
function spawnSyncWithPeak(args: string[], input: string): { status: number; peakKb: number } {
  const out = join(tempDir(), "time.txt");
  const status = (() => {
    try {
      execFileSync("/usr/bin/env", ["bash", "-c", `command time -f %M -o "${out}" "${process.execPath}" "${BRIDGE}" ${args.map((a) => `"${a}"`).join(" ")}`], {
        input,
        timeout: 60_000,
      });
      return 0;
    } catch (err) {
      return (err as { status?: number }).status ?? 1;
    }
  })();
  const text = existsSync(out) ? (readFileSync(out, "utf8").trim().split("\n").pop() ?? "") : "";
  return { status, peakKb: Number(text) || 0 };
}
