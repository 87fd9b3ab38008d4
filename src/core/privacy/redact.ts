/** Keeps secrets and private passages out of everything Vault Memory writes. */

import { RECALL_HEADER } from "../recall/recall-header";

export const REDACTED = "[REDACTED]";

export interface SecretPattern {
  id: string;
  /** Must be global. Group 1, when present, is kept (a key's name), and the rest replaced. */
  re: RegExp;
}

// Value-shaped secrets of common providers, then generic shapes. Order matters: specific first,
// so a GitHub token inside `GITHUB_TOKEN=...` is named for what it is.
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { id: "private-key", re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)/g },
  { id: "anthropic-key", re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { id: "openai-key", re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { id: "github-token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { id: "gitlab-token", re: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { id: "aws-access-key", re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b/g },
  { id: "google-api-key", re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: "slack-token", re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { id: "slack-webhook", re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]+/g },
  { id: "stripe-key", re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { id: "npm-token", re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: "huggingface-token", re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { id: "sendgrid-key", re: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  { id: "twilio-key", re: /\bSK[0-9a-fA-F]{32}\b/g },
  { id: "jwt", re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { id: "bearer-token", re: /(\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{12,}/g },
  { id: "basic-auth-header", re: /(\bAuthorization:\s*Basic\s+)[A-Za-z0-9+/=]{8,}/gi },
  { id: "url-password", re: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi },
  // KEY=value and KEY: value where the name says it is secret (.env files, shell exports, YAML).
  {
    id: "secret-assignment",
    re: /(\b[A-Za-z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CLIENT_?SECRET|AUTH|CREDENTIALS?)[A-Za-z0-9_.-]*["']?\s*[:=]\s*["']?)(?!\[REDACTED\])[^\s"'`,;]{6,}/gi,
  },
  // Any .env-style line whose value is long and random-looking.
  { id: "env-line", re: /(^|\n)((?:export\s+)?[A-Z][A-Z0-9_]{2,}=["']?)(?![^\n]*\[REDACTED\])[A-Za-z0-9+/_\-.]{24,}/g },
];

/** Replaces every secret-shaped value with [REDACTED]; keeps names, so the text still reads. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const { id, re } of SECRET_PATTERNS) {
    re.lastIndex = 0;
    out = out.replace(re, (...m: unknown[]) => {
      const groups = m.slice(1, -2).filter((g): g is string => typeof g === "string");
      if (id === "env-line") return `${groups[0]}${groups[1]}${REDACTED}`;
      return groups.length > 0 ? `${groups[0]}${REDACTED}` : REDACTED;
    });
  }
  return out;
}

/** Which secret shapes `text` holds, for the linter: ids only, never the values. */
export function findSecrets(text: string): string[] {
  const found = new Set<string>();
  for (const { id, re } of SECRET_PATTERNS) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) if (!m[0].includes(REDACTED)) found.add(id);
  }
  return [...found];
}

/** Removes `<private>…</private>` passages; an unclosed one hides everything after it. */
export function stripPrivate(text: string): string {
  return text.replace(/<private>[\s\S]*?(?:<\/private>|$)/gi, "");
}

/** Removes what our own recall hook added, so the queue never stores our injected lines. */
export function stripRecallBlock(text: string): string {
  const at = text.indexOf(RECALL_HEADER);
  if (at < 0) return text;
  const lines = text.slice(at + RECALL_HEADER.length).split("\n");
  let i = 1;
  while (i < lines.length && lines[i].startsWith("- ")) i++;
  return stripRecallBlock(text.slice(0, at) + lines.slice(i).join("\n"));
}

/** Everything that must happen to text before it touches disk. */
export function sanitize(text: string): string {
  return redactSecrets(stripRecallBlock(stripPrivate(text)));
}
