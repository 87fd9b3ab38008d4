/** Keeps secrets and private passages out of everything Vault Memory writes or sends. */

import { RECALL_HEADER } from "../recall/recall-header";

export const REDACTED = "[REDACTED]";

export interface SecretPattern {
  id: string;
  /** Must be global. Group 1, when present, is kept (a key's name), and the rest replaced. */
  readonly re: RegExp;
  /**
   * Literals one of which any match contains. A pattern whose hints are all absent is not run:
   * the queue hook redacts every turn of a long transcript, and `includes` is far cheaper than
   * a regex scan, so seventy shapes cost about what a handful would.
   */
  hints?: readonly string[];
  /**
   * Literals every text it matches holds, all of them, in the match or beside it: a text without
   * one is not scanned either. A hint must be inside the match; url-password's "@" comes after.
   */
  needs?: readonly string[];
  /**
   * Hints for a pattern that ignores case: lower-case literals one of which any match holds in
   * some mix of cases. Only ASCII letters have another case here, as in a pattern without the
   * u flag.
   */
  hintsAnyCase?: readonly string[];
}

// The shapes follow the families of gitleaks' and secretlint's rule sets: a provider's token
// prefix where it has one (cheap and precise), then shapes that need their context (a key's name,
// a command's flag), then generic ones. Specific first, so a GitHub token inside
// `GITHUB_TOKEN=...` is named for what it is. A value already redacted is never matched again.
const B = "(?<![A-Za-z0-9_])"; // a token's start: not in the middle of a longer word
// Each pattern is compiled on first use: a text seldom holds the hints of more than a few, and
// building all of them cost the prompt hook about 0.3 ms before its embedding request could leave.
const p = (id: string, source: string, hints?: readonly string[], flags = "g", needs?: readonly string[], hintsAnyCase?: readonly string[]): SecretPattern => {
  let re: RegExp | undefined;
  return {
    id,
    get re() {
      return (re ??= new RegExp(source, flags));
    },
    hints,
    needs,
    ...(hintsAnyCase ? { hintsAnyCase } : {}),
  };
};

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // Key material: everything between the armour lines, and all that follows an unclosed one.
  p("private-key", String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)`, ["PRIVATE KEY"]),
  p("putty-private-key", String.raw`PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC: [0-9a-f]+|$)`, ["PuTTY-User-Key-File"]),
  p("age-secret-key", String.raw`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, ["AGE-SECRET-KEY-1"]),
  // AI providers.
  p("anthropic-key", String.raw`${B}sk-ant-[A-Za-z0-9_-]{20,}`, ["sk-ant-"]),
  // A key has digits; "sk-learn-compatible-interface" does not.
  p("openai-key", String.raw`${B}sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]{0,200}\d)[A-Za-z0-9_-]{20,}`, ["sk-"]),
  p("groq-key", String.raw`${B}gsk_[A-Za-z0-9]{40,}`, ["gsk_"]),
  p("replicate-token", String.raw`${B}r8_[A-Za-z0-9]{30,}`, ["r8_"]),
  p("perplexity-key", String.raw`${B}pplx-[A-Za-z0-9]{40,}`, ["pplx-"]),
  p("xai-key", String.raw`${B}xai-[A-Za-z0-9]{60,}`, ["xai-"]),
  p("huggingface-token", String.raw`${B}hf_[A-Za-z0-9]{30,}`, ["hf_"]),
  // Code hosts and package registries.
  p("github-token", String.raw`${B}(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`, ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
  p("gitlab-token", String.raw`${B}(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt)-[A-Za-z0-9_-]{20,}|${B}GR1348941[A-Za-z0-9_-]{20,}`, ["glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-", "GR1348941"]),
  p("bitbucket-token", String.raw`${B}ATBB[A-Za-z0-9_=.-]{28,}`, ["ATBB"]),
  p("npm-token", String.raw`${B}npm_[A-Za-z0-9]{36}`, ["npm_"]),
  p("pypi-token", String.raw`${B}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}`, ["pypi-"]),
  p("rubygems-key", String.raw`${B}rubygems_[a-f0-9]{48}`, ["rubygems_"]),
  p("nuget-key", String.raw`${B}oy2[a-z0-9]{43}`, ["oy2"]),
  p("docker-hub-token", String.raw`${B}dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}`, ["dckr_"]),
  p("clojars-token", String.raw`${B}CLOJARS_[a-z0-9]{60}`, ["CLOJARS_"]),
  // Clouds and hosting.
  p("aws-access-key", String.raw`${B}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "APKA", "AROA", "ASCA"]),
  // A secret access key is 40 characters of base64 with nothing to mark it but the word "aws"
  // or "secret" before it; both cases are required so that a 40-digit hex commit id never matches.
  // Its hints are the words it starts with, so a note without them is not scanned.
  p("aws-secret-key", String.raw`((?:aws|AWS|Aws|secret|Secret|SECRET)[^\n]{0,40}?)(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`, ["aws", "AWS", "Aws", "secret", "Secret", "SECRET"]),
  p("google-api-key", String.raw`${B}AIza[0-9A-Za-z_-]{35}`, ["AIza"]),
  p("google-oauth-token", String.raw`${B}ya29\.[0-9A-Za-z_-]{20,}`, ["ya29."]),
  p("google-refresh-token", String.raw`${B}1//0[0-9A-Za-z_-]{40,}`, ["1//0"]),
  p("google-client-secret", String.raw`${B}GOCSPX-[0-9A-Za-z_-]{28}`, ["GOCSPX-"]),
  p("azure-storage-key", String.raw`((?:AccountKey|SharedAccessKey|SharedSecret)\s*=\s*)[A-Za-z0-9+/=]{20,}`, ["AccountKey", "SharedAccessKey", "SharedSecret"], "gi"),
  p("azure-sas-signature", String.raw`((?:[?&;]|\b)sig=)[A-Za-z0-9%+/=]{16,}`, ["sig="], "gi"),
  p("azure-ad-client-secret", String.raw`${B}[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])`, ["Q~"]),
  p("digitalocean-token", String.raw`${B}do[opr]_v1_[a-f0-9]{64}`, ["_v1_"]),
  p("alibaba-access-key", String.raw`${B}LTAI[A-Za-z0-9]{20}(?![A-Za-z0-9])`, ["LTAI"]),
  p("heroku-key", String.raw`${B}HRKU-[A-Za-z0-9_-]{30,}`, ["HRKU-"]),
  p("databricks-token", String.raw`${B}dapi[a-f0-9]{32}(?:-\d)?`, ["dapi"]),
  p("doppler-token", String.raw`${B}dp\.(?:pt|st|sa|scim|audit)\.[A-Za-z0-9]{40,}`, ["dp."]),
  p("vault-token", String.raw`${B}hv[sbr]\.[A-Za-z0-9_-]{24,}`, ["hvs.", "hvb.", "hvr."]),
  p("terraform-token", String.raw`${B}[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`, [".atlasv1."]),
  p("pulumi-token", String.raw`${B}pul-[a-f0-9]{40}`, ["pul-"]),
  p("supabase-token", String.raw`${B}sbp_[a-f0-9]{40}`, ["sbp_"]),
  p("planetscale-token", String.raw`${B}pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=_.-]{32,}`, ["pscale_"]),
  p("fly-token", String.raw`${B}fm[12]_[A-Za-z0-9+/=_-]{40,}`, ["fm1_", "fm2_"]),
  // Payments and commerce.
  p("stripe-key", String.raw`${B}(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`, ["_live_", "_test_"]),
  p("stripe-webhook-secret", String.raw`${B}whsec_[A-Za-z0-9+/=]{24,}`, ["whsec_"]),
  p("shopify-token", String.raw`${B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, ["shp"]),
  p("square-token", String.raw`${B}(?:sq0atp|sq0csp)-[0-9A-Za-z_-]{22,}|${B}EAAA[A-Za-z0-9_-]{60,}`, ["sq0", "EAAA"]),
  p("braintree-token", String.raw`access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}`, ["access_token$"]),
  // Messaging and mail.
  p("slack-token", String.raw`${B}xox[abposrce]-[A-Za-z0-9-]{10,}`, ["xox"]),
  p("slack-app-token", String.raw`${B}xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]+`, ["xapp-"]),
  p("slack-webhook", String.raw`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+`, ["hooks.slack.com"]),
  p("discord-webhook", String.raw`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+`, ["/api/webhooks/"]),
  p("discord-bot-token", String.raw`${B}[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])`),
  p("telegram-bot-token", String.raw`${B}\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])`, [":AA"]),
  p("twilio-key", String.raw`${B}SK[0-9a-fA-F]{32}(?![A-Za-z0-9])`, ["SK"]),
  p("sendgrid-key", String.raw`${B}SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, ["SG."]),
  p("mailgun-key", String.raw`${B}key-[0-9a-f]{32}(?![A-Za-z0-9])`, ["key-"]),
  p("mailchimp-key", String.raw`${B}[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])`, ["-us0", "-us1", "-us2", "-us3", "-us4", "-us5", "-us6", "-us7", "-us8", "-us9"]),
  // Work tools and observability.
  p("linear-key", String.raw`${B}lin_(?:api|oauth)_[A-Za-z0-9]{40}`, ["lin_"]),
  p("notion-token", String.raw`${B}(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{32,})`, ["secret_", "ntn_"]),
  p("atlassian-token", String.raw`${B}ATATT3[A-Za-z0-9_=-]{100,}`, ["ATATT3"]),
  p("airtable-token", String.raw`${B}pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`, ["pat"]),
  p("figma-token", String.raw`${B}figd_[A-Za-z0-9_-]{40,}`, ["figd_"]),
  p("sentry-token", String.raw`${B}(?:sntrys_[A-Za-z0-9+/=_]{50,}|sntryu_[a-f0-9]{64})`, ["sntry"]),
  p("grafana-token", String.raw`${B}(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`, ["glc_", "glsa_"]),
  p("newrelic-key", String.raw`${B}NR(?:AK|II|JS)-[A-Za-z0-9]{19,}`, ["NRAK-", "NRII-", "NRJS-"]),
  p("dynatrace-token", String.raw`${B}dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`, ["dt0c01."]),
  p("postman-key", String.raw`${B}PMAK-[a-f0-9]{24}-[a-f0-9]{34}`, ["PMAK-"]),
  p("onepassword-token", String.raw`${B}ops_eyJ[A-Za-z0-9+/=_-]{40,}`, ["ops_eyJ"]),
  // Shapes that need their context: a credential in a URL, a header, a command's flags.
  p("jwt", String.raw`${B}eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, ["eyJ"]),
  p("bearer-token", String.raw`(\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{12,}`, ["earer"]),
  { ...p("basic-auth-header", String.raw`(\bAuthorization:\s*Basic\s+)[A-Za-z0-9+/=]{8,}`, undefined, "gi"), hintsAnyCase: ["authorization"] },
  // Every run below is bounded: an unbounded one restarts at each word of a long pasted line and
  // makes the pattern quadratic (a 22 KB line held the Stop hook for minutes).
  // Most notes hold a URL and few an "@", so the "@" it ends before is what spares the scan.
  p("url-password", String.raw`(\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]{1,256}:)[^\s@/]{1,256}(?=@)`, ["://"], "gi", ["@"]),
  p("curl-user", String.raw`(\bcurl\b[^\n]{0,200}?\s(?:-u|--user)[\s=]{0,8}['"]?[^\s:'"]{1,128}:)[^\s'"]{1,256}`, ["curl"]),
  p("mysql-password-flag", String.raw`(\bmysql(?:dump|admin|sh)?\b[^\n]{0,200}?\s-p)(?!\s|-)[^\s'"]{1,256}`, ["mysql"]),
  p("password-flag", String.raw`(\b(?:sshpass|docker\s+login|podman\s+login|helm\s+repo\s+add|mongo(?:sh|dump|restore)?)\b[^\n]{0,200}?\s(?:-p|--password)[\s=]{1,8}['"]?)[^\s'"]{1,256}`, ["sshpass", "login", "helm", "mongo"]),
  p("netrc-password", String.raw`(\bmachine\s{1,8}\S{1,256}\s{1,8}login\s{1,8}\S{1,256}\s{1,8}password\s{1,8})\S{1,256}`, ["machine"]),
  // A password stated in prose ("the password is …", 密码是 …); the value must hold a digit or a
  // symbol, so that "the password is required" stays as written.
  p("prose-password", String.raw`((?:\bpassword|\bpassphrase|密码|密碼|口令|パスワード)\s*(?:is|was|:|：|是|为|為|は)\s{0,8}["'“]?)(?=[^\s"'”,;，。]{0,128}[0-9!@#$%^&*])(?!\[REDACTED\])[^\s"'”,;，。]{6,128}`, ["assword", "ASSWORD", "assphrase", "ASSPHRASE", "密码", "密碼", "口令", "パスワード"], "gi"),
  // KEY=value and KEY: value where the name says it is secret (.env files, shell exports, YAML,
  // JSON, connection strings). The word must end the name or a part of it, so "Author",
  // "tokenizer" and "passwordless" are not names of secrets; and a template placeholder
  // ("{{author}}", "${TOKEN}", "<your-key>") is not a value.
  // It starts at the key's telling word, not at the name's first letter: a pattern that opens with
  // a run of word characters is retried at every letter of a note, which made lint of a large
  // vault spend seconds here. The name's start is before the match and stays as written.
  // Every name it knows holds one of its any-case hints, in whatever case the pattern accepts it.
  p(
    "secret-assignment",
    String.raw`((?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|(?<![A-Za-z])PASS|(?<![A-Za-z])PWD|(?:API|ACCESS|PRIVATE|ACCOUNT|MASTER|ENCRYPTION|SIGNING|LICENSE)[_.-]?KEY|CREDENTIALS?|(?<![A-Za-z])AUTH|(?<![A-Za-z])SIG(?:NATURE)?)(?![A-Za-z0-9])[A-Za-z0-9_.-]{0,64}["']?\s{0,8}[:=](?!:)\s{0,8}["']?)(?!\[REDACTED\]|\{\{|\$\{|\$[A-Z_]|<|%\(|\*{3}|x{4}|X{4}|\.\.\.|[A-Za-z_$][\w$.]{0,64}\(|(?:process\.env|os\.environ|import\.meta\.env|env|config|settings|self|this|secrets)[.[]|[a-z]+(?:_[a-z]+)+(?![\w.-]))[^\s"'\x60,;]{6,256}`,
    undefined,
    "gi",
    undefined,
    ["secret", "token", "pass", "pwd", "key", "credential", "auth", "sig"],
  ),
  // Any .env-style assignment, on its own line or inline ("run it with FOO=…"), whose value is
  // long and random-looking: letters and digits both, and not a path.
  p("env-line", String.raw`(^|[\s;(])((?:export\s+)?[A-Z][A-Z0-9_]{2,64}=["']?)(?![^\n]{0,512}\[REDACTED\])(?![./~])(?=[A-Za-z0-9+/_\-.]{0,512}\d)(?=[A-Za-z0-9+/_\-.]{0,512}[A-Za-z])[A-Za-z0-9+/_\-.]{24,512}`, ["="]),
];

const anyCaseTests = new WeakMap<readonly string[], RegExp>();

/** A test for any of `hints` in any case, as the pattern they belong to matches. */
function anyCaseTest(hints: readonly string[]): RegExp {
  let re = anyCaseTests.get(hints);
  if (!re) anyCaseTests.set(hints, (re = new RegExp(hints.map((h) => h.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "i")));
  return re;
}

/** Replaces every secret-shaped value with [REDACTED]; keeps names, so the text still reads. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) {
    const { id, hints, hintsAnyCase, needs } = pattern;
    if (hints && !hints.some((h) => out.includes(h))) continue;
    if (hintsAnyCase && !anyCaseTest(hintsAnyCase).test(out)) continue;
    if (needs && !needs.every((n) => out.includes(n))) continue;
    const re = pattern.re;
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
  const present = hintsIn(text);
  const found = new Set<string>();
  for (const pattern of SECRET_PATTERNS) {
    const { id, hints, hintsAnyCase, needs } = pattern;
    if (hints && !hints.some((h) => present.exact.has(h))) continue;
    if (hintsAnyCase && !hintsAnyCase.some((h) => present.anyCase.has(h))) continue;
    if (needs && !needs.every((n) => text.includes(n))) continue;
    const re = pattern.re;
    // The matches matchAll would give, without the copy of the pattern it makes for each note.
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (!m[0].includes(REDACTED)) found.add(id);
      if (m[0] === "") re.lastIndex++;
    }
  }
  return [...found];
}

// Hints by a hash of their first three characters; a slot's hints are checked where the text has
// three characters of that hash, so a collision costs a comparison and never a wrong answer. Two
// characters would do, but pairs such as "se" and "pa" start too many words.
const SLOTS = 1 << 15;
const slotOf = (a: number, b: number, c: number): number => ((((a * 977) ^ b) * 977) ^ c) & (SLOTS - 1);

interface HintTable {
  /** Every hint, by number; lower case where it is any-case. */
  texts: string[];
  anyCase: boolean[];
  /** Index into `buckets` by slotOf; -1 where no hint starts with such characters. */
  bucketOfSlot: Int16Array;
  /** Hint numbers by bucket. */
  buckets: number[][];
  /** Numbers of the hints shorter than three characters, which are searched for on their own. */
  short: number[];
}

let hintTable: HintTable | undefined;

/** A character and, for an ASCII lower-case letter, its capital: what a pattern that ignores case accepts for it. */
const cases = (c: number, anyCase: boolean): number[] => (anyCase && c >= 97 && c <= 122 ? [c, c - 32] : [c]);

function buildHintTable(): HintTable {
  const exact = [...new Set(SECRET_PATTERNS.flatMap((p) => p.hints ?? []))];
  const anyCase = [...new Set(SECRET_PATTERNS.flatMap((p) => p.hintsAnyCase ?? []))];
  const table: HintTable = {
    texts: [...exact, ...anyCase],
    anyCase: [...exact.map(() => false), ...anyCase.map(() => true)],
    bucketOfSlot: new Int16Array(SLOTS).fill(-1),
    buckets: [],
    short: [],
  };
  table.texts.forEach((text, id) => {
    if (text.length < 3) {
      table.short.push(id);
      return;
    }
    const [a, b, c] = [0, 1, 2].map((i) => cases(text.charCodeAt(i), table.anyCase[id]));
    const slots = new Set(a.flatMap((x) => b.flatMap((y) => c.map((z) => slotOf(x, y, z)))));
    for (const slot of slots) {
      if (table.bucketOfSlot[slot] < 0) {
        table.bucketOfSlot[slot] = table.buckets.length;
        table.buckets.push([]);
      }
      table.buckets[table.bucketOfSlot[slot]].push(id);
    }
  });
  return table;
}

/** Whether `text` holds the lower-case `hint` at `at` in any mix of ASCII cases. */
function startsWithAnyCase(text: string, hint: string, at: number): boolean {
  if (at + hint.length > text.length) return false;
  for (let j = 0; j < hint.length; j++) {
    const c = text.charCodeAt(at + j);
    const h = hint.charCodeAt(j);
    if (c !== h && !(h >= 97 && h <= 122 && c === h - 32)) return false;
  }
  return true;
}

export interface HintsFound {
  /** Hints (SecretPattern.hints) that `includes` finds. */
  exact: Set<string>;
  /** Any-case hints (SecretPattern.hintsAnyCase) found in some mix of cases. */
  anyCase: Set<string>;
}

/**
 * The patterns' hints that occur in `text`, in one pass rather than a search for each. Lint asks
 * it of every note, and a hundred searches of each note were most of lint's time on a large
 * vault.
 */
export function hintsIn(text: string): HintsFound {
  const { texts, anyCase, bucketOfSlot, buckets, short } = (hintTable ??= buildHintTable());
  const seen = new Uint8Array(texts.length);
  for (const id of short) if (text.includes(texts[id])) seen[id] = 1;
  let a = text.charCodeAt(0);
  let b = text.charCodeAt(1);
  for (let i = 0; i + 2 < text.length; i++) {
    const c = text.charCodeAt(i + 2);
    const bucket = bucketOfSlot[slotOf(a, b, c)];
    if (bucket >= 0) {
      for (const id of buckets[bucket]) {
        if (seen[id] === 0 && (anyCase[id] ? startsWithAnyCase(text, texts[id], i) : text.startsWith(texts[id], i))) seen[id] = 1;
      }
    }
    a = b;
    b = c;
  }
  const found: HintsFound = { exact: new Set(), anyCase: new Set() };
  seen.forEach((s, id) => {
    if (s === 1) (anyCase[id] ? found.anyCase : found.exact).add(texts[id]);
  });
  return found;
}

const PRIVATE_TAG = /<(\/?)private>/gi;

/**
 * Removes `<private>…</private>` passages. Tags nest, so a passage ends only where its own tag
 * closes ("<private>a <private>b</private> still private</private>"); an unclosed one hides
 * everything after it, and a stray closing tag is dropped.
 */
export function stripPrivate(text: string): string {
  return stripPrivateFrom(text, 0).text;
}

/**
 * stripPrivate for text that continues earlier text (the next content block of one reply):
 * `depth` is how many passages were still open where the earlier text ended, and the result says
 * how many are open where this one ends.
 */
export function stripPrivateFrom(text: string, depth: number): { text: string; depth: number } {
  if (depth === 0 && !/<\/?private>/i.test(text)) return { text, depth };
  let out = "";
  let from = 0;
  PRIVATE_TAG.lastIndex = 0;
  for (let m = PRIVATE_TAG.exec(text); m; m = PRIVATE_TAG.exec(text)) {
    if (depth === 0) out += text.slice(from, m.index);
    depth = m[1] ? Math.max(0, depth - 1) : depth + 1;
    from = m.index + m[0].length;
  }
  return { text: depth === 0 ? out + text.slice(from) : out, depth };
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

/** Everything that must happen to text before it is cut, stored or sent. */
export function sanitize(text: string): string {
  return sanitizeFrom(text, 0).text;
}

/** sanitize for text that continues earlier text, carrying open private passages (see stripPrivateFrom). */
export function sanitizeFrom(text: string, privateDepth: number): { text: string; depth: number } {
  const kept = stripPrivateFrom(text, privateDepth);
  return { text: redactSecrets(stripRecallBlock(kept.text)), depth: kept.depth };
}
