/** The mail sender's own bundle: nodemailer, loaded by the digest only when it mails a report, never by a hook (see src/core/digest/mail.ts). */

export { sendMail } from "./src/mail/send";
