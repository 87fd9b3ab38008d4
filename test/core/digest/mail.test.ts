/**
 * The night's report by mail, against a real SMTP server on this computer (nodemailer's own
 * smtp-server, STARTTLS on a certificate made for the test): what arrives, who logs in with which
 * password, and what a server that refuses, is down or never answers does to the night.
 */

import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, loadVaultConfig, type VaultMemoryConfig } from "../../../src/core/config";
import { mailReport, type MailJob, type SendMail } from "../../../src/core/digest/mail";
import { runDigest, type DigestOptions } from "../../../src/core/digest/run";
import type { MailSettings } from "../../../src/core/digest/settings";
import { readDigestStatus } from "../../../src/core/digest/status";
import { machineKeysOf, saveUserSettings, userSettingsFor, withoutMachineKeys } from "../../../src/core/machine-config";
import { vaultFiles } from "../../../src/core/paths";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { listPending } from "../../../src/core/queue/queue-store";
import { sendMail } from "../../../hook-bridge/src/mail/send";
import { jsonl, line } from "../../fixtures/transcript";
import { closedPort, selfSigned, startSilent, startSmtp, type Certificate, type TestSmtp } from "../../fixtures/smtp";
import { tempDir } from "../../helpers";
import { until } from "../../wait";

const PASSWORD = "pw-Zq81-correct-horse-battery";
const WRONG = "pw-Xy55-wrong-staple-paper";
const USER = "night@example.com";

let certificate: Certificate;
beforeAll(() => {
  certificate = selfSigned();
});

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function smtp(o: Parameters<typeof startSmtp>[0]): Promise<TestSmtp> {
  const s = await startSmtp(o);
  closing.push(() => s.close());
  return s;
}

const CARD_ANSWER = {
  action: "create",
  folder: "debugging",
  fileName: "mail-night",
  frontmatter: { name: "Mail night", description: "The card the mailed night created", type: "debugging", tags: ["test"] },
  body: "Body.",
  related: [],
};

/** A vault with one conversation waiting. */
function queuedVault(): string {
  const vault = join(tempDir(), "vault");
  mkdirSync(vault);
  const t = join(tempDir(), "t.jsonl");
  const reply = "A reply long enough to count as real work in this conversation, with details.";
  writeFileSync(t, jsonl([line.prompt("why does the nightly mail fail"), line.reply(reply), line.prompt("and how to fix it"), line.reply(reply)]));
  captureSession(vault, { sessionId: "mailed", transcriptPath: t, cwd: "/work/x", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  expect(listPending(vault)).toHaveLength(1);
  return vault;
}

function mailSettings(port: number, over: Partial<MailSettings> = {}): MailSettings {
  return {
    host: "127.0.0.1",
    port,
    security: "starttls",
    user: USER,
    from: "vault-memory@example.com",
    to: ["me@example.com", "also@example.com"],
    timeoutSec: 30,
    caFile: certificate.certFile,
    ...over,
  };
}

function configWith(mail: MailSettings): VaultMemoryConfig {
  const c = defaultConfig();
  c.enrich.perNight = 0;
  c.digest.command = ["/bin/sh", "-c", `cat >/dev/null; echo '${JSON.stringify(CARD_ANSWER)}'`];
  c.digest.mail = mail;
  return c;
}

/** This computer's settings file, the person's alone, holding the password. */
function userFile(content: Record<string, unknown> = { smtpPassword: PASSWORD }, mode = 0o600): string {
  const dir = join(tempDir("vm-user-"), "vault-memory");
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, "config.json");
  writeFileSync(file, JSON.stringify(content));
  chmodSync(file, mode);
  return file;
}

function night(vault: string, config: VaultMemoryConfig, file: string, more: Partial<DigestOptions> = {}) {
  return runDigest({ vault, config, mail: { load: () => sendMail, userFile: file }, env: { ...process.env, VAULT_MEMORY_SMTP_PASSWORD: "" }, ...more });
}

/** Every file under `dir`, as text. */
function everyFile(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...everyFile(p));
    else if (statSync(p).isFile()) out.push(readFileSync(p, "utf8"));
  }
  return out;
}

function expectNoPassword(vault: string, ...texts: unknown[]): void {
  for (const secret of [PASSWORD, WRONG, Buffer.from(PASSWORD).toString("base64"), Buffer.from(WRONG).toString("base64")]) {
    for (const text of everyFile(vault)) expect(text.includes(secret)).toBe(false);
    for (const t of texts) expect(JSON.stringify(t).includes(secret)).toBe(false);
  }
}

/** The header block of a raw message, one header per entry (folded lines joined). */
const headerNames = (raw: string): string[] =>
  raw
    .slice(0, raw.indexOf("\r\n\r\n"))
    .split(/\r\n(?![ \t])/)
    .map((h) => h.slice(0, h.indexOf(":")).toLowerCase());

describe("the night's report by mail", () => {
  it("goes after the night over STARTTLS, logged in with the password from this computer's file, with the night's counts", async () => {
    const server = await smtp({ certificate, login: { user: USER, password: PASSWORD } });
    const vault = queuedVault();
    const r = await night(vault, configWith(mailSettings(server.port)), userFile());
    expect(r.ok).toBe(true);
    expect(r.notify).toBeUndefined();
    expect(server.logins).toEqual([{ user: USER, ok: true }]);
    expect(server.received).toHaveLength(1);
    const got = server.received[0];
    expect(got.secure).toBe(true);
    expect(got.user).toBe(USER);
    expect(got.rcptTo.sort()).toEqual(["also@example.com", "me@example.com"]);
    expect(got.mailFrom).toBe("vault-memory@example.com");
    expect(got.mail.subject).toMatch(/^Vault Memory digest \d{4}-\d\d-\d\d: created 1, extended 0, skipped 0, failed 0; 0 left$/);
    const body = got.mail.text ?? "";
    // The report the night wrote to the vault, less its frontmatter.
    expect(body).toContain("## Cards created (1)\n- [[mail-night]] — The card the mailed night created");
    expect(body).toContain("## Failures (0)");
    expect(body).toContain("Queue left: 0.");
    expect(body).toContain(`as ${r.reportPath}`);
    expect(body).not.toMatch(/^name: Digest/m);
    expect(readFileSync(join(vault, r.reportPath!), "utf8")).toContain("## Cards created (1)");
    expect(readDigestStatus(vault)?.notify).toBeUndefined();
    expectNoPassword(vault, r, got.raw);
  });

  it("is not sent with a wrong password; the night keeps its card and says why, never the password", async () => {
    const server = await smtp({ certificate, login: { user: USER, password: PASSWORD } });
    const vault = queuedVault();
    const r = await night(vault, configWith(mailSettings(server.port)), userFile(), { env: { ...process.env, VAULT_MEMORY_SMTP_PASSWORD: WRONG } });
    expect(server.logins).toEqual([{ user: USER, ok: false }]);
    expect(server.received).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.results.map((x) => x.outcome.action)).toEqual(["created"]);
    expect(listPending(vault)).toEqual([]);
    expect(r.notify).toMatch(/^mail not sent to 127\.0\.0\.1: .*(Invalid login|535)/);
    expect(readDigestStatus(vault)).toMatchObject({ ok: true, created: 1, notify: r.notify });
    expectNoPassword(vault, r);
  });

  it("goes from a failed night too, its error in the subject, where a line break starts no header", async () => {
    const server = await smtp({ certificate, login: { user: USER, password: PASSWORD } });
    const vault = queuedVault();
    const config = configWith(mailSettings(server.port));
    config.digest.binary = "/nonexistent/claude\r\nBcc: evil@example.com\r\nX-Injected: yes";
    const r = await night(vault, config, userFile());
    expect(r.ok).toBe(false);
    expect(server.received).toHaveLength(1);
    const got = server.received[0];
    expect(got.rcptTo.sort()).toEqual(["also@example.com", "me@example.com"]);
    expect(headerNames(got.raw)).not.toContain("x-injected");
    expect(headerNames(got.raw)).not.toContain("bcc");
    expect(got.mail.headers.has("x-injected")).toBe(false);
    expect(got.mail.subject).toMatch(
      /^Vault Memory digest \S+ stopped \(created 0, extended 0, skipped 0, failed 0; 1 left\): the LLM binary .*\\r\\nBcc: evil@example\.com\\r\\nX-Injected: yes/,
    );
    expect(got.mail.text).toContain("**Stopped:**");
    expect(got.mail.text).toContain("Queue left: 1.");
    expect(listPending(vault)).toHaveLength(1);
  });

  it("carries a card title holding CR/LF as text of the body, never as a header", async () => {
    const server = await smtp({ certificate, login: { user: USER, password: PASSWORD } });
    const vault = tempDir();
    const told = await mailReport(
      job(vault, mailSettings(server.port), {
        report:
          "---\nname: Digest\n---\n# Digest\n\n## Cards created (1)\n- [[Evil\r\nBcc: evil@example.com\r\nX-Injected: yes]] — a title\n\nQueue left: 0.\n",
        summary: {
          date: "2026-01-02",
          ok: false,
          error: "a\r\nX-Injected: yes\nBcc: evil@example.com",
          created: 1,
          extended: 0,
          skipped: 0,
          failed: 0,
          left: 0,
        },
      }),
    );
    expect(told).toBe("");
    const got = server.received[0];
    expect(got.rcptTo.sort()).toEqual(["also@example.com", "me@example.com"]);
    expect(headerNames(got.raw).filter((h) => h === "x-injected" || h === "bcc")).toEqual([]);
    expect(got.mail.subject).not.toMatch(/[\r\n]/);
    expect(got.mail.text).toContain("Bcc: evil@example.com");
  });

  it("reports a server that is down, and the night keeps its work", async () => {
    const vault = queuedVault();
    const r = await night(vault, configWith(mailSettings(await closedPort())), userFile());
    expect(r.ok).toBe(true);
    expect(r.results.map((x) => x.outcome.action)).toEqual(["created"]);
    expect(r.notify).toMatch(/^mail not sent to 127\.0\.0\.1: .*ECONNREFUSED/);
    expect(readDigestStatus(vault)?.notify).toBe(r.notify);
    expectNoPassword(vault, r);
  });

  it("gives up on a server that never answers at digest.mail.timeoutSec", async () => {
    const silent = await startSilent();
    closing.push(() => silent.close());
    const vault = queuedVault();
    // Short here so that the test waits for the event, not for seconds.
    const r = await night(vault, configWith(mailSettings(silent.port, { timeoutSec: 0.2 })), userFile());
    expect(silent.connections()).toBe(1);
    expect(r.ok).toBe(true);
    // Which of nodemailer's bounds ends it (the greeting's, or the socket's on a busy machine) is
    // the machine's to decide; that one of them does, in its time, is the test's.
    expect(r.notify).toMatch(/^mail not sent to 127\.0\.0\.1: .*(Greeting never received|Timeout)/);
    expect(r.results.map((x) => x.outcome.action)).toEqual(["created"]);
  });

  it("stops a send that outlives the digest's deadline, even from a sender that ignores its signal", async () => {
    const hung: SendMail = () => new Promise(() => {});
    const told = await mailReport({ ...job(tempDir(), mailSettings(1)), deadlineSec: 0.05, mailer: { load: () => hung, userFile: userFile() } });
    expect(told).toBe("mail: no answer within 0.05 s, stopped");
  });

  it("stops with the night: a send under way ends, and a stopped night sends none", async () => {
    const silent = await startSilent();
    closing.push(() => silent.close());
    const stop = new AbortController();
    const sending = mailReport({ ...job(tempDir(), mailSettings(silent.port)), signal: stop.signal });
    await until(() => silent.connections() === 1);
    stop.abort();
    expect(await sending).toBe("mail: stopped with the night");
    expect(await mailReport({ ...job(tempDir(), mailSettings(silent.port)), signal: stop.signal })).toBe("mail not sent: the night was stopped");
    expect(silent.connections()).toBe(1);
  });

  it("sends on this computer's own server without TLS, and a password to any other only over TLS", async () => {
    const plain = await smtp({ login: { user: USER, password: PASSWORD } });
    expect(await mailReport(job(tempDir(), mailSettings(plain.port, { security: "none", caFile: "" })))).toBe("");
    expect(plain.received[0].secure).toBe(false);
    let loaded = 0;
    const remote = await mailReport({
      ...job(tempDir(), mailSettings(25, { host: "smtp.example.com", security: "none" })),
      mailer: {
        load: () => {
          loaded++;
          return sendMail;
        },
        userFile: userFile(),
      },
    });
    expect(remote).toMatch(/^mail not sent: a password is never sent without TLS, and smtp\.example\.com is not this computer/);
    expect(loaded).toBe(0);
  });

  it("refuses STARTTLS to a certificate it cannot trust, before the password is sent", async () => {
    const server = await smtp({ certificate, login: { user: USER, password: PASSWORD } });
    const told = await mailReport(job(tempDir(), mailSettings(server.port, { caFile: "" })));
    expect(told).toMatch(/^mail not sent to 127\.0\.0\.1: .*(self-signed|self signed|certificate)/i);
    expect(server.logins).toEqual([]);
    expect(server.received).toEqual([]);
  });

  it("reads the password only from a file that is the person's alone, or the environment", async () => {
    const server = await smtp({ certificate, login: { user: USER, password: PASSWORD } });
    const shared = userFile({ smtpPassword: PASSWORD }, 0o666);
    const refused = await mailReport({ ...job(tempDir(), mailSettings(server.port)), mailer: { load: () => sendMail, userFile: shared } });
    expect(refused).toMatch(/^mail not sent: the password in .* is not used: .*can be written by other users/);
    expect(refused).not.toContain(PASSWORD);
    expect(server.logins).toEqual([]);
    const missing = await mailReport({ ...job(tempDir(), mailSettings(server.port)), mailer: { load: () => sendMail, userFile: userFile({}) } });
    expect(missing).toMatch(
      /^mail not sent: no password for night@example\.com: set smtpPassword in .* or the environment variable VAULT_MEMORY_SMTP_PASSWORD/,
    );
    // The environment's, when the file has none.
    const fromEnv = await mailReport({
      ...job(tempDir(), mailSettings(server.port)),
      mailer: { load: () => sendMail, userFile: userFile({}) },
      env: { VAULT_MEMORY_SMTP_PASSWORD: PASSWORD },
    });
    expect(fromEnv).toBe("");
    // A vault's own entry in the file wins over the top level's.
    const vault = tempDir();
    const perVault = await mailReport({
      ...job(vault, mailSettings(server.port)),
      mailer: { load: () => sendMail, userFile: userFile({ smtpPassword: WRONG, vaults: { [vault]: { smtpPassword: PASSWORD } } }) },
    });
    expect(perVault).toBe("");
    expect(server.received).toHaveLength(2);
  });

  it("refuses addresses that are more than one plain address", async () => {
    for (const to of [["me@example.com, evil@example.com"], ["Me <me@example.com>"], ["me@example.com\r\nBcc: evil@example.com"], []]) {
      const told = await mailReport(job(tempDir(), mailSettings(1, { to })));
      expect(told).toMatch(/^mail not sent: digest\.mail\.to/);
    }
  });
});

describe("mail settings and the password, where they may come from", () => {
  it("never from the vault's config.json: refused and said", () => {
    const vault = tempDir();
    mkdirSync(vaultFiles.dir(vault), { recursive: true });
    writeFileSync(
      vaultFiles.config(vault),
      JSON.stringify({ smtpPassword: PASSWORD, digest: { maxCalls: 4, mail: { host: "smtp.evil.example", to: ["evil@example.com"] } } }),
    );
    const problems: string[] = [];
    const loaded = loadVaultConfig(vault, { userFile: join(tempDir(), "none.json") }, problems);
    expect(loaded.config.digest.mail).toEqual(defaultConfig().digest.mail);
    expect(loaded.config.digest.maxCalls).toBe(4);
    expect(loaded.ignored).toEqual(["digest.mail"]);
    expect(problems).toEqual([expect.stringMatching(/holds smtpPassword, which is not used: a password is never read from the vault/)]);
    expect(problems.join("\n")).not.toContain(PASSWORD);
  });

  it("from this computer's file, where the password stays out of the settings and survives Obsidian's save", () => {
    const vault = tempDir();
    const file = userFile({
      smtpPassword: "top",
      digest: { mail: { host: "127.0.0.1", to: "me@example.com" } },
      vaults: { [vault]: { smtpPassword: "mine" } },
    });
    const problems: string[] = [];
    const { config } = loadVaultConfig(vault, { userFile: file }, problems);
    expect(problems).toEqual([]);
    expect(config.digest.mail).toMatchObject({ host: "127.0.0.1", to: ["me@example.com"] });
    expect(JSON.stringify(config)).not.toMatch(/smtpPassword|"mine"|"top"/);
    expect(userSettingsFor({ smtpPassword: "top", vaults: { [vault]: { smtpPassword: "mine" } } }, vault)).toEqual({});
    expect(withoutMachineKeys({ smtpPassword: "x", digest: { mail: {}, maxCalls: 3 } })).toEqual({ digest: { maxCalls: 3 } });
    // Obsidian saves this device's machine keys into the file: the passwords stay where they were.
    saveUserSettings(
      file,
      vault,
      machineKeysOf(config as unknown as Record<string, unknown>),
      machineKeysOf(defaultConfig() as unknown as Record<string, unknown>),
    );
    const saved = JSON.parse(readFileSync(file, "utf8")) as { smtpPassword: string; vaults: Record<string, { smtpPassword?: string }> };
    expect(saved.smtpPassword).toBe("top");
    expect(saved.vaults[vault].smtpPassword).toBe("mine");
  });
});

/** A mail job of its own, outside a night. */
function job(vault: string, settings: MailSettings, more: Partial<MailJob> = {}): MailJob {
  return {
    vault,
    settings,
    deadlineSec: 300,
    summary: { date: "2026-01-02", ok: true, created: 0, extended: 0, skipped: 0, failed: 0, left: 0 },
    report: "# Digest\n\nFinished in 1 s.\n",
    mailer: { load: () => sendMail, userFile: userFile() },
    env: {},
    ...more,
  };
}
