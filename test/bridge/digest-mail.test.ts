/**
 * The built bridge mails the night's report: from a terminal or a scheduler (`digest`), and as
 * Obsidian runs it (`digest --json --config -` in a child process, settings on stdin), through its
 * own mail bundle, to a real SMTP server on this computer.
 */

import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/core/config";
import { runDigestChild } from "../../src/core/digest/child";
import { readDigestStatus } from "../../src/core/digest/status";
import { BRIDGE_FILE, BRIDGE_FILES, MAIL_FILE } from "../../src/core/install/hook-commands";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listPending } from "../../src/core/queue/queue-store";
import { jsonl, line } from "../fixtures/transcript";
import { selfSigned, startSmtp, type Certificate, type TestSmtp } from "../fixtures/smtp";
import { BRIDGE, ROOT, tempDir, type RunResult } from "../helpers";

const PASSWORD = "pw-Bridge-77-kettle-lantern";
const USER = "bridge@example.com";
const ANSWER = {
  action: "create",
  folder: "debugging",
  fileName: "bridge-mail",
  frontmatter: { name: "Bridge mail", description: "The card of the mailed night", type: "debugging", tags: ["test"] },
  body: "Body.",
  related: [],
};
const LLM = ["/bin/sh", "-c", `cat >/dev/null; echo '${JSON.stringify(ANSWER)}'`];

let certificate: Certificate;
let server: TestSmtp;
beforeAll(() => {
  certificate = selfSigned();
});
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function smtp(): Promise<TestSmtp> {
  server = await startSmtp({ certificate, login: { user: USER, password: PASSWORD } });
  closing.push(() => server.close());
  return server;
}

const mail = (port: number) => ({
  host: "127.0.0.1",
  port,
  security: "starttls",
  user: USER,
  from: "vault-memory@example.com",
  to: ["me@example.com"],
  caFile: certificate.certFile,
});

function queuedVault(): string {
  const vault = join(tempDir(), "vault");
  mkdirSync(vault);
  const t = join(tempDir(), "t.jsonl");
  const reply = "A reply long enough to count as real work in this conversation, with details.";
  writeFileSync(t, jsonl([line.prompt("how is the report mailed"), line.reply(reply), line.prompt("and from Obsidian"), line.reply(reply)]));
  captureSession(vault, { sessionId: "bridge-mail", transcriptPath: t, cwd: "/work/x", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  return vault;
}

/** $XDG_CONFIG_HOME with this computer's settings file in it, the person's alone. */
function configHome(settings: Record<string, unknown>): string {
  const home = tempDir("vm-xdg-");
  mkdirSync(join(home, "vault-memory"), { mode: 0o700 });
  const file = join(home, "vault-memory", "config.json");
  writeFileSync(file, JSON.stringify(settings));
  chmodSync(file, 0o600);
  return home;
}

/** The bridge in a process of its own, without blocking this one, where the SMTP server lives. */
function bridge(args: string[], env: NodeJS.ProcessEnv, entry = BRIDGE): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const envOf = (xdg: string): NodeJS.ProcessEnv => ({ ...process.env, XDG_CONFIG_HOME: xdg, VAULT_MEMORY_SMTP_PASSWORD: "" });

describe("the bridge mails the night's report", () => {
  it("from `digest`, with the password from this computer's file, and prints it nowhere", async () => {
    const s = await smtp();
    const vault = queuedVault();
    const xdg = configHome({ smtpPassword: PASSWORD, digest: { command: LLM, mail: mail(s.port) }, enrich: { perNight: 0 } });
    const r = await bridge(["digest", "--vault", vault], envOf(xdg));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/created 1, extended 0, skipped 0, failed 0; 0 left in the queue/);
    expect(r.stderr).not.toContain("mail");
    expect(s.logins).toEqual([{ user: USER, ok: true }]);
    expect(s.received).toHaveLength(1);
    expect(s.received[0].mail.subject).toMatch(/: created 1, extended 0, skipped 0, failed 0; 0 left$/);
    expect(s.received[0].mail.text).toContain("## Cards created (1)\n- [[bridge-mail]] — The card of the mailed night");
    for (const text of [r.stdout, r.stderr, JSON.stringify(readDigestStatus(vault))]) expect(text).not.toContain(PASSWORD);
  });

  it("from the environment's password, which no program the night runs inherits", async () => {
    const s = await smtp();
    const vault = queuedVault();
    const seen = tempDir();
    const llm = ["/bin/sh", "-c", `env > "${join(seen, "llm")}"; cat >/dev/null; echo '${JSON.stringify(ANSWER)}'`];
    const xdg = configHome({ digest: { command: llm, reportCommand: `env > "${join(seen, "report")}"`, mail: mail(s.port) }, enrich: { perNight: 0 } });
    const r = await bridge(["digest", "--vault", vault], { ...envOf(xdg), VAULT_MEMORY_SMTP_PASSWORD: PASSWORD });
    expect(r.status, r.stderr).toBe(0);
    expect(s.logins).toEqual([{ user: USER, ok: true }]);
    expect(s.received).toHaveLength(1);
    for (const file of ["llm", "report"]) {
      const env = readFileSync(join(seen, file), "utf8");
      expect(env).toContain("XDG_CONFIG_HOME=");
      expect(env).not.toContain(PASSWORD);
    }
  });

  it("as Obsidian runs the digest: settings on stdin, the password read by the child from this computer's file", async () => {
    const s = await smtp();
    const vault = queuedVault();
    const xdg = configHome({ smtpPassword: PASSWORD });
    const config = defaultConfig();
    config.enrich.perNight = 0;
    config.digest.command = LLM;
    config.digest.mail = { ...config.digest.mail, ...mail(s.port), security: "starttls" };
    const report = await runDigestChild({ node: process.execPath, bridge: BRIDGE, vault, config, env: envOf(xdg) });
    expect(report.ok, report.error).toBe(true);
    expect(report.notify).toBeUndefined();
    expect(s.received).toHaveLength(1);
    expect(s.received[0].secure).toBe(true);
    expect(s.received[0].mail.text).toContain("Queue left: 0.");
    expect(JSON.stringify(report)).not.toContain(PASSWORD);
  });

  it("says so, and keeps the night's work, when the server refuses the login", async () => {
    const s = await smtp();
    const vault = queuedVault();
    const xdg = configHome({ smtpPassword: "not-the-password", digest: { command: LLM, mail: mail(s.port) }, enrich: { perNight: 0 } });
    const r = await bridge(["digest", "--vault", vault], envOf(xdg));
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^warning: mail not sent to 127\.0\.0\.1: Invalid login: 535/m);
    expect(r.stderr + r.stdout).not.toContain("not-the-password");
    expect(listPending(vault)).toEqual([]);
    expect(readDigestStatus(vault)?.notify).toMatch(/^mail not sent to 127\.0\.0\.1/);
  });

  it("tells of a bridge copy without its mail bundle, and still does the night", async () => {
    const s = await smtp();
    const copy = tempDir("vm-bridge-");
    for (const name of BRIDGE_FILES) if (name !== MAIL_FILE) copyFileSync(join(ROOT, "hook-bridge", "dist", name), join(copy, name));
    const vault = queuedVault();
    const xdg = configHome({ smtpPassword: PASSWORD, digest: { command: LLM, mail: mail(s.port) }, enrich: { perNight: 0 } });
    const r = await bridge(["digest", "--vault", vault], envOf(xdg), join(copy, BRIDGE_FILE));
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`warning: mail not sent: ${join(copy, MAIL_FILE)} is missing`);
    expect(s.received).toEqual([]);
    expect(listPending(vault)).toEqual([]);
  });
});
