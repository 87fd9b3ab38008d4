/** The digest's settings, their defaults and their schema. */

import * as z from "zod/mini";
import { nonNegative, setting, text } from "../settings-schema";
import { TIME_OF_DAY } from "./schedule";

export interface DigestSettings {
  /** HH:MM, local time. */
  time: string;
  /** The LLM command and its flags; the prompt goes to its stdin. */
  command: string[];
  /** An absolute path to the LLM binary, when it is not on the login shell's PATH. */
  binary: string;
  model: string;
  maxEntries: number;
  maxCalls: number;
  timeoutSec: number;
  /** A shell command the report is piped to (e.g. `mail -s "Vault Memory" me@example.com`); "" for none. */
  reportCommand: string;
  /** The report by mail, through an SMTP server (see mail.ts); off while `host` is "". */
  mail: MailSettings;
  /** Archive the cards not recalled, read or linked for lint.unusedDays days, each night (see retire.ts). Off until the person turns it on. */
  archiveUnused: boolean;
  /** Merge fragment cards on one subject once a month, within the night's LLM calls (see consolidate.ts). Off until the person turns it on. */
  consolidate: boolean;
  /** The monthly merges wait in the queue sidebar for the person to accept, rather than being made. */
  reviewMerges: boolean;
}

/** How the connection to the SMTP server is protected: TLS from the start, STARTTLS required, or none (this computer's own server). */
export type MailSecurity = "tls" | "starttls" | "none";

/** Where the night's report is mailed. The password is no setting: see mail.ts. */
export interface MailSettings {
  /** The SMTP server; "" for no mail. */
  host: string;
  /** 0: 465 with "tls", 587 with "starttls", 25 with "none". */
  port: number;
  security: MailSecurity;
  /** The login name; "" to send without logging in. */
  user: string;
  /** The sender's address; "" for `user`. */
  from: string;
  /** One address or several. */
  to: string[];
  /** The longest wait for the connection, the server's greeting and each answer, in seconds. */
  timeoutSec: number;
  /** A PEM file of the certificate authority that signed the server's certificate (a server of your own), trusted instead of the system's; "" for the system's. */
  caFile: string;
}

export const DEFAULT_MAIL: MailSettings = { host: "", port: 0, security: "starttls", user: "", from: "", to: [], timeoutSec: 30, caFile: "" };

export const DEFAULT_DIGEST: DigestSettings = {
  time: "03:00",
  command: ["claude", "-p", "--output-format", "json"],
  binary: "",
  model: "",
  maxEntries: 20,
  maxCalls: 30,
  timeoutSec: 300,
  reportCommand: "",
  mail: DEFAULT_MAIL,
  archiveUnused: false,
  consolidate: false,
  reviewMerges: true,
};

/** How config.json's `digest.mail` is read. */
export const MAIL_SCHEMA = z.object({
  host: setting(z.string().check(z.trim()), DEFAULT_MAIL.host, 'a host name or address, or ""'),
  port: setting(z.int().check(z.minimum(0), z.maximum(65535)), DEFAULT_MAIL.port, "a port number, or 0 for the usual one"),
  security: setting(z.enum(["tls", "starttls", "none"]), DEFAULT_MAIL.security, '"tls", "starttls" or "none"'),
  user: setting(text, DEFAULT_MAIL.user, "a string"),
  from: setting(z.string().check(z.trim()), DEFAULT_MAIL.from, 'an address, or ""'),
  // One address or a list of them.
  to: setting(
    z.pipe(
      z.union([z.string(), z.array(z.string())]),
      z.transform((v) => (typeof v === "string" ? [v] : v).map((a) => a.trim()).filter((a) => a !== "")),
    ),
    DEFAULT_MAIL.to,
    "an address or a list of addresses",
  ),
  timeoutSec: setting(z.number().check(z.positive()), DEFAULT_MAIL.timeoutSec, "a number of seconds above 0"),
  caFile: setting(text, DEFAULT_MAIL.caFile, 'a path, or ""'),
}) satisfies z.ZodMiniType<MailSettings, unknown>;

/** How config.json's `digest` is read (see settings-schema.ts). */
export const DIGEST_SCHEMA = z.object({
  time: setting(z.string().check(z.trim(), z.regex(TIME_OF_DAY)), DEFAULT_DIGEST.time, "a time of day such as 03:00"),
  command: setting(z.array(z.string()).check(z.minLength(1)), DEFAULT_DIGEST.command, "a non-empty list of strings"),
  binary: setting(text, DEFAULT_DIGEST.binary, "a string"),
  model: setting(text, DEFAULT_DIGEST.model, "a string"),
  maxEntries: setting(nonNegative, DEFAULT_DIGEST.maxEntries, "a non-negative number"),
  maxCalls: setting(nonNegative, DEFAULT_DIGEST.maxCalls, "a non-negative number"),
  timeoutSec: setting(nonNegative, DEFAULT_DIGEST.timeoutSec, "a non-negative number"),
  reportCommand: setting(text, DEFAULT_DIGEST.reportCommand, "a string"),
  mail: MAIL_SCHEMA,
  archiveUnused: setting(z.boolean(), DEFAULT_DIGEST.archiveUnused, "true or false"),
  consolidate: setting(z.boolean(), DEFAULT_DIGEST.consolidate, "true or false"),
  reviewMerges: setting(z.boolean(), DEFAULT_DIGEST.reviewMerges, "true or false"),
}) satisfies z.ZodMiniType<DigestSettings, unknown>;
