import { describe, expect, it } from "vitest";
import { RECALL_HEADER } from "../../../src/core/recall/recall-header";
import { findSecrets, redactSecrets, sanitize, stripPrivate, stripRecallBlock } from "../../../src/core/privacy/redact";

// Each secret is assembled at run time so that this file itself holds no scannable secret.
const j = (...parts: string[]): string => parts.join("");
const SECRETS: [string, string, string][] = [
  ["Anthropic API key", j("sk-ant-api03-", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"), "my key is %s ok"],
  ["OpenAI key", j("sk-proj-", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"), "OPENAI=%s"],
  ["OpenAI legacy key", j("sk-", "abcdefghijklmnopqrstuvwxyz123456"), "use %s"],
  ["GitHub token", j("ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"), "token %s"],
  ["GitHub fine-grained PAT", j("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"), "%s"],
  ["GitLab token", j("glpat-", "xYz123AbC456dEf789gHi0"), "GL=%s"],
  ["AWS access key id", j("AKIA", "IOSFODNN7EXAMPLE"), "aws key %s"],
  ["AWS secret in env", j("AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), "%s"],
  ["Google API key", j("AIza", "SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"), "maps key: %s"],
  ["Slack bot token", j("xoxb-", "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"), "%s"],
  ["Slack webhook", j("https://hooks.slack.com/services/", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"), "post to %s"],
  ["Stripe live key", j("sk_live_", "51H8abcdEFGHijklMNOPqrst"), "%s"],
  ["npm token", j("npm_", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"), "//registry.npmjs.org/:_authToken=%s"],
  ["Hugging Face token", j("hf_", "abcdefghijklmnopqrstuvwxyzABCDEF"), "%s"],
  ["SendGrid key", j("SG.", "abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefg"), "%s"],
  ["JWT", j("eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"), "cookie=%s"],
  ["Bearer token", j("Bearer ", "abc123DEF456ghi789JKL0"), "Authorization: %s"],
  ["Basic auth header", j("Authorization: Basic ", "dXNlcjpwYXNzd29yZDEyMw=="), "%s"],
  ["password in URL", j("postgres://admin:", "S3cr3tP4ss", "@db.internal:5432/app"), "DATABASE_URL=%s"],
  ["password assignment", j("DB_PASSWORD=", "hunter2hunter2"), "%s"],
  ["YAML secret", j("client_secret: ", "9f8e7d6c5b4a3210fedc"), "%s"],
  ["quoted JSON token", j('"api_key": "', "live-1234567890abcdef", '"'), "{%s}"],
  ["env line with random value", j("STRIPE_WEBHOOK=", "whsec9h8g7f6e5d4c3b2a1z0y9x8w7v6"), "%s"],
  ["private key block", j("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7V", "x9y8z7\nAbCdEf==\n-----END RSA PRIVATE KEY-----"), "key:\n%s\n"],
  ["OpenSSH private key", j("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "BG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"), "%s"],
];

describe("redactSecrets", () => {
  it.each(SECRETS)("removes a %s", (_, secret, template) => {
    const text = template.replace("%s", secret);
    const out = redactSecrets(text);
    // No long piece of the secret may survive, not just the whole of it.
    // A URL keeps its host; only the password goes.
    const value = secret.includes("://") && secret.includes("@") ? secret.slice(secret.lastIndexOf(":", secret.indexOf("@")) + 1, secret.indexOf("@")) : secret.replace(/^(?:[A-Za-z_ ]+[:=]\s*|Bearer |Authorization: Basic |"api_key": ")/, "");
    expect(out).not.toContain(value);
    for (let i = 0; i + 12 <= value.length; i += 4) expect(out).not.toContain(value.slice(i, i + 12));
    expect(out).toContain("[REDACTED]");
    expect(findSecrets(out)).toEqual([]);
    expect(findSecrets(text).length).toBeGreaterThan(0);
  });

  it("has at least 20 shapes in its table", () => {
    expect(SECRETS.length).toBeGreaterThanOrEqual(20);
  });

  it.each([
    "The token bucket refills every second.",
    "Set PASSWORD_MIN_LENGTH in the policy doc.",
    "git checkout -b feature/sk-learn-upgrade",
    "https://example.com/path?q=1",
    "export PATH=/opt/homebrew/bin:$PATH",
    "commit 3f2a9c1 fixed the bug",
  ])("leaves ordinary text alone: %s", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("stripPrivate and stripRecallBlock", () => {
  it("drops private passages, closed or not", () => {
    expect(stripPrivate("a <private>secret plan</private> b <PRIVATE>x</PRIVATE> c")).toBe("a  b  c");
    expect(stripPrivate("keep <private>never closed")).toBe("keep ");
  });

  it("drops our injected recall block and keeps the rest", () => {
    const text = `before\n${RECALL_HEADER}\n- /v/a.md — desc\n- /v/b.md — other\nafter`;
    expect(stripRecallBlock(text)).toBe("before\nafter");
  });

  it("sanitize does all three", () => {
    const out = sanitize(`x <private>p</private> ${RECALL_HEADER}\n- /v/a.md — d\nDB_PASSWORD=hunter2hunter2`);
    expect(out).not.toMatch(/hunter2|a\.md|<private>/);
  });
});
