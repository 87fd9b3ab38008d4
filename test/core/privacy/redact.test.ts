import { describe, expect, it } from "vitest";
import { NOTES_CLOSE, NOTES_OPEN, QUOTED_NOTES, RECALL_HEADER } from "../../../src/core/text/recall-header";
import { findSecrets, hintsIn, redactSecrets, sanitize, SECRET_PATTERNS, stripPrivate, stripRecallBlock } from "../../../src/core/privacy/redact";
import { NOT_SECRETS, SECRET_CASES } from "../../fixtures/secrets";
import { ALL_NOT_SECRETS, ALL_SECRET_CASES as ALL_CASES, UNMARKED_PROSE_CASES } from "../../fixtures/secret-sets";

// What a reader sees of the output: invisible characters and line breaks do not hide a key.
const seen = (s: string): string => s.replace(/[\u00AD\u180E\u200B-\u200D\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/g, "").replace(/\s*\n\s*/g, "");

describe("redactSecrets", () => {
  it.each(ALL_CASES.map((c) => [c.name, c] as const))("removes a %s", (_, { secret, template, value }) => {
    const text = template.replace("%s", secret);
    const out = redactSecrets(text);
    // No long piece of the secret may survive, not just the whole of it, nor one put back together
    // from pieces a line break or an invisible character split.
    expect(seen(out)).not.toContain(value);
    for (let i = 0; i + 12 <= value.length; i += 4) expect(seen(out)).not.toContain(value.slice(i, i + 12));
    expect(out).toContain("[REDACTED]");
    expect(findSecrets(out)).toEqual([]);
    expect(findSecrets(text).length).toBeGreaterThan(0);
    // Redacting twice changes nothing: the queue redacts a turn, the digest its inbox again.
    expect(redactSecrets(out)).toBe(out);
  });

  it("has at least 60 shapes in its table, and a case for every pattern", () => {
    expect(SECRET_CASES.length).toBeGreaterThanOrEqual(60);
    const hit = new Set(ALL_CASES.flatMap((c) => findSecrets(c.template.replace("%s", c.secret))));
    expect(SECRET_PATTERNS.map((p) => p.id).filter((id) => !hit.has(id))).toEqual([]);
  });

  it.each(ALL_NOT_SECRETS)("leaves ordinary text alone: %s", (text) => {
    expect(redactSecrets(text)).toBe(text);
    expect(findSecrets(text)).toEqual([]);
  });
});

describe("redactSecrets keeps everything around a secret as written", () => {
  const KEY = "sk_live_" + "51HxQ2kLmN8pRtY7vW3zA9bC";
  const ANT = "sk-ant-api03-" + "Xq7Lm2Nk9Pz4Rt8Vw3Yb6Cd1Fg5Hj0KsAaBbCcDdEeFfGgHhIiJjKkLlMmNnOoPpQqRrSsTtUuVvWwXxYyZz012345-AbCdEfAA";
  const PW = "hX9k2LmQ7vPz";
  it.each([
    // The next line is not the rest of a key hidden up to its line's end: it stays.
    ["DB_PASSWORD=hunter2hunter2\nDB_HOST=localhost", "DB_PASSWORD=[REDACTED]\nDB_HOST=localhost"],
    [`STRIPE_SECRET_KEY=${KEY}\nPORT=3000`, "STRIPE_SECRET_KEY=[REDACTED]\nPORT=3000"],
    ["```\nSTRIPE_SECRET_KEY=" + KEY + "\nNODE_ENV=production\n```", "```\nSTRIPE_SECRET_KEY=[REDACTED]\nNODE_ENV=production\n```"],
    [`here is my key ${ANT}\nTypeScript errors remain`, "here is my key [REDACTED]\nTypeScript errors remain"],
    [`A_KEY=${KEY}\nDB_HOST=localhost\n\nok`, "A_KEY=[REDACTED]\nDB_HOST=localhost\n\nok"],
    // A key wrapped across two lines is hidden on both, and the break and indentation stay.
    ["value: sk-or-v1-" + "e9c1a7" + "\n      " + "50d3434611df59b019ae79b32c0c664f5", "value: [REDACTED]\n      [REDACTED]"],
    // A name with no value on its line does not take the next line's name as its value.
    ["password:\nusername: admin", "password:\nusername: admin"],
    ["token:\n  expiry: 3600s", "token:\n  expiry: 3600s"],
    ["auth:\n  enabled: true", "auth:\n  enabled: true"],
    ["auth:\n  postgresPassword: pyFETX!oiNa8", "auth:\n  postgresPassword: [REDACTED]"],
    ["credentials:\n  accessKeyId: minioadmin\n  secretAccessKey: " + PW + PW, "credentials:\n  accessKeyId: minioadmin\n  secretAccessKey: [REDACTED]"],
    // The value ends where the text around it closes, or another parameter or sentence begins.
    [`[login](https://app/login?token=${PW})`, "[login](https://app/login?token=[REDACTED])"],
    [`https://app/cb?token=${PW}&state=xyz&lang=en`, "https://app/cb?token=[REDACTED]&state=xyz&lang=en"],
    [`**password: ${PW}**`, "**password: [REDACTED]**"],
    [`{password: ${PW}}`, "{password: [REDACTED]}"],
    [`connect(password=${PW})`, "connect(password=[REDACTED])"],
    [`PASSWORD=${PW}。然后重启服务`, "PASSWORD=[REDACTED]。然后重启服务"],
    // Inside a value, the same characters are the value's: nothing of it is left.
    [`PASSWORD=ab)cd${PW}`, "PASSWORD=[REDACTED]"],
    [`PASSWORD=ab&cd${PW}`, "PASSWORD=[REDACTED]"],
  ])("%j", (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
    expect(redactSecrets(expected)).toBe(expected);
  });
});

describe("redactSecrets on values a name says secret that are not", () => {
  // Found by a review of redaction (which saw its code): ordinary values redacted where a name
  // says secret, and secrets of the same shapes, which must still be hidden.
  const KEEP = [
    "ANTHROPIC_MODEL=claude-sonnet-4-20250514",
    "ANTHROPIC_MODEL=claude-opus-4-1-20250805",
    "export ANTHROPIC_SMALL_FAST_MODEL=claude-3-5-haiku-20241022",
    "DEPLOY_SHA=4f2a9c8e1b7d3f6a0e5c2b9d8a7f6e5d4c3b2a19",
    "GITHUB_SHA=4f2a9c8e1b7d3f6a0e5c2b9d8a7f6e5d4c3b2a19",
    "IMAGE_TAG=2024.11.30-build.1234-abcdef",
    "S3_BUCKET=acme-prod-assets-eu-west-1-123456789012",
    "GCP_PROJECT=acme-analytics-prod-417203",
    "OTEL_SERVICE_NAME=checkout-service-v2-eu-west-1",
    "API_BASE_PATH=api/v1/internal/services/2024",
    "token_count: 1534201",
    "TOKEN_LIMIT=200000",
    "AUTH_TIMEOUT_MS=300000",
    "ACCESS_TOKEN_LIFETIME=604800",
    "SECRET_ROTATION_PERIOD=2592000",
    "AUTH_ISSUER=https://accounts.google.com",
    "TOKEN_AUDIENCE=https://api.acme.dev",
    "AUTH_DOMAIN=acme.eu.auth0.com",
    "AUTH_PROVIDER=github-enterprise",
    "auth_provider: google",
    "secret_arn: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    "git -c credential.helper=osxkeychain push",
    "PASSWORD_HASHER=argon2id",
    "signature_algorithm: HMAC-SHA256",
    "AUTH_RATE_LIMIT=100/minute",
    "auth_method: oauth2_pkce",
    "token_storage: localStorage",
    "const password = req.body.password;",
    "const user = { email, password: hashedPassword };",
    "return { token: session.accessToken, user };",
    "api_key = args.api_key",
    "\tPassword: cfg.DBPassword,",
    'password = form.cleaned_data["password"]',
    'let token = env::var("GITHUB_TOKEN")?;',
  ];
  const HIDE = [
    "DB_PASSWORD=Xk9#mP2$vL8q",
    "SECRET_KEY=django-insecure-8f3k2l9x0q7w5e1r",
    "GITHUB_TOKEN=ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "API_KEY=9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "AUTH_TOKEN=aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW",
    "DEPLOY_KEY_ID_SECRET=Zx8Cv7Bn6Mq5Wr4Et3Yu2",
    "STRIPE_API_KEY=sk_test_" + "51HxQ2kLmN8pRtY7vW3zA9bC",
    "export SESSION_SECRET=f7A9c2E4b6D8a0C1e3G5i7K9",
    "password: Tr0ub4dor&3",
    "MY_SERVICE_TOKEN=v2.local.Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9",
    "SIGNING_SECRET=4b8d2f6a1c9e3b7d5f0a2c4e6b8d0f1a",
    'client_secret = "Gx7Kp2Lm9Qr4Ts6Vw8Yz1Ab3"',
    "PASSWORD=hunter2hunter2",
    "TOKEN=abcDEF123456ghiJKL789",
    "password: s3cr3tP4ss!",
  ];
  it.each(KEEP)("leaves %j as written", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
  it.each(HIDE)("still hides the value of %j", (text) => {
    expect(redactSecrets(text)).toContain("[REDACTED]");
  });
});

describe("hintsIn", () => {
  const HINTS = [...new Set(SECRET_PATTERNS.flatMap((p) => p.hints ?? []))];
  const ANY_CASE = [...new Set(SECRET_PATTERNS.flatMap((p) => p.hintsAnyCase ?? []))];
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // What a search for each hint gives: includes, and a pattern that ignores case as the secret patterns do.
  const bySearch = (text: string) => ({
    exact: HINTS.filter((h) => text.includes(h)).sort(),
    anyCase: ANY_CASE.filter((h) => new RegExp(escape(h), "i").test(text)).sort(),
  });
  // Both ways of finding them, which must agree: one by one (a short text, such as a prompt) and by
  // the table (a long one, such as a note or a transcript).
  const found = (text: string) => {
    const sorted = (f: ReturnType<typeof hintsIn>) => ({ exact: [...f.exact].sort(), anyCase: [...f.anyCase].sort() });
    const table = sorted(hintsIn(text, true));
    expect(sorted(hintsIn(text)), text).toEqual(table);
    return table;
  };
  const TEXTS = [...SECRET_CASES.map((c) => c.template.replace("%s", c.secret)), ...NOT_SECRETS];

  it("finds what a search for each finds, on the secret table and on plain text", () => {
    for (const text of TEXTS) expect(found(text), text).toEqual(bySearch(text));
  });

  it("finds hints at either end, inside longer ones, in any case and in non-Latin text", () => {
    // The Kelvin sign lowers to "k" and "İ" to two characters: neither is a letter a pattern that
    // ignores case takes for an ASCII one.
    const texts = [
      "",
      "g",
      "gh",
      "=",
      "xghp_",
      "sk-ant-",
      "ask-ant-x",
      "the 密码是 here",
      "パスワード",
      "a\nmachine",
      "patsk-gl",
      "x://",
      "KEY",
      "Api_Key",
      "sIg",
      "ſig",
      "aUTHORIZATION:",
      "\u212Aey",
      "my \u212AEY and İ token",
      "İpassword",
    ];
    for (const text of texts) expect(found(text), text).toEqual(bySearch(text));
    expect(found("sk-ant-").exact).toEqual(["sk-", "sk-ant-"]);
    expect(found("My_PassWord").anyCase).toEqual(["assword", "pass", "password"]);
  });

  it("finds the same in a text too long to search hint by hint", () => {
    const text = `${"lorem ipsum ".repeat(300)} export GITHUB_TOKEN=ghp_x and my PassWord`;
    expect(text.length).toBeGreaterThan(2048);
    expect(found(text)).toEqual(bySearch(text));
    expect(found(text).exact).toContain("ghp_");
  });

  it("agrees with a search for each on text made of pieces of hints", () => {
    // Pieces of hints glued together make hints appear across the joins, where a scanner that
    // steps wrongly would miss them.
    const pieces = [...HINTS, ...ANY_CASE, ...ANY_CASE.map((h) => h.toUpperCase())]
      .flatMap((h) => [h, h.slice(0, 1), h.slice(1), h.slice(0, -1)])
      .filter((p) => p !== "");
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 800; i++) {
      const text = Array.from({ length: 1 + next(12) }, () => pieces[next(pieces.length)] + (next(3) === 0 ? " " : "")).join("");
      expect(found(text), text).toEqual(bySearch(text));
    }
  });

  it("never hides a match: a text a pattern matches holds its hints and what it needs", () => {
    // Flipping the case of letters tries the any-case hints as the patterns that ignore case read text.
    const flip = (t: string, k: number): string =>
      [...t].map((c, i) => ((i + k) % 3 === 0 ? c.toUpperCase() : (i + k) % 3 === 1 ? c.toLowerCase() : c)).join("");
    for (const pattern of SECRET_PATTERNS) {
      const texts = pattern.hintsAnyCase ? TEXTS.flatMap((t) => [t, flip(t, 0), flip(t, 1), flip(t, 2)]) : TEXTS;
      for (const text of texts) {
        pattern.re.lastIndex = 0;
        if (!pattern.re.test(text)) continue;
        const f = hintsIn(text);
        if (pattern.hints)
          expect(
            pattern.hints.some((h) => f.exact.has(h)),
            `${pattern.id}: ${text}`,
          ).toBe(true);
        if (pattern.hintsAnyCase)
          expect(
            pattern.hintsAnyCase.some((h) => f.anyCase.has(h)),
            `${pattern.id}: ${text}`,
          ).toBe(true);
        for (const n of pattern.needs ?? []) expect(text, pattern.id).toContain(n);
      }
      pattern.re.lastIndex = 0;
    }
  });
});

describe("stripPrivate and stripRecallBlock", () => {
  it("drops private passages, closed or not", () => {
    expect(stripPrivate("a <private>secret plan</private> b <PRIVATE>x</PRIVATE> c")).toBe("a  b  c");
    expect(stripPrivate("keep <private>never closed")).toBe("keep ");
  });

  it("drops a nested private passage whole, tail included", () => {
    expect(stripPrivate("a <private>x <private>y</private> TAIL</private> b")).toBe("a  b");
    expect(stripPrivate("a <Private>x <private>y</private> still hidden")).toBe("a ");
    expect(stripPrivate("stray </private> closing")).toBe("stray  closing");
  });

  it("drops our injected recall block, framed or an earlier release's, and keeps the rest", () => {
    const framed = `before\n${NOTES_OPEN}\n${RECALL_HEADER} ${QUOTED_NOTES}\n- /v/a.md — desc\n- /v/b.md — other\n${NOTES_CLOSE}\nafter`;
    expect(stripRecallBlock(framed)).toBe("before\nafter");
    const legacy = `before\n${RECALL_HEADER}\n- /v/a.md — desc\n- /v/b.md — other\nafter`;
    expect(stripRecallBlock(legacy)).toBe("before\nafter");
  });

  it("keeps a person's text that quotes the header or a marker inside a line, and an unclosed frame", () => {
    const quoted = `It prints "${RECALL_HEADER}" and then:\n- /v/a.md — desc\nand more.`;
    expect(stripRecallBlock(quoted)).toBe(quoted);
    const inline = `The block opens with ${NOTES_OPEN} and closes with ${NOTES_CLOSE}.\n- /v/a.md — x`;
    expect(stripRecallBlock(inline)).toBe(inline);
    const open = `${NOTES_OPEN}\nnever closed\nstill mine`;
    expect(stripRecallBlock(open)).toBe(open);
    // A header line with no card lines after it is the person's too.
    expect(stripRecallBlock(`${RECALL_HEADER}\nplain text`)).toBe(`${RECALL_HEADER}\nplain text`);
  });

  it("sanitize does all three", () => {
    const out = sanitize(`x <private>p</private>\n${NOTES_OPEN}\n${RECALL_HEADER}\n- /v/a.md — d\n${NOTES_CLOSE}\nDB_PASSWORD=hunter2hunter2`);
    expect(out).not.toMatch(/hunter2|a\.md|<private>/);
  });
});

describe("redaction on hostile input", () => {
  // Each shape repeats what one pattern scans, on one long line, as a pasted log would; an
  // unbounded run in a pattern made these take seconds to minutes (a Stop hook has 30 s).
  it.each([
    ["auth.token.", "a key name with dots"],
    ["SECRET_", "a key name with underscores"],
    ["a.b-", "a URL scheme"],
    ["curl ", "curl flags"],
    ["docker login ", "login flags"],
    ["密码是", "a password in prose"],
    [";AAA=a1/", "env assignments"],
    ["sk-", "a key prefix"],
    ["://a?key=", "a URL's query"],
    ["https://a/b/c/hooks/x", "a hook's path"],
    ["LS0tLS1CRUdJTi", "base64 armour"],
    ['password: "a ', "a quoted passphrase never closed"],
    ["--pass-", "a passphrase flag's name"],
    ["\n  db_pass: a b", "passphrase lines"],
  ])("stays linear on 1 MB of %j (%s)", (unit) => {
    // A quadratic pattern takes minutes on this text, past the test's timeout; linear, well under a second.
    const text = unit.repeat(Math.ceil(1_000_000 / unit.length)) + " https://example.com/ end";
    sanitize(text);
  });

  // Found in review: a name, then a million spaces or tabs, then a word; and a line of
  // assignments whose values read as words, each of which looked at the rest of the line.
  it.each([
    ["пароль", " "],
    ["password", " "],
    ["password", "\t"],
    ["密码", " "],
    ["mot de passe", " "],
  ])("stays linear on %j and 1 MB of %j", (name, space) => {
    sanitize(name + space.repeat(1_000_000) + "x");
  });
  it("stays linear on 1 MB of assignments whose values read as words", () => {
    sanitize("password: stored ".repeat(60_000));
  });
});

describe("found in review", () => {
  it.each([
    ["an upper-case password word", "PASSWORT: Geheim123!", "Geheim123!"],
    ["a Cyrillic one in capitals", "ПАРОЛЬ: Secret123x", "Secret123x"],
    ["a passcode in capitals", "PASSCODE: 884213x", "884213x"],
    ["a personal access token flag", "az devops login --pat 9f8a7b6c5d4e3f2a1b0c", "9f8a7b6c5d4e3f2a1b0c"],
    ["htpasswd with more flags", "htpasswd -b -c .htpasswd admin S3cretPass9", "S3cretPass9"],
    ["a token after a certificate that never ends", "-----BEGIN CERTIFICATE----- goes first\nlater: q8ZbT2xLmN4vR7sK1pW9eY3cQ5", "q8ZbT2xLmN4vR7sK1pW9eY3cQ5"],
    ["a key beside a URL in minified JSON", '{"docs":"https://x.io","id":"q8ZbT2xLmN4vR7sK1pW9eY3cQ5"}', "q8ZbT2xLmN4vR7sK1pW9eY3cQ5"],
  ])("redacts %s", (_, text, value) => {
    expect(redactSecrets(text)).not.toContain(value);
  });

  it("keeps the next sentence's word when a key ends a line, and a short scheme-like word is not a scheme", () => {
    const key = ["ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"].join("");
    expect(redactSecrets(`token ${key}\nrefactoring the code`)).toBe("token [REDACTED]\nrefactoring the code");
    expect(redactSecrets("Authorization: Ks8dj2Lq0pZx7 expired.")).not.toContain("Ks8dj2Lq0pZx7");
  });
});

describe("found in a review of what still got through", () => {
  // Each secret in two pieces, so this file holds no scannable literal.
  const j = (...parts: string[]): string => parts.join("");
  const UUID = j("2f6a9c1e-4b7d-", "4e3a-9f8c-1d5e7b2a6c90");
  it.each([
    // The service's own URL stays, so the reader knows what was there; the secret part goes.
    [
      `curl -X POST https://open.feishu.cn/open-apis/bot/v2/hook/${UUID} -d @msg.json`,
      "curl -X POST https://open.feishu.cn/open-apis/bot/v2/hook/[REDACTED] -d @msg.json",
    ],
    [`(https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${UUID})`, "(https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=[REDACTED])"],
    [
      `https://f.azurewebsites.net/api/Go?code=${j("aB3dE5fG7hJ9kL1m", "N3pQ5rS7tU9vW1xY")}&name=x`,
      "https://f.azurewebsites.net/api/Go?code=[REDACTED]&name=x",
    ],
    [`https://chat.example.com/hooks/${j("xq7r3mfo9bgzj", "p5kcw1d8etn4a")}\nnext line`, "https://chat.example.com/hooks/[REDACTED]\nnext line"],
    [`git push https://${j("x7Kq9mZ2pL4vN8rT", "3wY6bH1cF5jD0sA9")}@git.example.com/a/b.git main`, "git push https://[REDACTED]@git.example.com/a/b.git main"],
    [`  tls.key: ${j("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0t", "LQpNSUlFb3dJQkFBS0NBUUVB")}\n  tls.crt: x`, "  tls.key: [REDACTED]\n  tls.crt: x"],
    [`部署令牌：${j("a94a8fe5ccb19ba6", "1c4c0873d391e987982fbbd3")}，明天过期`, "部署令牌：[REDACTED]，明天过期"],
    [`mosquitto_sub -u iot -P ${j("Zq8wX", "3vB6n")} -t '#'`, "mosquitto_sub -u iot -P [REDACTED] -t '#'"],
    [`my app password is ${j("abcd efgh ", "ijkl mnop")}.`, "my app password is [REDACTED]."],
  ])("%j", (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
    expect(redactSecrets(expected)).toBe(expected);
  });
});

describe("a passphrase of several words", () => {
  // The limit docs/reliability.md names: words after "is" in a sentence, with no quote, digit or
  // symbol, cannot be told from the sentence. Written blind as secrets, they are left as written
  // here, like "the password is correct but login still fails"; the day a shape tells them apart,
  // this fails and they join the others.
  it.each(UNMARKED_PROSE_CASES.map((c) => [c.name, c] as const))("leaves %s, said in prose unmarked", (_, { secret, template }) => {
    const text = template.replace("%s", secret);
    expect(redactSecrets(text)).toBe(text);
  });
  it.each([
    "The password is correct but login still fails.",
    "The passphrase is four random dictionary words.",
    "Das Passwort ist korrekt aber Login schlägt fehl.",
    "Password hashing: bcrypt cost 12",
    "Password policy: NIST 800-63B compliant",
    '{"newPassword": "Nova lozinka"}',
    "secret: Top secret",
    "- **Password:** handled by Okta SSO",
    "- **Passphrase:** stored in Keychain Access",
    "Password: check team vault entry",
    'cd ~/Downloads && unzip site.zip && mkdir -p "Site Backup"',
    'ffmpeg --first-pass "two pass mode"',
    "- name: docker-secret\n  value: regcred",
    "- name: REFRESH_TOKEN\n  value: 3600000",
    "# PWD = the current working directory",
    "# password = the user's password",
    // A third look: a form's labels in XML, notes' words after a label, a store named by a word.
    "<forgotPassword>Forgot your password?</forgotPassword>",
    "<minPassword>8</minPassword>",
    "password: just ask Dave",
    "- Password: Front desk has it",
    "password: Azure Key Vault",
    "passphrase: four random words",
    "secret_backend: hashicorp vault",
  ])("leaves %j, found in a second review, as written", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
  it.each([
    ['DB_PASSWORD="Summer in the city of Paris 2024"', 'DB_PASSWORD="[REDACTED]"'],
    ['GPG_PASSPHRASE="Tramonto parola segreta 42"', 'GPG_PASSPHRASE="[REDACTED]"'],
    ['PASSWORD="passe-partout 9 luna"', 'PASSWORD="[REDACTED]"'],
    ["<password>password123</password>", "<password>[REDACTED]</password>"],
    ["ALTER USER app PASSWORD =\n            'S3cr3t!pass';", "ALTER USER app PASSWORD =\n            '[REDACTED]';"],
    ["SECRET_KEY=__abcdef123456xyz", "SECRET_KEY=[REDACTED]"],
    ["PASSWORD=**Hunter2secret", "PASSWORD=[REDACTED]"],
    ["PASSWORD_STORE=N3wP4ss!Word", "PASSWORD_STORE=[REDACTED]"],
    ["TOKEN_ENGINE=8f7e6d5c4b3a2910", "TOKEN_ENGINE=[REDACTED]"],
    // A passphrase that opens like a sentence keeps at least what it lost before: its first word.
    ["DB_PASS=Sleeping bear dunes", "DB_PASS=[REDACTED] bear dunes"],
  ])("hides %j whole, found in a second review", (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each([
    // The whole of it goes, not its first word; its quotes, a comment after it and the next line stay.
    ['DB_PASSWORD="correct horse battery staple"\nDB_HOST=db', 'DB_PASSWORD="[REDACTED]"\nDB_HOST=db'],
    ["  db_password: correct horse battery staple  # rotated in May\n  user: app", "  db_password: [REDACTED]  # rotated in May\n  user: app"],
    ['{"password": "tr0ub4dor &3 and more", "user": "app"}', '{"password": "[REDACTED]", "user": "app"}'],
    ["gpg --batch --passphrase 'lunar otter quietly sings' -d notes.gpg", "gpg --batch --passphrase '[REDACTED]' -d notes.gpg"],
    ["  adminPassword: violet tundra ramen oxide", "  adminPassword: [REDACTED]"],
    // Found in review: notes' labels, connection strings, comments, command lines, and values
    // whose first word alone was hidden before.
    ["- **WiFi password:** purple monkey dishwasher", "- **WiFi password:** [REDACTED]"],
    ["Server=db;Password=correct horse battery staple;Database=app", "Server=db;Password=[REDACTED];Database=app"],
    ["password = correct horse battery staple // rotated in March", "password = [REDACTED] // rotated in March"],
    ["The password is **correct horse 7 battery staple**", "The password is **[REDACTED]**"],
    ["mysql -u root -p'correct horse battery staple' app", "mysql -u root -p'[REDACTED]' app"],
    ["curl -u 'admin:correct horse battery staple' https://x", "curl -u 'admin:[REDACTED]' https://x"],
    ['<add key="DbPassword" value="correct horse battery staple"/>', '<add key="DbPassword" value="[REDACTED]"/>'],
    ['password: "golden key lime pie"', 'password: "[REDACTED]"'],
    ['password: "Random orbit gravel sunset"', 'password: "[REDACTED]"'],
    // One word after a note's bold label, and under a Kubernetes name/value pair, hid nothing.
    ["- **Password:** Xk9#mP2$vL8q", "- **Password:** [REDACTED]"],
    ["**Password**: Xk9#mP2$vL8q", "**Password**: [REDACTED]"],
    ['- name: DB_PASSWORD\n  value: "Xk9#mP2$vL8q"', '- name: DB_PASSWORD\n  value: "[REDACTED]"'],
  ])("%j", (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
    expect(redactSecrets(expected)).toBe(expected);
  });

  // Where a passphrase would go, a sentence or a label is not one, nor is its first word.
  it.each([
    '"forgot_password": "Forgot your password?"',
    'password_help: "Choose at least 12 characters"',
    'PASSWORD_PROMPT = "Enter your password"',
    "password: required for all users",
    "bypass: cache layer",
    'secret: "This is a secret message"',
    "password: see the team's vault entry",
    // Found in review: translations of "password", buttons, settings, rules, code and notes.
    "password: Mật khẩu",
    '"password": "كلمة المرور"',
    '"showPassword": "Show characters"',
    "reset_password: Send reset link",
    "<requirePassword>false</requirePassword>",
    "<hashedPassword>bcrypt</hashedPassword>",
    "The password is valid for thirty days",
    "The password is 12 characters long",
    "Das Passwort ist mindestens zwölf Zeichen lang",
    "**Password:** 12 characters minimum",
    "    password = hash_pw(raw) if raw else None",
    "secret = base64.b64encode(raw) if raw else b''",
    "PWD=/Users/me/My Projects/app",
    "Password: lives in Bitwarden",
    "- Pass: 3 yards to Smith",
    "ssh-keygen -s ca -I host -n 'alice bob' key.pub",
    "- name: SECRET\n  value: enabled",
  ])("leaves %j as written", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});
