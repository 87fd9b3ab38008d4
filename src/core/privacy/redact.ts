/** Keeps secrets and private passages out of everything Vault Memory writes or sends. */

import { BRIEF_HEADER, NOTES_CLOSE, NOTES_OPEN, RECALL_HEADER } from "../text/recall-header";
import { isInvisibleCode, keyish, looksLikeValue, looksRandom, looksRandomAfterPrefix, normalizeInvisible, TOKEN_CODE, wrapsIn } from "./generic";

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
  /**
   * A last check of what a match would hide (`value`, at `at` in `text`): the generic shapes
   * match any run of the right characters and keep only what looks random or sits where a
   * secret goes.
   */
  accept?: (value: string, text: string, at: number) => boolean;
  /** A cheap test a text must pass before the pattern runs, for a pattern whose hints are in most texts. */
  gate?: RegExp;
  /** Where the pattern's secrets are, for a shape a regular expression says too slowly (every run of token characters). */
  find?: (text: string, runs: readonly number[]) => Array<[number, number]>;
}

// The shapes follow the families of gitleaks' and secretlint's rule sets: a provider's token
// prefix where it has one (cheap and precise), then shapes that need their context (a key's name,
// a command's flag), then generic ones. Specific first, so a GitHub token inside
// `GITHUB_TOKEN=...` is named for what it is. A value already redacted is never matched again.
const B = "(?<![A-Za-z0-9_])"; // a token's start: not in the middle of a longer word
// Each pattern is compiled on first use: a text seldom holds the hints of more than a few, and
// building all of them cost the prompt hook about 0.3 ms before its embedding request could leave.
// A class rather than an object with a getter of its own: the table is built on every prompt
// that leaves the computer, and ninety objects each with a getter took most of a millisecond.
class Pattern implements SecretPattern {
  private compiled: RegExp | undefined;
  hintsAnyCase?: readonly string[];
  accept?: SecretPattern["accept"];
  gate?: RegExp;
  find?: SecretPattern["find"];

  constructor(
    readonly id: string,
    private readonly source: string,
    readonly hints: readonly string[] | undefined,
    private readonly flags: string,
    readonly needs: readonly string[] | undefined,
  ) {}

  get re(): RegExp {
    return (this.compiled ??= new RegExp(this.source, this.flags));
  }
}

const p = (
  id: string,
  source: string,
  hints?: readonly string[],
  flags = "g",
  needs?: readonly string[],
  hintsAnyCase?: readonly string[],
  accept?: SecretPattern["accept"],
  gate?: RegExp,
): Pattern => {
  const pattern = new Pattern(id, source, hints, flags, needs);
  if (hintsAnyCase) pattern.hintsAnyCase = hintsAnyCase;
  if (accept) pattern.accept = accept;
  if (gate) pattern.gate = gate;
  return pattern;
};

// The words that name a secret, in any case, as the generic shapes look for them.
const SECRET_WORDS = ["secret", "token", "pass", "pwd", "key", "credential", "auth", "sig"];
// What a value in a secret's place must not be: a placeholder, a variable, a path.
const NOT_A_VALUE = String.raw`(?!\[REDACTED\]|\{\{|\$\{|\$[A-Za-z_]|<|%\(|\*{3}|x{4}|X{4}|\.\.\.|\.{0,2}/|~/|-|(?:env|file|fd):|stdin\b)`;
// What stands where a secret goes in examples and templates: changeme, YOUR_API_KEY, xxxx.
const PLACEHOLDER_WORD =
  /^(?:changeme|change_me|changeit|password\d*|secret\d*|example\w*|test\w*|dummy\w*|placeholder\w*|todo|tbd|none|null|empty|redacted|(?:your|my)[_ -]\w*|x{4,}|\*+|•+)["',;}]?$/i;
// An environment variable's name in capitals (P12_PASSWORD, YOUR_API_KEY): a reference, not a value.
const PLACEHOLDER_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+["',;}]?$/;
const PLACEHOLDER = { test: (v: string): boolean => PLACEHOLDER_WORD.test(v) || PLACEHOLDER_NAME.test(v) };
const valueAccept = (v: string): boolean =>
  looksLikeValue(v) &&
  !/^(?:YOUR|your|my|MY)[_-]|[_-](?:HERE|here)$|^(?:changeme|password\d*|secret\d*|example\w*|test\w*|dummy\w*|placeholder\w*)$/i.test(v) &&
  !/\.(?:pem|key|json|txt|crt|p12|env|ya?ml)$/i.test(v);
// Tokens that are digests, encodings or public material by what stands just before them.
const NOT_SECRET_BEFORE =
  /(?:sha\d*|md5|h1|blake\w*|integrity|checksum|digest|hash|etag|nonce|oid|base64|fingerprint|ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\w+|commit|revision|rev)\W{0,6}$/i;
// A value that names its own digest: sha512-…, sha256:…, md5-….
const DIGEST_VALUE = /^(?:sha\d+|md5|blake\w*|h1)[-:]/i;
const URL_END = new Set([" ", "\n", "\t", "\r", '"', "'", ",", "<", ">", "(", ")", "[", "]", "{", "}", "`"]);
/** Whether the token at `at` is part of a URL (ids in paths and queries; a key in a URL has a name that says so). */
function inUrl(text: string, at: number): boolean {
  let word = at;
  while (word > 0 && at - word < 2048 && !URL_END.has(text[word - 1])) word--;
  const scheme = text.indexOf("://", word);
  return scheme >= 0 && scheme < at;
}
/** Whether the token at `at` is inside an armoured block that is not a private key (a certificate, a public key). */
function inPublicArmour(text: string, at: number): boolean {
  const begin = text.lastIndexOf("-----BEGIN ", at);
  // Inside only when that block also ends after the token: an opened block with no end is not armour.
  return begin >= 0 && text.lastIndexOf("-----END ", at) < begin && text.indexOf("-----END ", at) > at;
}
/**
 * Runs of token characters that look like keys: one pass over the text's runs of 20 or more, as a
 * greedy search finds each run whole (a pattern that decides a token's start by looking behind
 * is tried at every character, and cost lint of a large vault a second). A run joined to a
 * longer dotted one (a host, a version, a JWT) is not one token; `name=value` is its value.
 */
function randomTokens(text: string, runs: readonly number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let k = 0; k < runs.length; k += 2) {
    const run = candidateIn(text, runs[k], runs[k + 1]);
    if (run) out.push(run);
  }
  return out;
}

/** The key in the run from `from` to `end`, if it holds one. */
function candidateIn(text: string, from: number, end: number): [number, number] | undefined {
  const before = text[from - 1];
  const after = text[end];
  if (before === "." || before === "~" || after === "~" || (after === "." && /[A-Za-z0-9]/.test(text[end + 1] ?? ""))) return undefined;
  // A run this long is a blob (base64, a hash list), not a key; and it is not sliced at all.
  if (end - from > 512) return undefined;
  let start = from;
  const inner = text.slice(from, end).replace(/=+$/, "").lastIndexOf("=");
  if (inner >= 0) start += inner + 1;
  while (start < end && (text[start] === "-" || text[start] === "_")) start++;
  if (end - start < 20 || end - start > 250 || !keyish(text, start, end, 4)) return undefined;
  return tokenAccept(text.slice(start, end), text, start) ? [start, end] : undefined;
}

// Names that end in one of these say what kind of secret it is, not the secret: token_type,
// password_format, secret_name, api_key_header.
// A name that ends in a quantity or a setting says its value is one (token_count, AUTH_TIMEOUT_MS,
// SECRET_ROTATION_PERIOD, AUTH_ISSUER, PASSWORD_HASHER, credential.helper), not a secret.
const NOT_SECRET_NAME_END =
  /(?:type|format|kind|mode|name|id|length|len|size|ttl|expires?(?:_?in|_?at)?|url|uri|endpoint|header|prefix|scope|field|policy|hint|label|path|file|env|var|source|count|limit|max|min|timeout(?:_?(?:ms|s|secs?|seconds))?|lifetime|period|interval|rate|issuer|audience|domain|provider|hasher|algorithm|method|storage|arn|helper|version)["']?\s*[:=]\s*["']?$/i;
// What stands in a secret's place when it names a scheme or a kind, not a value.
const SCHEME_VALUE = /^(?:Bearer|Basic|Digest|Negotiate|JWT|MAC|HMAC|OAuth|bearer|basic|password|string|secret|required|optional)["',;\s}]?$/;
// Source code's names in a secret's place: a member read (req.body.password, session.accessToken,
// form.cleaned_data["password"]), or a camelCase variable ending a line of code (hashedPassword,).
// Names only, with no digit: a key has digits, and a JWT begins eyJ.
const MEMBER_READ = /^(?!eyJ)[A-Za-z_$][A-Za-z_$]{0,31}(?:\.[A-Za-z_$][A-Za-z_$]{0,31})+\[?$/;
const CAMEL_NAME = /^[a-z][a-z]{1,15}(?:[A-Z][a-z]{1,15}){1,4}$/;
function codeValue(v: string, text: string, end: number): boolean {
  if (MEMBER_READ.test(v)) return true;
  if (!CAMEL_NAME.test(v)) return false;
  let at = end;
  while (text[at] === " " || text[at] === "\t") at++;
  return text[at] !== undefined && ",;)}".includes(text[at]);
}

/**
 * The KEY=value assignment's last check: not a name that says what kind of secret it is
 * ("token_type": "Bearer"), and not inside a shell parameter's braces (${DB_PASSWORD:?missing},
 * where what follows the name is the shell's own syntax).
 */
function assignmentAccept(v: string, text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 96), at);
  if (NOT_SECRET_NAME_END.test(before)) return false;
  // A secret's store or engine named by a word (secret_backend: hashicorp vault); a value with a
  // digit or a symbol there is a secret still (PASSWORD_STORE=N3wP4ss!Word).
  if (/(?:backend|engine|store|manager|mount)["']?\s*[:=]\s*["']?$/i.test(before) && !looksLikeValue(v)) return false;
  if (SCHEME_VALUE.test(v) || PLACEHOLDER.test(v)) return false;
  if (codeValue(v, text, at + v.length)) return false;
  // The shell's working folder, not a password: PWD=/Users/me/My Projects.
  if (v.startsWith("/") && /(?:^|[^A-Za-z_])(?:OLD)?PWD=$/.test(before)) return false;
  const brace = before.lastIndexOf("${");
  if (brace >= 0 && !before.slice(brace).includes("}")) return false;
  // The first word of a sentence or a label where a value goes ("Forgot your password?",
  // `Wi-Fi password: printed on the sticker`) is not a value; the first word of a passphrase is,
  // and the passphrase shapes hide the rest. Only the next 256 characters are read: a long line
  // of such assignments must not be read again at each.
  if (text[at + v.length] === " " && !looksLikeValue(v)) {
    const quote = text[at - 1];
    const quoted = quote === '"' || quote === "'";
    const rest = text.slice(at, at + 256);
    const lineEnd = rest.indexOf("\n");
    const close = quoted ? rest.indexOf(quote) : -1;
    const end = quoted ? (close >= 0 && (lineEnd < 0 || close < lineEnd) ? close : -1) : lineEnd < 0 ? rest.length : lineEnd;
    if (end > 0 && quoted && readsAsSentence(rest.slice(0, end))) return false;
    // Unquoted after a label: "stored in Keychain Access", "printed on the sticker".
    if (end > 0 && !quoted && SETTING_WORD.test(v) && /\S\s+\S/.test(rest.slice(0, end).trim())) return false;
  }
  return true;
}

// What a passphrase is not, though it stands where one goes: a sentence or a label (it ends as
// one, or holds a comma, or two of these little words of English and the languages near it), a
// text that names a password itself (a form's "Forgot your password?", "Mot de passe"), a
// template or code, a button's words ("Show characters"), or a setting's ("stored in the keychain").
const FUNCTION_WORDS = new Set(
  (
    "a an the to of in on at for with and or but not no your you our my is are be was it its this that these " +
    "by from as if then than so all any each every only when also into via per like such least must " +
    "should can will may please enter type use click press never always too very being been " +
    "de la le les el los las un una y o que en con por para se su es del al lo como " +
    "du des et est une pas ne qui pour dans sur avec au aux ce il elle sont nulle part " +
    "der die das den dem und ist zu mit ein eine nicht auf für im von bei wird sind nach auch noch kein keine " +
    "il di da non è e che per het een en niet er voor van op te dat je os as do em não é com um uma z w i na"
  ).split(" "),
);
// "Password" in the languages of Obsidian's help and more: a value that says it is a label.
const NAMES_A_PASSWORD =
  /(?<![a-z-])(?:pass(?:word|phrase|wort|wd|code|e)|pwd|secret|kennwort|contraseña|contrasenya|contrasinal|senha|hasło|heslo|geslo|lozinka|jelszó|wachtwoord|wagwoord|lösenord|passord|adgangskode|lykilorð|salasana|parool|parole|şifr[eə]|parol|parola|parolă|sandi|mật khẩu|kata laluan)s?(?![a-z-])|密码|密碼|口令|パスワード|パスフレーズ|비밀번호|암호|пароль|парола|лозинка|нууц үг|құпия сөз|κωδικός|συνθηματικό|סיסמה|كلمة (?:المرور|السر)|رمز عبور|گذرواژه|پاس ورڈ|पासवर्ड|পাসওয়ার্ড|கடவுச்சொல்|รหัสผ่าน|პაროლი|գաղտնաբառ/i;
const SETTING_WORD =
  /^(?:required|optional|none|null|nil|empty|blank|disabled|enabled|hidden|masked|encrypted|hashed|stored|set|unset|same|see|generated|random|auto|managed|handled|provided|injected|read|loaded|taken|printed|written|kept|saved|shared|posted|attached|noted|from|in|via|use|using|ask|n\/a|tbd|todo|true|false|yes|no|on|off)$/i;
// A button's or a link's first word: "Show characters", "Send reset link".
const UI_VERB =
  /^(?:show|hide|send|reset|change|enter|forgot|forgotten|update|create|save|cancel|submit|copy|toggle|remember|confirm|choose|type|click|press|generate|view|edit|manage|request|verify|repeat|retype|check|contact|refer|ask|find|look|get|go|open|see)$/i;
// Code in a value's place: a call, an index, an operator, a path, a template, a keyword.
const CODE_VALUE = /[()[\]{}<>=/\\`]|\$\{|%[sd(]|\b(?:if|else|None|null|nil|undefined|return|await|new|lambda)\b/;
// Words of a rule or a measure, which sentences about a password hold and passphrases seldom do.
const MEASURE_WORD =
  /^(?:valid|invalid|expired|weak|wrong|incorrect|shown|sent|visible|unique|characters?|chars?|digits?|letters?|symbols?|numbers?|minimum|maximum|min|max|contains?|words?|cost|rounds|bits|bytes|iterations|factor|days?|weeks?|months?|years?|hours?|minutes?|seconds?|times|mindestens|höchstens|zeichen|stellen|gültig|ungültig|falsch|schwach|abgelaufen|erforderlich|moins|caractères|valide|invalide|obligatoire|trop|court|faible|expiré|menos|caracteres|válida|inválida|incorrecta|obligatoria|demasiado|corta|débil|almeno|caratteri|obbligatoria|troppo|obrigatória|muito|curta|fraca)$/i;

const littleWords = (words: readonly string[]): number => words.filter((w) => FUNCTION_WORDS.has(w.toLowerCase())).length;

/** Whether a text where a value goes reads as a sentence or a label rather than a passphrase. */
function readsAsSentence(v: string): boolean {
  const marked = /[0-9!@#$%^&*+=~]/.test(v);
  if (/[.?:…。？：]$/.test(v.trim()) || (NAMES_A_PASSWORD.test(v) && !marked) || /[,;]\s/.test(v)) return true;
  const words = v.trim().split(/\s+/);
  return words.some((w) => MEASURE_WORD.test(w)) || (SETTING_WORD.test(words[0]) && words.length > 1);
}

/**
 * Whether several words where a password goes are one: not a sentence, label, template, code or
 * setting. `strict` for words not quoted (a line's value, prose), where a sentence is likelier:
 * three words then hold no little word, more at most one, and no word of a rule or a measure.
 */
function passphraseAccept(v: string, strict = false): boolean {
  const words = v.trim().split(/\s+/);
  const marked = /[0-9!@#$%^&*+=~]/.test(v);
  if (words.length < 2 || v.length < 8 || (words.length < 3 && !marked)) return false;
  if (PLACEHOLDER.test(v) || PLACEHOLDER.test(words[0]) || SCHEME_VALUE.test(words[0]) || UI_VERB.test(words[0])) return false;
  // A label names a password ("Forgot your password?", "Nova lozinka"); a passphrase with a digit
  // may hold the word ("Tramonto parola segreta 42").
  if ((NAMES_A_PASSWORD.test(v) && !marked) || /[.?:…。？：]$/.test(v.trim()) || /[,;]\s/.test(v) || CODE_VALUE.test(v) || v.includes("{{")) return false;
  if (words.some((w) => MEASURE_WORD.test(w))) return false;
  const little = littleWords(words);
  // "stored in the keychain", "handled by Okta": a word that says what was done, or a setting's,
  // that a sentence goes on from.
  if ((SETTING_WORD.test(words[0]) || /(?:ed|ing)$/i.test(words[0])) && (words.length < 3 || little > 0)) return false;
  // A quoted value with a digit or a symbol is a passphrase even with a sentence's words
  // ("Summer in the city of Paris 2024"); one without reads as a sentence from two of them.
  if (!strict) return marked || little < 2;
  // Unquoted, a note's words are likelier than a passphrase ("just ask Dave", "Azure Key Vault"):
  // a digit or a symbol, or no little word of a sentence and either four words or three in small
  // letters, as random words are drawn ("harbor violet sprocket").
  if (NAMES_A_PASSWORD.test(v) || /ly$/i.test(words[0])) return false;
  if (marked) return little <= (words.length >= 4 ? 1 : 0);
  return little === 0 && (words.length >= 4 || v === v.toLowerCase());
}

/**
 * A passphrase said in prose, where a sentence could go on instead ("the password is correct but
 * login still fails", "the passphrase is four random dictionary words"): it must be quoted or
 * hold a digit or a symbol, and read as a line's value would. Words alone after "is" cannot be
 * told from the rest of a sentence, in any language, and are left.
 */
function prosePassphraseAccept(v: string, text: string, at: number): boolean {
  const words = v.trim().split(/\s+/);
  if (words.length < 3 || !passphraseAccept(v, true)) return false;
  const before = text.slice(Math.max(0, at - 16), at).replace(/(?:\*\*|__)[ \t]*$/, "");
  return /["'“«「『]$/.test(before) || /[0-9!@#$%^&*+=~]/.test(v);
}

/**
 * Whether a run of base64 decodes to plain text (words and spaces): an encoded sentence, a
 * header's readable value, not a key, whatever its letters look like.
 */
function decodesToText(v: string): boolean {
  const body = v.replace(/=+$/, "");
  if (body.length < 16 || !/^[A-Za-z0-9+/_-]+$/.test(body)) return false;
  let bytes: Buffer;
  try {
    bytes = Buffer.from(body.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  } catch {
    return false;
  }
  if (bytes.length < 12) return false;
  let letters = 0;
  let spaces = 0;
  for (const b of bytes) {
    if ((b >= 65 && b <= 90) || (b >= 97 && b <= 122)) letters++;
    else if (b === 32) spaces++;
    else if (b < 32 || b > 126) return false;
  }
  return spaces >= 2 && (letters + spaces) / bytes.length >= 0.85;
}

// Up to eight literals joined with +, each of token characters: a key split to slip past a scanner.
const CONCAT_CHAIN = /(["'`])[A-Za-z0-9_+/=.~-]{1,256}\1(?:\s*\+\s*(["'`])[A-Za-z0-9_+/=.~-]{1,256}\2){1,7}/g;

/** The chains of joined string literals that, joined, hold a secret: each whole chain, quotes and all. */
function concatenatedSecrets(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  CONCAT_CHAIN.lastIndex = 0;
  for (let m = CONCAT_CHAIN.exec(text); m; m = CONCAT_CHAIN.exec(text)) {
    const joined = [...m[0].matchAll(/(["'`])([^"'`]*)\1/g)].map((x) => x[2]).join("");
    // "sk_test_" + "xxxxxxxx…" is the template of a key, not one.
    if (/x{8}|X{8}|0{12}|\*{4}/.test(joined)) continue;
    if (secretSpans(joined).spans.length > 0) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

// The prefixes of public objects' ids, which logs and API responses print and which grant nothing:
// Stripe's (pi_, seti_, cus_, ch_, evt_…, never its keys sk_, rk_, whsec_), OpenAI's (chatcmpl-,
// asst_, thread_, run_, file-…), Anthropic's (msg_, toolu_, req_).
const PUBLIC_ID =
  /^(?:pi|seti|si|cus|ch|evt|in|ii|il|sub|price|prod|po|src|card|pm|py|txn|inv|acct|cs_(?:test|live)|chatcmpl|cmpl|asst|thread|run|step|file|batch|ftjob|vs|msg|toolu|req)[_-]/;
/** One scan for both generic token shapes: a provider-style prefix with a random body, or a random run of its own. */
const tokenAccept = (v: string, text: string, at: number): boolean =>
  !PUBLIC_ID.test(v) && ((/^[A-Za-z][A-Za-z0-9]{0,9}[_-]/.test(v) && prefixedAccept(v, text, at)) || (v.length < 200 && standaloneAccept(v, text, at)));
const standaloneAccept = (v: string, text: string, at: number): boolean =>
  looksRandom(v.replace(/=+$/, "")) &&
  !decodesToText(v) &&
  !DIGEST_VALUE.test(v) &&
  !inUrl(text, at) &&
  !NOT_SECRET_BEFORE.test(text.slice(Math.max(0, at - 24), at)) &&
  !inPublicArmour(text, at);
// Prefixes that mark a digest, a build or an id rather than a key.
const NOT_KEY_PREFIX =
  /^(?:sha\d*|md5|commit|rev|uuid|guid|id|v|git|build|chunk|asset|hash|blob|tree|node|release|feature|fix|test|tmp|temp|css|js|main|vendor|app|page|file|img|image|user|session|req|request|trace|span|order|run|job|msg|evt|event|ch|sub|cus|in|pi|pm|prod|price|acct|txn|inv)$/i;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
/** A token with a provider-style prefix (`napi_…`, `tskey-auth-…`, `sb_secret_…`): its body must look random. */
function prefixedAccept(v: string, text: string, at: number): boolean {
  const parts = v.split(/([_-])/);
  // The prefix is the leading short parts: up to three, of up to ten characters, the first a letter.
  let i = 0;
  let prefix = "";
  while (i + 2 < parts.length && i < 6 && parts[i].length >= 1 && parts[i].length <= 10 && /^[A-Za-z][A-Za-z0-9]*$/.test(parts[i]) && !/\d{3}/.test(parts[i])) {
    prefix += parts[i] + parts[i + 1];
    i += 2;
    if (looksRandomAfterPrefix(parts.slice(i).join(""))) break;
  }
  const body = parts.slice(i).join("");
  if (!prefix || !looksRandomAfterPrefix(body.replace(/[_-]/g, ""))) return false;
  const first = prefix.split(/[_-]/)[0];
  // An id (a UUID, with or without a word before it) and a digest are not keys.
  if (
    NOT_KEY_PREFIX.test(first) ||
    DIGEST_VALUE.test(v) ||
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(v) ||
    UUID.test(body.replace(/[_-]/g, ""))
  )
    return false;
  // Words joined by dashes or underscores (a slug, an identifier) are not a key's body.
  const segments = parts.slice(i).filter((x) => x !== "_" && x !== "-");
  if (segments.length > 2 && segments.filter((x) => /^[A-Za-z]{1,12}$/.test(x)).length * 2 >= segments.length) return false;
  if (inUrl(text, at)) return false;
  // A plain hexadecimal body follows an underscore only in keys; after a dash it is a build's or a digest's.
  if (/^[0-9a-f]+$/i.test(body.replace(/[_-]/g, "")) && !prefix.endsWith("_")) return false;
  return !NOT_SECRET_BEFORE.test(text.slice(Math.max(0, at - 24), at)) && !inPublicArmour(text, at);
}

// "Password" as prose writes it in the Latin-script languages, and the ASCII pieces that find it
// in any case where a word has other letters (contraseña, hasło, şifre).
const PROSE_PASSWORD_NAMES = String.raw`(?:\bpassword|\bpassphrase|\bpasscode|\bmot de passe|\bpasswort|\bkennwort|\bcontraseña|\bsenha|\bclave|\bhasło|\bwachtwoord|\blösenord|\bsalasana|şifre(?:si)?|\bparola|\bkata sandi)`;
const PROSE_PASSWORD_HINTS = [
  "assword",
  "assphrase",
  "asscode",
  "mot de passe",
  "asswort",
  "ennwort",
  "contrase",
  "senha",
  "clave",
  "has",
  "wachtwoord",
  "senord",
  "salasana",
  "ifre",
  "parola",
  "sandi",
];
// What follows a password's name in prose, up to a passphrase of three to seven words: a sign
// that says "is" (bold marks around it, as notes write a label), or up to four words and a word
// that says it ("password for the staging admin is"), then an opening quote; then the words,
// which end the sentence or clause, or the line, or close a quote. Before a colon, words between
// say what the password is about ("password policy: NIST 800-63B"), and are not read.
const PASSPHRASE_WORD = String.raw`[^\s.,;!?。，；！？」』"'”»()\[\]<>*:：、]{1,40}`;
const PROSE_PASSPHRASE_REST = String.raw`(?:[ \t]{0,3}(?:\*\*|__)?[ \t]{0,3}(?:[:：=—]|是|为|為|は|는|은|이|가){1,2}|(?:[ \t]{1,3}[^\s:：=*.,;!?。，；！？]{1,16}(?=[ \t])){0,4}?[ \t]{1,3}(?:is|was|are|est|ist|lautet|es|é|è|era|to|je|er|on)(?=[ \t]))[ \t]{0,8}(?:\*\*|__)?[ \t]{0,8}["'“«「『]?)(?!\[REDACTED\])${PASSPHRASE_WORD}(?:[ \t]{1,3}${PASSPHRASE_WORD}){2,6}(?=[ \t]{0,8}(?:[.,;!?。，；！？」』"'”»)\]*、]|\r?$))`;

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // Key material: everything between the armour lines, and all that follows an unclosed one.
  p("private-key", String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)`, [
    "PRIVATE KEY",
  ]),
  // A private key's armour in base64, as a Kubernetes secret's tls.key or a CI variable holds it:
  // "LS0tLS1CRUdJTi" is "-----BEGIN" encoded. A certificate's is public and stays.
  p("base64-private-key", String.raw`${B}LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,16384}={0,2}`, ["LS0tLS1CRUdJTi"], "g", undefined, undefined, (v) =>
    /PRIVATE KEY/.test(Buffer.from(v.slice(0, 64), "base64").toString("latin1")),
  ),
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
  p(
    "gitlab-token",
    String.raw`${B}(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt|gloas|glimt|glagent|glffct|glwt)-[A-Za-z0-9_-]{20,}|${B}GR1348941[A-Za-z0-9_-]{20,}`,
    ["glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-", "gloas-", "glimt-", "glagent-", "glffct-", "glwt-", "GR1348941"],
  ),
  p("bitbucket-token", String.raw`${B}ATBB[A-Za-z0-9_=.-]{28,}`, ["ATBB"]),
  p("npm-token", String.raw`${B}npm_[A-Za-z0-9]{36}`, ["npm_"]),
  p("pypi-token", String.raw`${B}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}`, ["pypi-"]),
  p("rubygems-key", String.raw`${B}rubygems_[a-f0-9]{48}`, ["rubygems_"]),
  p("nuget-key", String.raw`${B}oy2[a-z0-9]{43}`, ["oy2"]),
  p("docker-hub-token", String.raw`${B}dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}`, ["dckr_"]),
  p("clojars-token", String.raw`${B}CLOJARS_[a-z0-9]{60}`, ["CLOJARS_"]),
  // Clouds and hosting.
  p("aws-access-key", String.raw`${B}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, [
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "AGPA",
    "AIDA",
    "AIPA",
    "ANPA",
    "ANVA",
    "APKA",
    "AROA",
    "ASCA",
  ]),
  // A secret access key is 40 characters of base64 with nothing to mark it but the word "aws"
  // or "secret" before it; both cases are required so that a 40-digit hex commit id never matches.
  // Its hints are the words it starts with, so a note without them is not scanned.
  p(
    "aws-secret-key",
    String.raw`((?:aws|AWS|Aws|secret|Secret|SECRET)[^\n]{0,40}?)(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
    ["aws", "AWS", "Aws", "secret", "Secret", "SECRET"],
  ),
  p("google-api-key", String.raw`${B}AIza[0-9A-Za-z_-]{35}`, ["AIza"]),
  p("google-oauth-token", String.raw`${B}ya29\.[0-9A-Za-z_-]{20,}`, ["ya29."]),
  p("google-refresh-token", String.raw`${B}1//0[0-9A-Za-z_-]{40,}`, ["1//0"]),
  p("google-client-secret", String.raw`${B}GOCSPX-[0-9A-Za-z_-]{28}`, ["GOCSPX-"]),
  p(
    "azure-storage-key",
    String.raw`((?:AccountKey|SharedAccessKey|SharedSecret)\s*=\s*)[A-Za-z0-9+/=]{20,}`,
    ["AccountKey", "SharedAccessKey", "SharedSecret"],
    "gi",
  ),
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
  // Chat tools' incoming webhooks: whoever holds the URL posts into the channel, so the part after
  // the service's own path is the secret. Teams (and its Power Automate successor's workflow
  // URL, whose sig= is caught below), Feishu and Lark bots, WeCom's robot key.
  p(
    "chat-webhook",
    String.raw`(https://[A-Za-z0-9.-]{0,64}(?:webhook\.office\.com/webhookb2/|outlook\.office(?:365)?\.com/webhook/|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=))[A-Za-z0-9@/_-]{16,512}`,
    ["webhookb2/", "office.com/webhook/", "office365.com/webhook/", "/bot/v2/hook/", "webhook/send?key="],
  ),
  // Self-hosted chat's hooks (Mattermost's /hooks/ and a 26-letter id, Rocket.Chat's /hooks/id/token,
  // Gitea's and others'): a token after /hooks/ in a URL, when it holds digits and letters.
  p(
    "hooks-path-token",
    String.raw`(://[^\s/]{1,253}(?:/[^\s/?#]{1,64}){0,3}/hooks/(?:[A-Za-z0-9]{16,64}/)?)(?=[A-Za-z0-9_-]{0,127}\d)(?=[A-Za-z0-9_-]{0,127}[A-Za-z])[A-Za-z0-9_-]{20,128}(?![A-Za-z0-9_-])`,
    ["/hooks/"],
    "g",
    undefined,
    undefined,
    (v) => !/^(?:[a-z]+[-_])+[a-z]+$/.test(v),
  ),
  // No prefix to hint at; its dots are what most prompts lack, and its regular expression is
  // compiled on first use, before the prompt hook's embedding request can leave.
  p("discord-bot-token", String.raw`${B}[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])`, undefined, "g", ["."]),
  // Also inside the Bot API's URLs, where it follows "bot": api.telegram.org/bot<token>/getUpdates.
  p("telegram-bot-token", String.raw`(?:${B}|(?<=/bot))\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])`, [":AA"]),
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
  // CRM, banking aggregators, file hosts and social APIs: prefixes of their own.
  p("hubspot-token", String.raw`${B}pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, ["pat-na", "pat-eu", "pat-ap"]),
  p(
    "plaid-token",
    String.raw`${B}(?:access|public|link|processor)-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
    ["-sandbox-", "-development-", "-production-"],
  ),
  p("dropbox-token", String.raw`${B}sl\.(?:u\.|[A-Za-z]\.)?[A-Za-z0-9_=-]{60,}|${B}[a-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}`, ["sl.", "AAAAAAAAAA"]),
  p("twitter-bearer-token", String.raw`${B}A{20,}[A-Za-z0-9%+/=_-]{30,}`, ["AAAAAAAAAAAAAAAAAAAA"]),
  p(
    "facebook-token",
    String.raw`${B}EAA[A-Za-z0-9]{80,}`,
    ["EAA"],
    "g",
    undefined,
    undefined,
    (v) => /\d/.test(v) && /[a-z]/.test(v) && /[A-Z].*[A-Z]/.test(v.slice(3)),
  ),
  // ML experiment trackers: `wandb login <key>` (WANDB_API_KEY=… is an assignment below).
  p("wandb-login", String.raw`(\bwandb\s+login\s+(?:--relogin\s+|--cloud\s+)*)[0-9a-f]{40}(?![0-9a-f])`, ["wandb"]),
  // A kaggle.json's "key", and any JSON "key" whose value is a 32-character hexadecimal secret.
  p("json-key-hex", String.raw`((?:^|[{,\s])["']key["']\s*:\s*["'])[0-9a-f]{32,64}(?=["'])`, ["key"]),
  // Identity, observability, networking, content and push services whose prefixes the families above lack.
  p("brevo-key", String.raw`${B}x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}`, ["keysib-", "smtpsib-"]),
  p("okta-token", String.raw`(\bSSWS\s+)[A-Za-z0-9_-]{20,}`, ["SSWS"]),
  p("tailscale-key", String.raw`${B}tskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9]+-[A-Za-z0-9]{16,}`, ["tskey-"]),
  p("contentful-token", String.raw`${B}CFPAT-[A-Za-z0-9_-]{30,}`, ["CFPAT-"]),
  p("cloudflare-origin-ca-key", String.raw`${B}v1\.0-[a-f0-9]{24}-[a-f0-9]{100,}`, ["v1.0-"]),
  p("fcm-server-key", String.raw`${B}AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}`, [":APA91b"]),
  p("axiom-token", String.raw`${B}xa[ap]t-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, ["xaat-", "xapt-"]),
  p("asana-token", String.raw`${B}\d/\d{16}/\d{16}:[a-f0-9]{32}`, [":"], "g", undefined, undefined, undefined, /\d{16}:[a-f0-9]{32}/),
  p(
    "vault-legacy-token",
    String.raw`${B}[sb]\.[A-Za-z0-9]{24}(?![A-Za-z0-9.])`,
    ["s.", "b."],
    "g",
    undefined,
    undefined,
    (v) => /\d/.test(v) && /[A-Z]/.test(v),
  ),
  // Generic: a token with a provider-style prefix whose body looks random, and a run with no
  // prefix that looks random on its own (letters of both cases and digits, kinds changing often).
  Object.assign(p("random-token", String.raw`[A-Za-z0-9_+/=-]{20,}`), { find: randomTokens }),
  // A key split into string literals joined with + ("sk_live_" + "51Hx…", "AKIA" + "Z7QX" + "…"):
  // the pieces are read joined, and every piece of a chain that holds a secret is hidden.
  Object.assign(p("concatenated-secret", String.raw`["'][^"'\n]{1,256}["']\s*\+\s*["']`, ["+"], "g", undefined, undefined, undefined, /["'`]\s*\+\s*["'`]/), {
    find: concatenatedSecrets,
  }),
  // Shapes that need their context: a credential in a URL, a header, a command's flags.
  p("jwt", String.raw`${B}eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, ["eyJ"]),
  p("bearer-token", String.raw`(\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{12,}`, ["earer"]),
  p("basic-auth-header", String.raw`(\bAuthorization:\s*Basic\s+)[A-Za-z0-9+/=]{8,}`, undefined, "gi", undefined, ["authorization"]),
  // Any Authorization header, whatever its scheme (SSWS, Token token=, key=, none).
  p(
    "authorization-header",
    String.raw`(\bAuthorization\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|SSWS|Digest|Bot|Key|ApiKey|Api-Key|GenieKey|Negotiate|NTLM|AWS4-HMAC-SHA256|OAuth|JWT|Splunk|DSN)(?:\s+|=))?(?:token=)?)${NOT_A_VALUE}[A-Za-z0-9._~+/=:-]{8,512}`,
    undefined,
    "gi",
    undefined,
    ["authorization"],
    valueAccept,
  ),
  // A header whose name says key, token or secret (X-Api-Key, DD-API-KEY, X-Honeycomb-Team, X-Auth-Token).
  p(
    "secret-header",
    String.raw`((?:^|[\s'"{,])(?:[A-Za-z0-9]+-)+(?:key|token|team|api|secret|auth|signature|session|pass|password|apikey)\s*:\s*["']?)${NOT_A_VALUE}[A-Za-z0-9._~+/=-]{12,512}`,
    undefined,
    "gim",
    [":"],
    SECRET_WORDS.concat(["team", "api", "session"]),
    valueAccept,
    /-(?:key|token|team|api|secret|auth|signature|session|pass|password|apikey)\s*:/i,
  ),
  // A command-line flag whose name says secret: --token X, --api-key=X, --os-password X, --authkey X.
  p(
    "secret-flag",
    String.raw`((?:^|\s)--?(?:[A-Za-z0-9]+-){0,3}(?:token|secret|password|passwd|pass|pwd|pat|apikey|api-key|key|authkey|auth-key|authtoken|auth-token|auth|passphrase|credentials?)(?:=|\s+)["']?)${NOT_A_VALUE}[^\s"'\x60]{6,256}`,
    undefined,
    "gim",
    undefined,
    [...SECRET_WORDS, "pat"],
    valueAccept,
  ),
  // Commands whose password flag is a letter: redis-cli -a, sqlcmd and zip -P, ldapsearch -w, 7z -p,
  // smbclient -U user%pass, htpasswd -b file user pass, openssl's pass:.
  p(
    "cli-password",
    String.raw`(\b(?:redis-cli|sqlcmd|bcp|zip|unzip|ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapwhoami|ldappasswd)\b[^\n]{0,200}?\s-[aPw]\s+["']?|\b(?:vsce|ovsx)\b[^\n]{0,200}?\s-p\s+["']?|\b7za?\b[^\n]{0,200}?\s-p|\bsmbclient\b[^\n]{0,200}?\s-U\s*["']?[^\s%"']{1,64}%|\bhtpasswd\b[^\n]{0,200}?\s-\w*b\w*\s+(?:-\w+\s+){0,4}(?:\S+\s+){2}|(?:^|\s)-pass(?:in|out)?\s+pass:)(?![-$]|\[REDACTED\])[^\s"'\x60]{4,256}`,
    ["redis-cli", "sqlcmd", "bcp", "zip", "ldap", "7z", "smbclient", "htpasswd", "pass:", "vsce", "ovsx"],
    "gm",
  ),
  // Oracle's user/password@service on its tools' command lines (sqlplus scott/tiger@orcl).
  p(
    "oracle-password",
    String.raw`(\b(?:sqlplus|rman|expdp|impdp|exp|imp|sqlldr|dgmgrl)\b(?:\s+-\w+)*\s+(?:target\s*=\s*|userid\s*=\s*)?["']?[A-Za-z0-9_$#]{1,64}/)(?!\[REDACTED\]|password\b)[^\s@/"']{1,128}`,
    ["sqlplus", "rman", "expdp", "impdp", "exp", "imp", "sqlldr", "dgmgrl"],
    "gi",
  ),
  // A broker's user commands: rabbitmqctl add_user NAME PASSWORD, change_password NAME PASSWORD.
  p(
    "rabbitmq-password",
    String.raw`(\brabbitmqctl\b[^\n]{0,80}?\s(?:add_user|change_password|authenticate_user)\s+["']?[^\s"']{1,128}["']?\s+["']?)(?!\[REDACTED\]|[$%<])[^\s"']{1,256}`,
    ["rabbitmqctl"],
  ),
  // Sybase and SQL Server's isql, osql, sqsh and tsql take -P PASSWORD, as MQTT's mosquitto_pub
  // does; vsql -w, nzsql -pw; Windows' net use \\server\share /user:NAME PASSWORD.
  p(
    "sql-client-password",
    String.raw`(\b(?:isql|osql|sqsh|tsql|mosquitto_(?:pub|sub|rr))\b[^\n]{0,200}?\s-P\s*["']?|\bvsql\b[^\n]{0,200}?\s-w\s*["']?|\bnzsql\b[^\n]{0,200}?\s-pw\s+["']?|\b(?:net|NET)\s+(?:use|USE)\b[^\n]{0,200}?\s/(?:user|USER|u|U):[^\s/"']{1,128}\s+["']?)(?![-$/*]|\[REDACTED\])[^\s"'\x60]{1,256}`,
    ["isql", "osql", "sqsh", "tsql", "vsql", "nzsql", "mosquitto_", "net use", "NET USE"],
  ),
  // A user and password handed as one flag: -u user,password (nzsql, hydra-style tools).
  p("user-comma-password", String.raw`((?:^|\s)-u\s+[A-Za-z0-9_.@-]{1,64},)(?!\[REDACTED\])[^\s,"']{4,128}`, [" -u "], "gm", undefined, undefined, valueAccept),
  // SQL that sets a password: IDENTIFIED BY pw, WITH PASSWORD 'pw', PASSWORD = 'pw'.
  p(
    "sql-password",
    String.raw`(\bidentified\s+by\s+(?:values\s+)?["']?)(?![<$:]|\[REDACTED\]|password\b)[^\s;"']{1,128}|(\b(?:with\s{1,8}|encrypted\s{1,8}|unencrypted\s{1,8})?password\s{0,32}=?\s{0,32}')(?![<$:]|\[REDACTED\])[^'\n]{1,128}(?=')`,
    undefined,
    "gi",
    undefined,
    ["identified", "password"],
    (v) => v.length >= 4 && !/^(?:password|secret|changeme|\?|%s|\*+)$/i.test(v),
  ),
  // A password after "user NAME using" in prose ("connect with user app using Qw3rty!9").
  p(
    "using-password",
    String.raw`((?:\buser(?:name)?\s+[A-Za-z0-9_.@-]{1,64}\s+using|\busing\s+(?:the\s+)?password)\s+["']?)(?!\[REDACTED\])[!-~]{6,128}`,
    undefined,
    "gi",
    undefined,
    ["using"],
    (v) => /[0-9!@#$%^&*]/.test(v) && /[A-Za-z]/.test(v),
  ),
  // Key tools' passphrase flags: keytool and jarsigner -storepass/-keypass, ssh-keygen -N.
  p(
    "keytool-password",
    String.raw`((?:^|\s)-(?:storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass|new)\s+["']?)(?![-$]|\[REDACTED\]|:env|:file)[^\s"'\x60]{1,256}`,
    ["storepass", "keypass", "-new "],
    "gm",
  ),
  p("ssh-keygen-passphrase", String.raw`(\bssh-keygen\b[^\n]{0,200}?\s-[NP]\s+["']?)(?!["'\s]|\[REDACTED\])[^\s"']{1,256}`, ["ssh-keygen"]),
  // IRC's PASS oauth:… (Twitch chat), and oauth:… tokens handed over as they are.
  p("oauth-colon-token", String.raw`(\boauth:)[a-z0-9]{24,}`, ["oauth:"]),
  // A positional key after a command that takes one: ngrok's add-authtoken, and the like.
  p(
    "token-argument",
    String.raw`(\b(?:add-authtoken|authtoken|set-token|set-key)\s+)${NOT_A_VALUE}[A-Za-z0-9_.+/=-]{16,256}`,
    ["authtoken", "set-token", "set-key"],
    "g",
    undefined,
    undefined,
    valueAccept,
  ),
  // An argument next to one that names a secret: page.fill('#password', 'x'), setField("api_key", "x").
  p(
    "secret-argument",
    String.raw`(['"][^'"\n]{0,40}(?:password|passwd|pwd|secret|token|api[_-]?key|passphrase)[^'"\n]{0,40}['"]\s*(?:,|\)\s*\.\s*(?:send_keys|sendKeys|type|fill|setValue)\()\s*['"])(?!\[REDACTED\])[^'"\n]{4,256}(?=['"](?!\s*:))`,
    undefined,
    "gi",
    undefined,
    SECRET_WORDS,
    (v) => (looksLikeValue(v) || v.length >= 8) && !PLACEHOLDER.test(v),
  ),
  // A .pgpass line: host:port:database:user:password.
  p(
    "pgpass-line",
    String.raw`((?<!\S)[^\s:#]{1,253}:(?:\d{1,5}|\*):[^\s:]{1,64}:[^\s:]{1,64}:)(?!\[REDACTED\])\S{1,256}(?=\s|$)`,
    [":"],
    "gm",
    undefined,
    undefined,
    valueAccept,
    /:(?:\d{1,5}|\*):[^\s:]{1,64}:[^\s:]{1,64}:\S/,
  ),
  // A key in a URL's query under a name the assignment shapes do not take: ?key= (WeCom, Maps
  // and many APIs), ?code= (an Azure Function's key, an OAuth grant), ?apikey=, ?api-key=.
  p(
    "url-query-key",
    String.raw`([?&](?:key|apikey|api-key|code|subscription-key)=)(?!\[REDACTED\])[A-Za-z0-9._~%+/-]{16,512}={0,2}`,
    undefined,
    "gi",
    ["://", "?"],
    ["key=", "code="],
    (v, text, at) => looksLikeValue(v) && !PLACEHOLDER.test(v) && inUrl(text, at),
  ),
  // A token given as a URL's user with no password (https://<token>@host/repo.git), as GitHub and
  // Azure DevOps accept: kept only when it reads as words (a user name).
  p(
    "url-user-token",
    String.raw`(\b[a-z][a-z0-9+.-]{0,30}://)(?!\[REDACTED\])[A-Za-z0-9_-]{20,256}(?=@)`,
    ["://"],
    "gi",
    ["@"],
    undefined,
    (v) => looksRandom(v) || (/\d/.test(v) && /[A-Za-z]/.test(v) && /^[A-Za-z0-9]{32,}$/.test(v)),
  ),
  // Every run below is bounded: an unbounded one restarts at each word of a long pasted line and
  // makes the pattern quadratic (a 22 KB line held the Stop hook for minutes).
  // Most notes hold a URL and few an "@", so the "@" it ends before is what spares the scan.
  p("url-password", String.raw`(\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]{0,256}:)(?!\[REDACTED\])[^\s@/]{1,256}(?=@)`, ["://"], "gi", ["@"]),
  p("curl-user", String.raw`(\bcurl\b[^\n]{0,200}?\s(?:-u|--user)[\s=]{0,8}['"]?[^\s:'"]{1,128}:)[^\s'"]{1,256}`, ["curl"]),
  p("mysql-password-flag", String.raw`(\bmysql(?:dump|admin|sh)?\b[^\n]{0,200}?\s-p)(?!\s|-)[^\s'"]{1,256}`, ["mysql"]),
  p(
    "password-flag",
    String.raw`(\b(?:sshpass|docker\s+login|podman\s+login|helm\s+repo\s+add|mongo(?:sh|dump|restore)?)\b[^\n]{0,200}?\s(?:-p|--password)[\s=]{1,8}['"]?)[^\s'"]{1,256}`,
    ["sshpass", "login", "helm", "mongo"],
  ),
  p("netrc-password", String.raw`(\bmachine\s{1,8}\S{1,256}\s{1,8}login\s{1,8}\S{1,256}\s{1,8}password\s{1,8})\S{1,256}`, ["machine"]),
  // A password stated in prose ("the password is …", 密码是 …); the value must hold a digit or a
  // symbol, so that "the password is required" stays as written.
  // Twice, by the same shape: the Latin words in any case (PASSWORT, Mot de passe), the others as
  // written (密码, Пароль), since hints fold only ASCII letters' case.
  p(
    "prose-password",
    String.raw`(${PROSE_PASSWORD_NAMES}(?:\s{1,3}[^\s:：=*]{1,12}(?=[\s:：=])){0,2}?(?:\s*(?:[:：=—]|是|为|為|は|는|은|이|가)|\s+(?:is|was|are|est|ist|lautet|es|é|è|era|to|je|er|on)(?=\s))\s{0,8}(?:\*\*|__)?["'“«]?)(?=[!-~]{0,128}[0-9!@#$%^&*])(?!\[REDACTED\]|[*•]{3,}(?:\s|$)|\*\*(?!\*)|__)(?:(?!["',;)\]}>*])[!-~]|[)\]}>*]+(?=(?!["',;)\]}>*])[!-~])){6,128}`,
    undefined,
    "gi",
    undefined,
    PROSE_PASSWORD_HINTS,
    (v) => !PLACEHOLDER.test(v),
  ),
  p(
    "prose-password-intl",
    String.raw`((?:密码|密碼|口令|秘钥|秘鑰|密钥|密鑰|私钥|私鑰|令牌|トークン|토큰|токен|пароль|パスワード|暗証番号|비밀번호|암호|mật khẩu)(?:\s{1,3}[^\s:：=*]{1,12}(?=[\s:：=])){0,2}?(?:\s*(?:[:：=—]|是|为|為|は|는|은|이|가)|\s+(?:is|was|are|est|ist|lautet|es|é|è|era|to|je|er|on)(?=\s)|[^\S\n]{1,3}(?=[!-~]{6}))\s{0,8}(?:\*\*|__)?["'“«]?)(?=[!-~]{0,128}[0-9!@#$%^&*])(?!\[REDACTED\]|[*•]{3,}(?:\s|$)|\*\*(?!\*)|__)(?:(?!["',;)\]}>*])[!-~]|[)\]}>*]+(?=(?!["',;)\]}>*])[!-~])){6,128}`,
    [
      "密码",
      "密碼",
      "口令",
      "秘钥",
      "秘鑰",
      "密钥",
      "密鑰",
      "私钥",
      "私鑰",
      "令牌",
      "トークン",
      "토큰",
      "токен",
      "Токен",
      "ТОКЕН",
      "パスワード",
      "暗証番号",
      "비밀번호",
      "암호",
      "пароль",
      "Пароль",
      "ПАРОЛЬ",
      "mật khẩu",
      "Mật khẩu",
      "MẬT KHẨU",
    ],
    "gi",
  ),
  // A passphrase of several words stated in prose ("the wifi password is bamboo rocket silver",
  // "**Disk passphrase:** Every green owl eats 9 figs", 密码是：paper lemon tiger 88). It must end
  // its sentence or clause, or be quoted, and read as no sentence does (prosePassphraseAccept):
  // "the password is never shown again" and "is stored in the keychain" stay as written.
  p("prose-passphrase", String.raw`(${PROSE_PASSWORD_NAMES}${PROSE_PASSPHRASE_REST}`, undefined, "gim", undefined, PROSE_PASSWORD_HINTS, prosePassphraseAccept),
  p(
    "prose-passphrase-intl",
    String.raw`((?:密码|密碼|口令|パスワード|パスフレーズ|暗証番号|비밀번호|암호|пароль|Пароль|ПАРОЛЬ|mật khẩu|Mật khẩu)${PROSE_PASSPHRASE_REST}`,
    ["密码", "密碼", "口令", "パスワード", "パスフレーズ", "暗証番号", "비밀번호", "암호", "пароль", "Пароль", "ПАРОЛЬ", "mật khẩu", "Mật khẩu"],
    "gm",
    undefined,
    undefined,
    prosePassphraseAccept,
  ),
  // An account and its password given together: 账号密码 admin / P@ss, 用户名和密码：root/x.
  p(
    "account-password-pair",
    String.raw`((?:账号|帐号|賬號|帳號|用户名|用戶名|用户|帐户|账户)(?:和|与|與|及|/)?(?:密码|密碼|口令)[^\S\n]{0,3}[:：]?[^\S\n]{0,3}[!-~]{1,64}[^\S\n]{0,3}[/／][^\S\n]{0,3})(?!\[REDACTED\])[!-~]{4,128}`,
    ["密码", "密碼", "口令"],
    "g",
    undefined,
    undefined,
    (v) => /[0-9!@#$%^&*]/.test(v),
  ),

  // Configuration that names its secret in a tag or a block rather than in a key: an HCL
  // variable's default, a settings.xml <password>, a wpa_supplicant psk, a Bundler credential.
  p(
    "hcl-secret-default",
    String.raw`(\bvariable\s+"[^"\n]{0,64}(?:password|passwd|secret|token|api_key|apikey|private_key)[^"\n]{0,64}"\s*\{[^}]{0,300}?\bdefault\s*=\s*")(?![<$]|\[REDACTED\])[^"\n]{1,256}(?=")`,
    undefined,
    "gi",
    undefined,
    ["variable"],
  ),
  p(
    "xml-secret-element",
    String.raw`(<(?:password|passwd|passphrase|secret|token|apiKey|api-key|api_key|privateKey|(?:store|key|keystore|truststore|admin|db|database|root|user|master|app|private|bind|mail|smtp|proxy|ldap|service|client)(?:Password|Passphrase)|clientSecret)>)(?![<$]|\[REDACTED\]|\{)[^<\n]{1,256}(?=</)`,
    undefined,
    "gi",
    undefined,
    ["password", "passwd", "passphrase", "secret", "token", "key"],
    // <requirePassword>false</requirePassword>, <hashedPassword>bcrypt</hashedPassword>.
    (v) =>
      !SETTING_WORD.test(v.trim()) &&
      !/^\d+$/.test(v.trim()) &&
      (!/\s/.test(v.trim()) || passphraseAccept(v)) &&
      !/^(?:bcrypt|argon2\w*|scrypt|pbkdf2\w*|sha-?\d*|md5|plain(?:text)?)$/i.test(v.trim()),
  ),
  p(
    "wifi-psk",
    String.raw`(\b(?:psk|wpa_passphrase|sae_password)\s*=\s*")(?![<$]|\[REDACTED\])[^"\n]{8,63}(?=")|(\b(?:psk|wpa_psk)\s*=\s*)[0-9a-fA-F]{64}(?![0-9a-fA-F])`,
    ["psk", "wpa_passphrase", "sae_password"],
    "g",
    undefined,
    undefined,
    (v) => !PLACEHOLDER.test(v),
  ),
  p("bundler-credential", String.raw`(\bBUNDLE_[A-Z0-9_]{1,128}__[A-Z0-9_]{1,64}\s*[=:]\s*["']?[^\s:'"]{1,128}:)(?!\[REDACTED\])[^\s'"]{1,256}`, ["BUNDLE_"]),
  // A URL-encoded assignment (password%3D…, client_secret%3D… in a query or a form body).
  p(
    "url-encoded-secret",
    String.raw`((?:password|passwd|pwd|secret|token|api_?key|access_?key|client_secret|auth)%3D)(?!\[REDACTED\])(?:[^&\s%"'<>]|%(?!26|3[Dd]|3[Ff]|23)[0-9A-Fa-f]{2}){4,256}`,
    undefined,
    "gi",
    undefined,
    ["%3d"],
    (v) => !PLACEHOLDER.test(v),
  ),
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
    String.raw`((?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|(?<![A-Za-z])PASS|(?<![A-Za-z])PWD|(?:API|APP|ACCESS|PRIVATE|ACCOUNT|MASTER|ENCRYPTION|SIGNING|LICENSE|CLIENT|SECRET|INGEST|WRITE|ADMIN)[_.-]?KEY(?:[_.-]?DATA)?|CREDENTIALS?|(?<![A-Za-z])AUTH|(?<![A-Za-z])SIG(?:NATURE)?)(?![A-Za-z0-9])[A-Za-z0-9_.-]{0,64}["']?(?:\*\*|__)?[ \t]{0,8}[:=](?!:)(?:(?:\*\*|__)(?=[ \t]))?[ \t]{0,8}["']?)(?!\[REDACTED\]|\{\{|\$\{|\$[A-Z_]|<|%\(|\*{3}|x{4}|X{4}|\.\.\.|[A-Za-z_$][\w$.:]{0,64}\(|(?:process\.env|os\.environ|import\.meta\.env|env|config|settings|self|this|secrets)[.[]|[a-z]+(?:_[a-z]+)+(?![\w.-])|(?:string|number|boolean|unknown|undefined|object|null|true|false|bigint|symbol)(?![\w$.-]))(?:[^\s"'\x60,;)\]}>*&\u3000-\u9fff\uff00-\uffef]|[)\]}>*]+(?=[^\s"'\x60,;)\]}>*&\u3000-\u9fff\uff00-\uffef])|&(?![A-Za-z_][\w.-]{0,64}=)){6,8192}`,
    undefined,
    "gi",
    undefined,
    ["secret", "token", "pass", "pwd", "key", "credential", "auth", "sig"],
    assignmentAccept,
  ),
  // A passphrase of several words in quotes after a name that ends in password, passphrase or
  // secret ("correct horse battery staple"), or a .NET setting's value named so; or a whole
  // NAME=value quoted ('DB_PASSWORD=…' handed to docker -e). The assignment above stops at the
  // first space, which left every word after the first. The value ends at its own quote (\2, or
  // \3 for NAME=value).
  p(
    "quoted-passphrase",
    String.raw`((?:(?:(?:PASSWORD|PASSWD|PASS[_-]?PHRASE|PASSCODE|(?<![A-Za-z])PASS|(?<![A-Za-z])PWD|SECRET)["']?[ \t]{0,8}(?:[:=]|=>|:=)|\bkey=["'][A-Za-z0-9_.:-]{0,64}(?:PASSWORD|PASSPHRASE|SECRET)["'][ \t]{1,8}value=)[ \t]{0,8}(["'\x60])|(["'])[A-Za-z0-9_.-]{0,64}?(?:PASSWORD|PASSWD|PASSPHRASE|SECRET)=))(?!\[REDACTED\])(?:(?!\2\3)[^\n\\]|\\.){6,256}(?=\2\3)`,
    undefined,
    "gi",
    undefined,
    ["pass", "pwd", "secret"],
    (v) => passphraseAccept(v),
  ),
  // The same after a flag or a command that takes one: --passphrase "…", -storepass, ssh-keygen
  // -N, openssl's pass:, nmcli's password, mysql/7z/zip/sshpass -p, ConvertTo-SecureString, and
  // curl -u 'user:…'. Flags are read in their case: ssh-keygen's -n is a list of names.
  p(
    "flag-passphrase",
    String.raw`((?:(?:(?<![A-Za-z0-9-])--?(?:[A-Za-z0-9]{1,32}-){0,3}(?:password|passphrase|passwd|secret)(?:=|[ \t]{1,8})|(?<![A-Za-z0-9-])-(?:store|key|srcstore|deststore|srckey|destkey)pass[ \t]{1,8}|(?<![A-Za-z0-9-])-pass(?:in|out)?[ \t]{1,8}pass:|(?<![\w./-])ssh-keygen\b[^\n&|;]{0,200}?[ \t]-[NP][ \t]{1,8}|(?<![\w./-])nmcli\b[^\n&|;]{0,200}?[ \t](?:password|wifi-sec\.psk)[ \t]{1,8}|(?<![\w./-])(?:mysql|mysqldump|mysqladmin|mariadb|7z|7za|zip|sshpass)\b[^\n&|;]{0,200}?[ \t]-[pP][ \t]{0,8}|\bConvertTo-SecureString\b[ \t]{1,8}(?:-String[ \t]{1,8})?)(["'])|(?<![\w./-])curl\b[^\n&|;]{0,200}?[ \t](?:-u|--user)[ \t]{1,8}(["'])[^:"'\n]{1,128}:))(?!\[REDACTED\])(?:(?!\2\3)[^\n\\]|\\.){6,256}(?=\2\3)`,
    undefined,
    "g",
    undefined,
    ["pass", "secret", "ssh-keygen", "nmcli", "mysql", "mariadb", "7z ", "zip", "curl", "convertto"],
    (v) => passphraseAccept(v),
  ),
  // The same as a line's whole value, unquoted (YAML, INI, .properties, a note's `**WiFi
  // password:** …`): `password: three word phrase`. The name must end in the word, after `_`, `.`,
  // `-` or as camelCase, so that "bypass:" is not a password's name; a comment after the value
  // (`#`, `//`, `;`) stays. A connection string's `Password=…;` ends at its semicolon.
  p(
    "line-passphrase",
    String.raw`(^[ \t]*(?:[-*+][ \t]{1,3})?(?:\*\*|__)?(?:[A-Za-z0-9]{1,24}[ \t-]){0,3}?(?:[A-Za-z0-9_.-]{0,64}[_.-]|[A-Za-z0-9_.-]{0,64}[a-z0-9](?=[PS]))?(?:[Pp]ass(?:word|[_-]?phrase|wd|code)|PASS(?:WORD|[_-]?PHRASE|WD|CODE)|[Ss]ecret|SECRET|[Pp]wd|PWD)(?:\*\*|__)?(?::(?:\*\*|__)?[ \t]{1,8}|[ \t]{0,8}=[ \t]{0,8}))(?!\[REDACTED\])[^\s"'\x60|>&*!\[{#%<$](?:\S|[ \t]{1,8}(?!#|\/\/|;)(?=\S)){5,255}(?=[ \t]{0,8}(?:(?:#|\/\/|;)[^\n]*)?\r?$)`,
    undefined,
    "gm",
    undefined,
    ["pass", "pwd", "secret"],
    (v) => passphraseAccept(v, true),
  ),
  p(
    "connection-string-passphrase",
    String.raw`([;"'][ \t]{0,8}(?:Password|PASSWORD|password|Pwd|PWD|pwd)[ \t]{0,8}=[ \t]{0,8})(?!\[REDACTED\]|["'{])[^;"'\n]{6,256}?(?=[ \t]{0,8}(?:;|["']))`,
    undefined,
    "g",
    undefined,
    ["pass", "pwd"],
    (v) => passphraseAccept(v),
  ),
  // A container's environment entry: the name that says secret on one line, its value on the
  // next (Kubernetes' `- name: DB_PASSWORD` then `value: …`), one word or several.
  p(
    "env-entry-value",
    String.raw`(\bname:[ \t]*["']?[A-Z0-9_]{0,64}(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_KEY|APIKEY|(?<![A-Za-z])PASS|(?<![A-Za-z])PWD)["']?[ \t]*\r?\n[ \t]*(?:- )?value:[ \t]*["']?)(?!\[REDACTED\]|\$|\{\{|<)[^\n"']{1,256}?(?=["']?(?:[ \t]{1,8}#[^\n]*)?[ \t]{0,8}\r?$)`,
    undefined,
    "gm",
    undefined,
    ["value:"],
    (v) => (/\s/.test(v.trim()) ? passphraseAccept(v, true) : valueAccept(v) && !/^\d+$/.test(v)),
  ),
  // An app password (Google's, Apple's: four groups of four letters) quoted after a password's
  // name: its spaces end any other assignment's value.
  p(
    "app-password",
    String.raw`((?:PASSWORD|PASSWD|PASS|PWD)[A-Za-z0-9_.-]{0,32}["']?[ \t]{0,8}[:=][ \t]{0,8}(["']))[a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4}(?=\2)`,
    undefined,
    "gi",
    undefined,
    ["pass", "pwd"],
  ),
  // The same said in prose: "my app password is abcd efgh ijkl mnop".
  p(
    "prose-app-password",
    String.raw`(\bapp(?:lication)?[ -](?:specific[ -])?password(?:\s+(?:is|was))?\s{0,3}[:：=]?\s{0,3}["'“]?)[a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4}(?![A-Za-z])`,
    undefined,
    "gi",
    undefined,
    ["password"],
  ),
  // Any .env-style assignment, on its own line or inline ("run it with FOO=…"), whose value is
  // long and random-looking: letters and digits both, and not a path.
  p(
    "env-line",
    String.raw`(^|[\s;(])((?:export\s+)?[A-Z][A-Z0-9_]{2,64}=["']?)(?![^\n]{0,512}\[REDACTED\])(?![./~])(?=[A-Za-z0-9+/_\-.]{0,512}\d)(?=[A-Za-z0-9+/_\-.]{0,512}[A-Za-z])[A-Za-z0-9+/_\-.]{24,512}`,
    ["="],
    "g",
    undefined,
    undefined,
    envLineAccept,
  ),
];

// A variable whose name says what its value is (a commit, a version, a model, a place), when the
// name alone does not say secret.
const ENV_NOT_SECRET_NAME =
  /_(?:SHA|COMMIT|REV|REVISION|REF|VERSION|TAG|MODEL|REGION|ZONE|HOST|HOSTNAME|BUCKET|PROJECT|NAME|ID|BRANCH|IMAGE|DOMAIN|SERVICE|ENV|ENVIRONMENT|PATH|DIR|URL)=["']?$/;
const SAYS_SECRET = /(?:SECRET|TOKEN|PASS|PWD|KEY|CREDENTIAL|AUTH|SIG)/;
// Words, numbers and versions joined by - . _ / (claude-sonnet-4-20250514, acme-prod-assets-eu-west-1,
// 2024.11.30-build.1234, api/v1/internal): read, not drawn at random.
const SLUG = /^(?:(?:[a-z]+\d*|\d+)[-._/])+(?:[a-z]+\d*|\d+)$/;

/** An .env line's value, unless its name says what non-secret it is or the value reads as words. */
function envLineAccept(v: string, text: string, at: number): boolean {
  const name = text.slice(Math.max(0, at - 72), at);
  if (!SAYS_SECRET.test(name.slice(name.search(/[A-Z][A-Z0-9_]*=["']?$/))) && ENV_NOT_SECRET_NAME.test(name)) return false;
  return !SLUG.test(v);
}

/** Where each secret in `text` is (the part to hide, its name kept), and which shapes they are. */
function secretSpans(text: string, scanned: Scan = scan(text)): { spans: Array<[number, number]>; ids: Set<string> } {
  const present = scanned.hints;
  const spans: Array<[number, number]> = [];
  const ids = new Set<string>();
  for (const pattern of SECRET_PATTERNS) {
    const { id, hints, hintsAnyCase, needs, accept } = pattern;
    if (hints && !hints.some((h) => present.exact.has(h))) continue;
    if (hintsAnyCase && !hintsAnyCase.some((h) => present.anyCase.has(h))) continue;
    if (needs && !needs.every((n) => text.includes(n))) continue;
    if (pattern.gate && !pattern.gate.test(text)) continue;
    if (pattern.find) {
      for (const [a, b] of pattern.find(text, scanned.runs)) {
        if (text.slice(a, b).includes(REDACTED)) continue;
        spans.push([a, b]);
        ids.add(id);
      }
      continue;
    }
    const re = pattern.re;
    // The matches matchAll would give, without the copy of the pattern it makes for each text.
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0] === "") {
        re.lastIndex++;
        continue;
      }
      // What stays: the name before the value (group 1; env-line's groups 1 and 2).
      const kept = id === "env-line" ? (m[1] ?? "").length + (m[2] ?? "").length : (m.slice(1).find((g) => typeof g === "string") ?? "").length;
      const start = m.index + kept;
      const value = m[0].slice(kept);
      if (value === "" || value.includes(REDACTED)) continue;
      if (accept && !accept(value, text, start)) continue;
      spans.push([start, m.index + m[0].length]);
      ids.add(id);
    }
  }
  return { spans, ids };
}

/**
 * The spans of secrets that a line break runs through: each pair of lines a key may have been
 * wrapped across is read joined, and what is found across the join is mapped back. A run of such
 * breaks (a base64 block, a certificate) is not a wrapped key and is passed over.
 */
function wrappedSpans(text: string, found: Array<[number, number]>, ids?: Set<string>): Array<[number, number]> {
  const wraps = wrapsIn(text);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < wraps.length; i++) {
    const w = wraps[i];
    const chained = (i > 0 && wraps[i - 1].to >= w.from) || (i + 1 < wraps.length && wraps[i + 1].from <= w.to);
    if (chained) continue;
    if (found.some(([a, b]) => a <= w.from && b >= w.to)) continue;
    // A key hidden up to the line's end goes on into the next line only if that line opens with
    // what a key's tail holds, a digit: joined to a word of the next sentence ("TypeScript
    // errors remain"), it would hide that word too.
    const hidden = found.some(([a, b]) => a < w.breakStart && b >= w.breakStart);
    if (hidden && !/[0-9]/.test(text.slice(w.breakEnd, w.to))) continue;
    // Nor is a line that opens with an assignment (DB_HOST=localhost) the rest of a key: in a
    // key, = is only the padding at its end.
    const eq = text.indexOf("=", w.breakEnd);
    if (eq >= 0 && eq < w.to && text.charCodeAt(eq + 1) !== 61 && eq + 1 < w.to) continue;
    // A certificate's or public key's lines are wrapped base64, not a key cut in two.
    if (inPublicArmour(text, w.from)) continue;
    const lineStart = text.lastIndexOf("\n", w.from - 1) + 1;
    const nl = text.indexOf("\n", w.to);
    const lineEnd = nl < 0 ? text.length : nl;
    const first = text.slice(lineStart, w.breakStart);
    const joined = first + text.slice(w.breakEnd, lineEnd);
    const at = first.length;
    const back = (k: number): number => (k <= at ? lineStart + k : w.breakEnd + (k - at));
    const inJoined = secretSpans(joined);
    // Each line's part hidden apart, so the line break and the indentation stay as written.
    for (const [a, b] of inJoined.spans)
      if (a < at && b > at) {
        out.push([back(a), w.breakStart]);
        out.push([w.breakEnd, back(b)]);
      }
    if (ids && out.length > 0) for (const id of inJoined.ids) ids.add(id);
  }
  return out;
}

/** `text` with each span replaced by [REDACTED], overlapping spans as one. */
function applySpans(text: string, spans: Array<[number, number]>): string {
  if (spans.length === 0) return text;
  spans.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  let out = "";
  let from = 0;
  let end = -1;
  for (const [a, b] of spans) {
    if (a >= end) {
      if (end >= 0) out += REDACTED;
      out += text.slice(from, a);
      end = b;
    } else end = Math.max(end, b);
    from = end;
  }
  return out + REDACTED + text.slice(from);
}

/**
 * The secrets found so far in one conversation, so that a turn which says one again where no
 * shape shows it (a reply that repeats a passphrase in the middle of a sentence) loses it too.
 * Held in memory while one transcript is read, never written. Only values that cannot be an
 * ordinary word are kept (a token with a letter and a digit or a symbol, or three words or more),
 * so that hiding them again elsewhere changes nothing else; at most MAX_SEEN of them.
 */
export class SeenSecrets {
  static readonly MAX_SEEN = 1024;
  readonly #values = new Map<string, RegExp>();

  note(value: string): void {
    const v = value.trim();
    if (v.length < 8 || v.length > 256 || v.includes("\n") || v.includes(REDACTED) || this.#values.has(v) || this.#values.size >= SeenSecrets.MAX_SEEN) return;
    const words = v.split(/\s+/);
    if (words.length === 1 ? !/[A-Za-z]/.test(v) || !/[\d!@#$%^&*+=~]/.test(v) : words.length < 3) return;
    const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    this.#values.set(v, new RegExp(escaped.join("[\\s_-]+"), "gi"));
  }

  /**
   * `text` with every secret seen so far replaced, whatever its case and however its words are
   * spaced or joined (a line break, a hyphen); and a text `cut` at its bound in the middle of one
   * loses the part it ends with. A value whose first word the text lacks is not
   * searched for, so a long conversation with many secrets costs a look for each.
   */
  hide(text: string, cut = false): string {
    if (this.#values.size === 0) return text;
    let out = text;
    let lower = text.toLowerCase();
    for (const [v, re] of this.#values) {
      if (!lower.includes(v.slice(0, v.search(/\s|$/)).toLowerCase())) continue;
      re.lastIndex = 0;
      const next = out.replace(re, REDACTED);
      if (next !== out) lower = (out = next).toLowerCase();
    }
    if (!cut) return out;
    const tail = out.slice(-256);
    for (const v of this.#values.keys()) {
      if (!tail.includes(v.slice(0, 8))) continue;
      for (let k = Math.min(v.length - 1, out.length); k >= 8; k--) {
        if (out.endsWith(v.slice(0, k))) {
          out = out.slice(0, out.length - k) + REDACTED;
          break;
        }
      }
    }
    return out;
  }
}

/**
 * Replaces every secret-shaped value with [REDACTED]; keeps names, so the text still reads.
 * Invisible characters inside a key are taken out first, and a key wrapped across two lines is
 * found whole. With `seen`, what is found is noted there, and what was found before is hidden here.
 */
export function redactSecrets(text: string, seen?: SeenSecrets): string {
  let scanned = scan(text);
  let clean = text;
  if (scanned.invisible) scanned = scan((clean = normalizeInvisible(text)));
  const { spans } = secretSpans(clean, scanned);
  const all = [...spans, ...wrappedSpans(clean, spans)];
  if (!seen) return applySpans(clean, all);
  for (const [a, b] of all) seen.note(clean.slice(a, b));
  return seen.hide(applySpans(clean, all));
}

/** Which secret shapes `text` holds, for the linter: ids only, never the values. */
export function findSecrets(text: string): string[] {
  let scanned = scan(text);
  let clean = text;
  if (scanned.invisible) scanned = scan((clean = normalizeInvisible(text)));
  const { spans, ids } = secretSpans(clean, scanned);
  wrappedSpans(clean, spans, ids);
  return [...ids];
}

// Hints by a hash of their first three characters; a slot's hints are checked where the text has
// three characters of that hash, so a collision costs a comparison and never a wrong answer. Two
// characters would do, but pairs such as "se" and "pa" start too many words.
const SLOTS = 1 << 15;
const slotOf = (a: number, b: number, c: number): number => ((((a * 977) ^ b) * 977) ^ c) & (SLOTS - 1);

// Up to this length a text's hints are searched for one by one (a prompt, a card's name): the
// table costs more to build than a short text takes to search, and the prompt hook cleans its
// prompt before the embedding request can leave.
const SHORT_TEXT = 2048;

interface HintList {
  /** Every hint, by number; lower case where it is any-case. */
  texts: string[];
  anyCase: boolean[];
}

let hintList: HintList | undefined;

function listHints(): HintList {
  const exact = [...new Set(SECRET_PATTERNS.flatMap((p) => p.hints ?? []))];
  const anyCase = [...new Set(SECRET_PATTERNS.flatMap((p) => p.hintsAnyCase ?? []))];
  return { texts: [...exact, ...anyCase], anyCase: [...exact.map(() => false), ...anyCase.map(() => true)] };
}

interface HintTable extends HintList {
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
  const table: HintTable = {
    ...(hintList ??= listHints()),
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
export function hintsIn(text: string, table = false): HintsFound {
  return scan(text, table).hints;
}

/** What one pass over a text finds: the hints, the runs of token characters long enough to be a key, and invisible characters. */
interface Scan {
  hints: HintsFound;
  /** Start and end of each run of 20 or more token characters, in pairs. */
  runs: number[];
  /** Whether the text holds a zero-width or bidirectional control character (see normalizeInvisible). */
  invisible: boolean;
}

/**
 * Which hints a short text holds, each searched for on its own: the table's answer exactly. An
 * any-case hint is looked for in the text lowered, and each place it is found checked in the text
 * itself, since lowering turns a few non-ASCII letters (the Kelvin sign) into ASCII ones; where
 * lowering changes the text's length, places do not line up, and the table answers.
 */
function hintsOneByOne(text: string): Uint8Array | undefined {
  const { texts, anyCase } = (hintList ??= listHints());
  const seen = new Uint8Array(texts.length);
  let lower: string | undefined;
  for (let id = 0; id < texts.length; id++) {
    const hint = texts[id];
    if (!anyCase[id]) {
      if (text.includes(hint)) seen[id] = 1;
      continue;
    }
    lower ??= text.toLowerCase();
    if (lower.length !== text.length) return undefined;
    for (let at = lower.indexOf(hint); at >= 0; at = lower.indexOf(hint, at + 1)) {
      if (startsWithAnyCase(text, hint, at)) {
        seen[id] = 1;
        break;
      }
    }
  }
  return seen;
}

// One loop for everything that looks at each character: a second and third pass (long runs,
// invisible characters) over every note cost lint of a large vault more than its patterns.
// `table`: the hints by the table whatever the text's length, for the test that holds the two ways together.
function scan(text: string, table = false): Scan {
  const oneByOne = !table && text.length <= SHORT_TEXT ? hintsOneByOne(text) : undefined;
  const t = oneByOne ? undefined : (hintTable ??= buildHintTable());
  const seen = oneByOne ?? new Uint8Array(t!.texts.length);
  if (t) for (const id of t.short) if (text.includes(t.texts[id])) seen[id] = 1;
  const runs: number[] = [];
  let invisible = false;
  let runStart = 0;
  const n = text.length;
  let a = text.charCodeAt(0);
  let b = text.charCodeAt(1);
  for (let i = 0; i < n; i++) {
    // `a` is the character at i.
    // A run of key characters ends here ("~" ends it too: a key's tilde is inside a longer token).
    if (!TOKEN_CODE(a) || a === 126) {
      if (i - runStart >= 20) runs.push(runStart, i);
      runStart = i + 1;
      if (a >= 0xad && !invisible && isInvisibleCode(a)) invisible = true;
    }
    if (!t || i + 2 >= n) {
      a = b;
      b = text.charCodeAt(i + 2);
      continue;
    }
    const c = text.charCodeAt(i + 2);
    const bucket = t.bucketOfSlot[slotOf(a, b, c)];
    if (bucket >= 0) {
      for (const id of t.buckets[bucket]) {
        if (seen[id] === 0 && (t.anyCase[id] ? startsWithAnyCase(text, t.texts[id], i) : text.startsWith(t.texts[id], i))) seen[id] = 1;
      }
    }
    a = b;
    b = c;
  }
  if (n - runStart >= 20) runs.push(runStart, n);
  const { texts, anyCase } = t ?? hintList!;
  const hints: HintsFound = { exact: new Set(), anyCase: new Set() };
  seen.forEach((s, id) => {
    if (s === 1) (anyCase[id] ? hints.anyCase : hints.exact).add(texts[id]);
  });
  return { hints, runs, invisible };
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
  // Most texts have no "<" at all; a regular expression is compiled on its first use.
  if (depth === 0 && (!text.includes("<") || !/<\/?private>/i.test(text))) return { text, depth };
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

/**
 * Removes what our own hooks added (recall's cards, the session brief), so the queue never stores
 * our injected lines: exactly a framed block, from a line that is the opening marker to the next
 * line that is the closing one (see recall-header.ts), and an earlier release's unframed block, a
 * line that is a whole header followed by card lines (`- ` and an absolute path). A person's text
 * that quotes a header or a marker inside a line is left as it is.
 */
export function stripRecallBlock(text: string): string {
  if (!text.includes(NOTES_OPEN) && !text.includes(RECALL_HEADER) && !text.includes(BRIEF_HEADER)) return text;
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    if (line === NOTES_OPEN) {
      let end = i + 1;
      while (end < lines.length && lines[end].replace(/\r$/, "") !== NOTES_CLOSE) end++;
      if (end < lines.length) {
        i = end;
        continue;
      }
    }
    if (line === RECALL_HEADER || (line.startsWith(BRIEF_HEADER) && line.endsWith("read_card opens one:"))) {
      let end = i + 1;
      while (end < lines.length && /^- (?:\/|[A-Za-z]:\\|\\\\)/.test(lines[end])) end++;
      if (end > i + 1) {
        i = end - 1;
        continue;
      }
    }
    out.push(lines[i]);
  }
  return out.join("\n");
}

/** What sanitize took out of `text`, by kind, for a tool that must say so truly: our own recall lines, private passages, secrets. */
export function whatSanitizeRemoves(text: string): { recall: boolean; private: boolean; secrets: boolean } {
  const kept = stripPrivate(text);
  const ours = stripRecallBlock(kept);
  return { private: kept !== text, recall: ours !== kept, secrets: redactSecrets(ours) !== ours };
}

/** Everything that must happen to text before it is cut, stored or sent; `seen` as for redactSecrets. */
export function sanitize(text: string, seen?: SeenSecrets): string {
  return sanitizeFrom(text, 0, seen).text;
}

/** sanitize for text that continues earlier text, carrying open private passages (see stripPrivateFrom). */
export function sanitizeFrom(text: string, privateDepth: number, seen?: SeenSecrets): { text: string; depth: number } {
  const kept = stripPrivateFrom(text, privateDepth);
  return { text: redactSecrets(stripRecallBlock(kept.text), seen), depth: kept.depth };
}
