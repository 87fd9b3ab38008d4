/**
 * The night's report by mail, through the SMTP server this computer's settings name
 * (`digest.mail`, a machine key: never from the vault). The sending itself is nodemailer, in a
 * bundle of its own (`vault-memory-mail.cjs`, hook-bridge/vault-memory-mail.ts) that the digest
 * loads only when a mail goes: no hook ever parses it, and src/core never imports it. Here: what is
 * sent, to whom, with which password, under which deadline, and what a failure says.
 */

import { basename, isAbsolute } from "node:path";
import { insideVaultProblem, programProblem } from "../io/program-path";
import { readRegularFile } from "../io/read-file";
import { readSettingsFile, SMTP_PASSWORD_ENV, SMTP_PASSWORD_KEY, smtpPasswordIn } from "../machine-config";
import { sanitize } from "../privacy/redact";
import { escapeControl } from "../text/visible";
import { isLoopback } from "../embed/settings";
import type { MailSecurity, MailSettings } from "./settings";

/** What the mail bundle is handed: every value checked, the password resolved, the deadline set. */
export interface MailRequest {
  host: string;
  port: number;
  security: MailSecurity;
  /** "" to send without logging in. */
  user: string;
  password: string;
  /** A PEM certificate authority to trust instead of the system's, when digest.mail.caFile names one. */
  ca?: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** The connection, the server's greeting and each answer, in milliseconds. */
  timeoutMs: number;
  /** The whole send: the digest's deadline and the night's stop. */
  signal: AbortSignal;
}

/** What the server did with the recipients. */
export interface MailSent {
  accepted: string[];
  rejected: string[];
}

/** The mail bundle's one export. */
export type SendMail = (request: MailRequest) => Promise<MailSent>;

/** How a runner of the digest sends mail: the bridge's digest command loads the bundle beside it. */
export interface MailContext {
  /** Loads the sender; called only when a mail is to go, and may throw (a bundle missing). */
  load: () => SendMail;
  /** The per-user settings file, where the password may be (see machine-config.ts). */
  userFile: string;
  /** SMTP_PASSWORD_ENV's value, taken out of the environment by the runner so that no program the night runs inherits it. */
  envPassword?: string;
}

/** The night, as the subject tells it. */
export interface MailSummary {
  date: string;
  ok: boolean;
  error?: string;
  created: number;
  extended: number;
  skipped: number;
  failed: number;
  left: number;
}

export interface MailJob {
  vault: string;
  settings: MailSettings;
  /** The digest's deadline for the whole send, in seconds (digest.timeoutSec). */
  deadlineSec: number;
  summary: MailSummary;
  /** The night's report note, as written to the vault. */
  report: string;
  /** Where the report note is, vault-relative. */
  reportPath?: string;
  mailer?: MailContext;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** A plain address: no name, no comment, no list, nothing a header could be built from. */
// eslint-disable-next-line no-control-regex -- refusing them is the point
const ADDRESS = /^[^\s@<>()[\],;:"\\\x00-\x1f\x7f]+@[^\s@<>()[\],;:"\\\x00-\x1f\x7f]+$/;

const DEFAULT_PORT: Record<MailSecurity, number> = { tls: 465, starttls: 587, none: 25 };

/** Whether this computer's settings send the report by mail. */
export const mailOn = (settings: MailSettings): boolean => settings.host.trim() !== "";

/**
 * Mails the night's report when digest.mail names a server. Resolves with "" when it went (or no
 * mail is set), else with what to tell the person; never rejects and never says the password.
 */
export async function mailReport(job: MailJob): Promise<string> {
  if (!mailOn(job.settings)) return "";
  try {
    return await mailOnce(job);
  } catch (err) {
    // Whatever went wrong here, the night's work stands; the sender's own errors are told above.
    return `mail not sent: ${escapeControl(err instanceof Error ? err.message : String(err)).slice(0, 300)}`;
  }
}

async function mailOnce(job: MailJob): Promise<string> {
  const ready = prepare(job);
  if ("problem" in ready) return `mail not sent: ${ready.problem}`;
  const secs = job.deadlineSec;
  let send: SendMail;
  try {
    if (!job.mailer) throw new Error("this runner of the digest cannot send mail");
    send = job.mailer.load();
  } catch (err) {
    return `mail not sent: ${told(err, ready.request)}`;
  }
  if (job.signal?.aborted) return "mail not sent: the night was stopped";
  // The deadline and the night's stop end the send alike, and the wait for it: a server that
  // holds the connection open holds the night's lock no longer than a hung report command would.
  const stop = new AbortController();
  let why = "";
  const end = (reason: string): void => {
    why ||= reason;
    stop.abort();
  };
  const deadline = AbortSignal.timeout(secs * 1000);
  const onDeadline = (): void => end(`no answer within ${secs} s, stopped`);
  deadline.addEventListener("abort", onDeadline, { once: true });
  const onStop = (): void => end("stopped with the night");
  job.signal?.addEventListener("abort", onStop, { once: true });
  const ended = new Promise<never>((_, reject) => stop.signal.addEventListener("abort", () => reject(new Error(why)), { once: true }));
  // Rejected by the clean-up below too, when the send has already won the race.
  ended.catch(() => {});
  try {
    const sent = await Promise.race([send({ ...ready.request, signal: stop.signal }), ended]);
    const rejected = sent.rejected.map(String);
    return rejected.length > 0 ? `mail: ${escapeControl(ready.request.host)} refused ${escapeControl(rejected.join(", "))}` : "";
  } catch (err) {
    return why ? `mail: ${why}` : `mail not sent to ${escapeControl(ready.request.host)}: ${told(err, ready.request)}`;
  } finally {
    deadline.removeEventListener("abort", onDeadline);
    job.signal?.removeEventListener("abort", onStop);
    stop.abort();
  }
}

/** The request, or why no mail can go with these settings. */
function prepare(job: MailJob): { request: Omit<MailRequest, "signal"> } | { problem: string } {
  const s = job.settings;
  const host = s.host.trim();
  // eslint-disable-next-line no-control-regex -- refusing them is the point
  if (/[\s\x00-\x1f\x7f]/.test(host)) return { problem: `digest.mail.host ${escapeControl(JSON.stringify(host))} is not a host name` };
  const to = s.to.map((a) => a.trim());
  if (to.length === 0) return { problem: "digest.mail.to names no address" };
  const wrong = to.find((a) => !ADDRESS.test(a));
  if (wrong !== undefined) return { problem: `digest.mail.to: ${escapeControl(JSON.stringify(wrong))} is not a plain address such as me@example.com` };
  const from = s.from.trim() || s.user.trim();
  if (!ADDRESS.test(from)) return { problem: "digest.mail.from: set the sender's address, such as vault-memory@example.com" };
  // A password sent in the clear could be read by anyone on the way; on this computer there is no way.
  if (s.user && s.security === "none" && !isLoopback(host))
    return {
      problem: `a password is never sent without TLS, and ${escapeControl(host)} is not this computer: set digest.mail.security to "tls" or "starttls"`,
    };
  const password = passwordFor(job);
  if ("problem" in password) return password;
  let ca: string | undefined;
  if (s.caFile.trim()) {
    const file = s.caFile.trim();
    if (!isAbsolute(file)) return { problem: `digest.mail.caFile must be an absolute path, not ${escapeControl(JSON.stringify(file))}` };
    // Whoever could change the certificate authority could read the mail on its way.
    const why = programProblem(file, job.vault);
    if (why) return { problem: `digest.mail.caFile is not used: ${escapeControl(why)}` };
    try {
      ca = readRegularFile(file, { maxBytes: 1 << 20 }).toString("utf8");
    } catch (err) {
      return { problem: `digest.mail.caFile cannot be read: ${escapeControl(err instanceof Error ? err.message : String(err))}` };
    }
  }
  return {
    request: {
      host,
      port: s.port || DEFAULT_PORT[s.security],
      security: s.security,
      user: s.user,
      password: password.password,
      ...(ca === undefined ? {} : { ca }),
      from,
      to,
      subject: subjectOf(job.summary),
      text: bodyOf(job),
      timeoutMs: Math.max(1, Math.min(s.timeoutSec, job.deadlineSec) * 1000),
    },
  };
}

/**
 * The password, when a user is set: the environment's, else the per-user file's, and that only
 * while the file is the person's alone and outside the vault. Never a vault's file.
 */
function passwordFor(job: MailJob): { password: string } | { problem: string } {
  const user = job.settings.user;
  if (!user) return { password: "" };
  const env = job.env ?? process.env;
  const fromEnv = job.mailer?.envPassword || env[SMTP_PASSWORD_ENV];
  if (fromEnv) return { password: fromEnv };
  const file = job.mailer?.userFile;
  const where = `set ${SMTP_PASSWORD_KEY} in ${file ?? "your own settings file"} (mode 600) or the environment variable ${SMTP_PASSWORD_ENV}`;
  if (!file) return { problem: `no password for ${escapeControl(user)}: ${where}` };
  const inVault = insideVaultProblem(file, job.vault);
  if (inVault) return { problem: `the password is never read from the vault (${escapeControl(inVault)}): ${where}` };
  let found: string | undefined;
  try {
    found = smtpPasswordIn(readSettingsFile(file, { private: true }), job.vault);
  } catch (err) {
    return { problem: `the password in ${escapeControl(file)} is not used: ${escapeControl(err instanceof Error ? err.message : String(err))}` };
  }
  return found === undefined ? { problem: `no password for ${escapeControl(user)}: ${where}` } : { password: found };
}

/** One line, whatever the night's error holds: a line break in a header would start another header. */
function subjectOf(r: MailSummary): string {
  const head = `Vault Memory digest ${r.date}`;
  const counts = `created ${r.created}, extended ${r.extended}, skipped ${r.skipped}, failed ${r.failed}; ${r.left} left`;
  // The counts first: a long error is what the cut takes.
  const line = r.ok ? `${head}: ${counts}` : `${head} stopped (${counts}): ${(r.error ?? "unknown error").replace(/^stopped: /, "")}`;
  const one = escapeControl(sanitize(line)).replace(/\s+/g, " ");
  return one.length > 200 ? `${one.slice(0, 199)}…` : one;
}

/** The report note as the night wrote it, less its frontmatter, redacted as everything a night sends is. */
function bodyOf(job: MailJob): string {
  const note = job.report.replace(/^---\n[\s\S]*?\n---\n/, "").trim();
  const where = job.reportPath ? `It is also in the vault, as ${job.reportPath}.` : "";
  return sanitize(`The Vault Memory digest of ${basename(job.vault)}, ${job.summary.date}. ${where}\n\n${note}\n`);
}

/** An error as the person reads it: one line, cut short, with the password nowhere in it. */
function told(err: unknown, request: Omit<MailRequest, "signal">): string {
  let text = err instanceof Error ? err.message : String(err);
  const pass = request.password;
  if (pass) {
    // As written, and as SMTP's AUTH PLAIN and LOGIN carry it.
    const forms = [pass, Buffer.from(pass).toString("base64"), Buffer.from(`\0${request.user}\0${pass}`).toString("base64")];
    for (const f of forms) text = text.split(f).join("[password]");
  }
  const line = escapeControl(sanitize(text).replace(/\s+/g, " ").trim());
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
