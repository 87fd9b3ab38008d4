/**
 * Sends one mail through SMTP with nodemailer: the mail bundle's whole work. Built into
 * `vault-memory-mail.cjs` alone, so that no hook and no other command parses nodemailer; the
 * digest loads it only when a night's report is mailed (src/core/digest/mail.ts decides what goes).
 */

import { createTransport } from "nodemailer";
import type { MailRequest, MailSent } from "../../../src/core/digest/mail";

export async function sendMail(r: MailRequest): Promise<MailSent> {
  const transport = createTransport({
    host: r.host,
    port: r.port,
    // TLS from the first byte, or STARTTLS required (never a fall back to plain text), or none at all.
    secure: r.security === "tls",
    requireTLS: r.security === "starttls",
    ignoreTLS: r.security === "none",
    ...(r.user ? { auth: { user: r.user, pass: r.password }, forceAuth: true } : {}),
    connectionTimeout: r.timeoutMs,
    greetingTimeout: r.timeoutMs,
    socketTimeout: r.timeoutMs,
    dnsTimeout: r.timeoutMs,
    socketCloseTimeout: Math.min(r.timeoutMs, 5000),
    tls: { minVersion: "TLSv1.2", ...(r.ca === undefined ? {} : { ca: r.ca }) },
    // Nothing of the conversation is logged: it holds the password and the report.
    logger: false,
    debug: false,
    transactionLog: false,
    // The message is text given here, never a file or a URL to fetch.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail({ from: r.from, to: r.to, subject: r.subject, text: r.text, signal: r.signal });
    return { accepted: info.accepted.map(String), rejected: info.rejected.map(String) };
  } finally {
    transport.close();
  }
}
