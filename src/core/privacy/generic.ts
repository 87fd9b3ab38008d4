/**
 * What the named shapes cannot know: whether a run of characters looks random enough to be a
 * key, and text made so that no shape sees the key in it (a zero-width character inside, a line
 * break through the middle). Named shapes will always trail the next provider; these do not.
 */

const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const classOf = (c: number): number => (isLower(c) ? 1 : isUpper(c) ? 2 : isDigit(c) ? 3 : 0);

/** Shannon entropy of `s`, in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) counts.set(s.charCodeAt(i), (counts.get(s.charCodeAt(i)) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

export interface Randomness {
  lower: number;
  upper: number;
  digits: number;
  /** Of the neighbouring letter and digit pairs, the share that change kind (lower, upper, digit). */
  changes: number;
  /** The longest run of one kind. */
  longestRun: number;
  entropy: number;
}

export function randomness(s: string): Randomness {
  let lower = 0;
  let upper = 0;
  let digits = 0;
  let pairs = 0;
  let changes = 0;
  let run = 0;
  let longestRun = 0;
  let prev = 0;
  for (let i = 0; i < s.length; i++) {
    const k = classOf(s.charCodeAt(i));
    if (k === 1) lower++;
    else if (k === 2) upper++;
    else if (k === 3) digits++;
    if (k !== 0 && prev !== 0) {
      pairs++;
      if (k !== prev) changes++;
    }
    run = k !== 0 && k === prev ? run + 1 : 1;
    longestRun = Math.max(longestRun, run);
    prev = k;
  }
  return { lower, upper, digits, changes: pairs ? changes / pairs : 0, longestRun, entropy: entropy(s) };
}

/**
 * The entropy a random string of `n` characters from an alphabet of `k` has on average, in bits
 * per character: short strings repeat characters by chance, so they fall short of log2(k).
 */
function expectedEntropy(n: number, k: number): number {
  return Math.log2(k) - (k - 1) / (2 * n * Math.LN2);
}

/** The alphabet a token seems drawn from: hexadecimal, one case and digits, or both cases and digits. */
function alphabetOf(s: string, r: Randomness): number {
  if (/^[0-9a-f]+$/.test(s) || /^[0-9A-F]+$/.test(s)) return 16;
  return r.lower > 0 && r.upper > 0 ? 62 : 36;
}

/**
 * Whether a token with no known prefix looks like a key: long, letters of both cases and digits,
 * kinds changing often (identifiers, words and hex digests change seldom or lack a kind), and
 * nearly as many distinct characters as a random draw would give. Measured on every corpus vault
 * (see docs/reliability.md).
 */
export function looksRandom(s: string): boolean {
  if (s.length < 24) return false;
  const r = randomness(s);
  if (r.lower < 3 || r.upper < 3 || r.digits < 2) return false;
  if (r.longestRun > 9) return false;
  return r.changes >= 0.4 && r.entropy >= 0.85 * expectedEntropy(s.length, 62);
}

/**
 * Whether the body of a token that has a prefix of its own (`napi_…`, `tskey-auth-…`) looks like
 * a key: a prefix is a strong sign already, so one case of letters with digits will do, and
 * hexadecimal too, or both cases with few digits; plain words joined by `_` or `-` will not.
 */
export function looksRandomAfterPrefix(body: string): boolean {
  if (body.length < 20) return false;
  const r = randomness(body);
  const mixed = r.upper >= 4 && r.lower >= 4;
  if ((r.digits < 2 && !mixed) || r.lower + r.upper < 3) return false;
  return r.changes >= 0.15 && r.entropy >= 0.85 * expectedEntropy(body.length, alphabetOf(body, r));
}

/** A value in a secret's place (after a flag, header or name that says secret): random-looking or with a digit or symbol. */
export function looksLikeValue(v: string): boolean {
  if (v.length < 6) return false;
  // Something that reads as words ("required", "none", "changeme") is not a value to hide.
  return /[0-9!@#$%^&*+=~]/.test(v) || (v.length >= 16 && /[A-Z]/.test(v) && /[a-z]/.test(v));
}

// Invisible characters someone may paste inside a key, or put there to split it: zero-width
// spaces and joiners, the word joiner, a byte-order mark, a soft hyphen; and the bidirectional
// controls, which also reorder what a reader sees (the "Trojan source" trick).
// An alternation, not a class: a class holding the zero-width joiner reads as a joined sequence.
const ZERO_WIDTH_RUN = /(?:\u200B|\u200C|\u200D|\u2060|\uFEFF|\u00AD|\u180E)+/g;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/g;
/** Whether a character is one of them (the zero-width ones or a bidirectional control). */
export const isInvisibleCode = (c: number): boolean =>
  c === 0xad || c === 0x180e || (c >= 0x200b && c <= 0x200d) || c === 0x2060 || c === 0xfeff || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);

/** Whether `text` holds any of them: a loop, since a search for a class of such characters is slow on long notes. */
function hasInvisible(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isInvisibleCode(text.charCodeAt(i))) return true;
  return false;
}

/**
 * Text as a reader sees it: bidirectional controls out everywhere; a zero-width character out
 * where it stands inside what reads as a key (a run of letters, digits and the like of at least
 * 12 characters with a digit, either side of it), and kept elsewhere: it shapes emoji sequences,
 * Persian and Khmer words, and marks where a long word may break.
 */
export function normalizeInvisible(text: string): string {
  if (!hasInvisible(text)) return text;
  const t = text.replace(BIDI, "");
  return t.replace(ZERO_WIDTH_RUN, (run: string, at: number) => {
    let a = at;
    while (a > 0 && TOKEN_CODE(t.charCodeAt(a - 1))) a--;
    let b = at + run.length;
    while (b < t.length && TOKEN_CODE(t.charCodeAt(b))) b++;
    const joined = t.slice(a, at) + t.slice(at + run.length, b);
    return a < at && b > at + run.length && joined.length >= 12 && /\d/.test(joined) ? "" : run;
  });
}

/**
 * Whether `text` from `from` to `to` may be key material, at a first look: a digit, or at least
 * `eachCase` capitals and as many small letters; most runs (paths, rules, words) have neither.
 */
export function keyish(text: string, from: number, to: number, eachCase = 2): boolean {
  let upper = 0;
  let lower = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
    if (c >= 65 && c <= 90) upper++;
    else if (c >= 97 && c <= 122) lower++;
  }
  return upper >= eachCase && lower >= eachCase;
}

/** A line break a key may have been wrapped at: where the two lines meet, and the pair's ends. */
export interface Wrap {
  /** Where the first line's text ends (the break starts). */
  breakStart: number;
  /** Where the second line's text starts (after the break and any indentation). */
  breakEnd: number;
  /** The start of the first line's last token and the end of the second line's first token. */
  from: number;
  to: number;
}

const TOKEN_CODES = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=~-") TOKEN_CODES[c.charCodeAt(0)] = 1;
/** Whether a character may be part of a key: ASCII letters, digits and _ + / = ~ -. */
export const TOKEN_CODE = (c: number): boolean => c < 128 && TOKEN_CODES[c] === 1;

/**
 * The line breaks in `text` that may run through a key: the first line ends in a token of at
 * least 8 characters, and the next line starts with one of at least 8 that is the whole line or
 * is followed by a space. Wrapped prose rarely qualifies (its words are short); a wrapped key does.
 */
export function wrapsIn(text: string): Wrap[] {
  const out: Wrap[] = [];
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", nl + 1)) {
    let a = nl;
    if (a > 0 && text.charCodeAt(a - 1) === 13) a--;
    let from = a;
    while (from > 0 && TOKEN_CODE(text.charCodeAt(from - 1))) from--;
    if (a - from < 8) continue;
    let b = nl + 1;
    while (b < text.length && (text.charCodeAt(b) === 32 || text.charCodeAt(b) === 9)) b++;
    let to = b;
    while (to < text.length && TOKEN_CODE(text.charCodeAt(to))) to++;
    if (to - b < 8) continue;
    const next = to < text.length ? text.charCodeAt(to) : 10;
    if (next !== 10 && next !== 13 && next !== 32 && next !== 9 && next !== 96 && next !== 34 && next !== 39) continue;
    // The rest of a key looks like one (a digit, or capitals and small letters both); a word of
    // the next sentence does not, and is not joined to a key the first line ends with.
    if (!keyish(text, b, to)) continue;
    out.push({ breakStart: a, breakEnd: b, from, to });
  }
  return out;
}
