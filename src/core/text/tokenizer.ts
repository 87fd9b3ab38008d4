/** The one tokenizer: Latin-script words and CJK bigrams, shared by the index, the query and every scorer. */

import { stem } from "./stemmer";
import { CJK_PARTICLES, CJK_STOP_TERMS, ENGLISH_STOP_WORDS } from "./stopwords";
import { REGIONAL_PHRASES, T2S_PAIRS } from "./t2s-table";

// Bumped whenever the terms produced for the same text change, so that a snapshot built by an
// older tokenizer is refused instead of silently matching nothing.
export const TOKENIZER_VERSION = 6;

export interface TokenizerOptions {
  /** Fold English inflections: "notes" and "note", "deleted" and "delete" become one term. */
  stem: boolean;
  /**
   * Fold traditional Chinese characters into simplified, and add the mainland's word beside a
   * Taiwan or Hong Kong one (連結 → also 链接, 外掛 → also 插件), so one vault can hold both.
   */
  foldChinese: boolean;
  /**
   * Cut Japanese where the script changes (漢字, カタカナ, ひらがな) and leave out the hiragana
   * runs: they are particles and endings ("ここまでにしましょう"), and their pairs match anything.
   */
  splitKana: boolean;
}

/** The user's original rules, kept for the evaluation's side-by-side baseline. */
export const PLAIN_TOKENIZER: TokenizerOptions = { stem: false, foldChinese: false, splitKana: false };
export const DEFAULT_TOKENIZER: TokenizerOptions = { stem: true, foldChinese: true, splitKana: true };

// Words longer than this are hashes, base64 or minified code: noise that bloats the index.
const MAX_WORD_LENGTH = 40;

// Character classes of the scanner.
const BREAK = 0;
const WORD = 1;
const CJK = 2;
type Kind = typeof BREAK | typeof WORD | typeof CJK;

/** Terms of `text` in order, stop words removed; duplicates kept, since BM25 counts them. */
export function tokenize(text: string, options: TokenizerOptions = DEFAULT_TOKENIZER): string[] {
  const out: string[] = [];
  forEachTerm(text, options, (term) => out.push(term));
  return out;
}

/** A regional word found in the text (in simplified characters) and the mainland's word for it. */
export type RegionalWord = [regional: string, mainland: string];

/**
 * The prompt's terms, with the mainland words for its regional ones given apart rather than
 * added: a query makes them alternatives of one word, so that 檔案 matching both 档案 and 文件 in a
 * card counts once.
 */
export function tokenizeQuery(text: string, options: TokenizerOptions = DEFAULT_TOKENIZER): { terms: string[]; regional: RegionalWord[] } {
  const terms: string[] = [];
  const regional: RegionalWord[] = [];
  forEachTerm(
    text,
    options,
    (term) => terms.push(term),
    (word) => regional.push(word),
  );
  return { terms, regional };
}

/**
 * `text` in simplified characters with each regional word replaced by the mainland's, or
 * undefined when it holds none. For short phrases a person chose (a synonyms note's), where
 * replacing cannot straddle two words the way it can in running text.
 */
export function mainlandVariant(text: string): string | undefined {
  // Called for every synonym phrase on every recall: Latin phrases leave at once.
  if (isAscii(text)) return undefined;
  const chars = Array.from(text.normalize("NFKC").toLowerCase(), (c) => T2S.get(c) ?? c);
  const found = regionalWordsIn(chars);
  if (found.length === 0) return undefined;
  let out = chars.join("");
  for (const [from, to] of found) out = out.replace(from, to);
  return out;
}

/** Called with each term and where it is: from and to in the text forEachTerm returns. */
type Emit = (term: string, from: number, to: number) => void;

/** A term of a text, and the words it was made from as the person wrote them (`text.slice(from, to)`). */
export interface TermSpan {
  term: string;
  from: number;
  to: number;
}

/**
 * The terms tokenizeQuery gives for `text`, each with where it came from, in `text` as returned
 * (the text folded as the tokenizer reads it, in its own case): to show a person the words of
 * theirs that matched, not the stems ("nightly", not "nightli").
 */
export function termSpans(text: string, options: TokenizerOptions = DEFAULT_TOKENIZER): { text: string; spans: TermSpan[] } {
  const spans: TermSpan[] = [];
  const read = forEachTerm(
    text,
    options,
    (term, from, to) => spans.push({ term, from, to }),
    () => {},
  );
  return { text: read, spans };
}

/** Distinct terms of `text`, in first-seen order. */
export function uniqueTerms(text: string, options: TokenizerOptions = DEFAULT_TOKENIZER): string[] {
  return [...new Set(tokenize(text, options))];
}

// A hand-written scanner rather than a Unicode-property regex: compiling \p{Script=Han} costs a
// cold hook process several milliseconds, more than the whole recall after it.
function forEachTerm(text: string, options: TokenizerOptions, emit: Emit, onRegional?: (word: RegionalWord) => void): string {
  // NFKC folds full-width Latin and half-width kana; pure ASCII needs no folding.
  const folded = isAscii(text) ? text : text.normalize("NFKC");
  const s = folded.toLowerCase();
  // The word as written, for its capitals (GeneratedApiClient); where lower-casing changed the
  // length (a dotted İ), the positions no longer line up and words are taken whole.
  const cased = folded.length === s.length ? folded : undefined;
  let start = 0;
  let kind = BREAK;
  for (let i = 0; i <= s.length;) {
    const cp = i < s.length ? (s.codePointAt(i) as number) : 32;
    const k = classify(cp);
    if (k !== kind) {
      if (kind === WORD)
        emitWord(s.slice(start, i), start, options, emit, cased !== undefined && hasInnerCapital(cased, start, i) ? cased.slice(start, i) : undefined);
      else if (kind === CJK) emitCjkRun(s.slice(start, i), start, options, emit, onRegional);
      start = i;
      kind = k;
    }
    i += cp > 0xffff ? 2 : 1;
  }
  // What the positions given to `emit` index: the text as written, folded, in its own case where that keeps the positions.
  return cased ?? s;
}

/**
 * Whether `text` is written in Han, kana or Hangul: a quarter of its letters, or a short phrase
 * of them whatever else it holds, so that a line of Chinese above a pasted English stack trace
 * counts as Chinese. For telling a prompt and a card in two languages apart (see fuseSemantic).
 */
const CJK_PHRASE = 6;

export function writtenInCjk(text: string): boolean {
  let cjk = 0;
  let letters = 0;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i) as number;
    const k = classify(cp);
    if (k === CJK) cjk++;
    if (k !== BREAK) letters++;
    i += cp > 0xffff ? 2 : 1;
  }
  return cjk >= CJK_PHRASE || (letters > 0 && cjk * 4 >= letters);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function classify(cp: number): Kind {
  if (cp < 0x80) {
    return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) ? WORD : BREAK;
  }
  if (isCjk(cp)) return CJK;
  return isSeparator(cp) ? BREAK : WORD;
}

/** Han, kana and Hangul: written without spaces, so cut into overlapping pairs of characters. */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x3040 && cp <= 0x30ff) ||
    (cp >= 0xac00 && cp <= 0xd7af) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x3ffff) ||
    (cp >= 0x31f0 && cp <= 0x31ff) ||
    (cp >= 0x1100 && cp <= 0x11ff) ||
    (cp >= 0x3130 && cp <= 0x318f) ||
    cp === 0x3005 ||
    cp === 0x3007
  );
}

/** Spaces, punctuation, symbols, emoji and private use outside ASCII; everything else is a letter. */
function isSeparator(cp: number): boolean {
  return (
    cp <= 0xbf ||
    cp === 0xd7 ||
    cp === 0xf7 ||
    (cp >= 0x2000 && cp <= 0x2bff) ||
    (cp >= 0x2e00 && cp <= 0x2e7f) ||
    (cp >= 0x3000 && cp <= 0x303f) ||
    (cp >= 0xd800 && cp <= 0xf8ff) ||
    (cp >= 0xfe00 && cp <= 0xfe6f) ||
    (cp >= 0xff00 && cp <= 0xffff) ||
    (cp >= 0x1f000 && cp <= 0x1faff)
  );
}

function emitWord(word: string, at: number, options: TokenizerOptions, emit: Emit, cased?: string): void {
  if (word.length > MAX_WORD_LENGTH) return;
  // A lone letter is never a subject; a lone digit run ("2", "404") can be, if it is long enough.
  if (word.length < 2) return;
  if (!ENGLISH_STOP_WORDS.has(word)) emit(options.stem ? stem(word) : word, at, at + word.length);
  // An identifier written in camelCase or PascalCase is also its words, so that a prompt naming
  // GeneratedApiClient meets a card about the "API client" (snake_case, dotted and slashed
  // names are split already: _ . / are not letters). The whole word stays a term too.
  if (cased === undefined) return;
  let from = at;
  for (const part of camelParts(cased)) {
    if (part.length >= 2 && !ENGLISH_STOP_WORDS.has(part)) emit(options.stem ? stem(part) : part, from, from + part.length);
    from += part.length;
  }
}

/**
 * The words of an identifier by its capitals: "GeneratedApiClient" → generated, api, client;
 * "parseJSONResponse" → parse, json, response; "useEffect" → use, effect. None for a word with
 * no inner capital ("Hello", "HTTP"), nor for a name of two capitalised words ("JavaScript",
 * "HTTPServer") or one that starts with a lone letter ("iPhone").
 */
export function camelParts(word: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i < word.length; i++) {
    const prev = word.charCodeAt(i - 1);
    const c = word.charCodeAt(i);
    const next = i + 1 < word.length ? word.charCodeAt(i + 1) : 0;
    const lowerToUpper = isLowerAscii(prev) && isUpperAscii(c);
    // The last capital of a run starts the next word when a lower-case letter follows it (HTTPServer).
    const acronymEnd = isUpperAscii(prev) && isUpperAscii(c) && isLowerAscii(next);
    if (lowerToUpper || acronymEnd) {
      parts.push(word.slice(start, i).toLowerCase());
      start = i;
    }
  }
  if (start === 0) return [];
  parts.push(word.slice(start).toLowerCase());
  // Two capitalised words are more often a name (JavaScript, GitHub, YouTube) than code, and
  // their halves match the wrong cards; code has three or more, or starts in lower case (useEffect).
  const code = parts.length >= 3 || (isLowerAscii(word.charCodeAt(0)) && parts[0].length >= 2);
  return code ? parts : [];
}

/** Whether the word from `start` to `end` has a capital after its first letter: most words do not, and are not looked at again. */
function hasInnerCapital(cased: string, start: number, end: number): boolean {
  for (let k = start + 1; k < end; k++) if (isUpperAscii(cased.charCodeAt(k))) return true;
  return false;
}

const isLowerAscii = (c: number): boolean => c >= 0x61 && c <= 0x7a;
const isUpperAscii = (c: number): boolean => c >= 0x41 && c <= 0x5a;

function emitCjkRun(run: string, at: number, options: TokenizerOptions, emit: Emit, onRegional?: (word: RegionalWord) => void): void {
  const chars = Array.from(run);
  // Where each character starts in the text, counted before folding, which may swap a character
  // for one of another length; and one past the end.
  const starts = new Array<number>(chars.length + 1);
  starts[0] = at;
  for (let i = 0; i < chars.length; i++) starts[i + 1] = starts[i] + chars[i].length;
  let regional: RegionalWord[] = [];
  if (options.foldChinese) {
    for (let i = 0; i < chars.length; i++) chars[i] = T2S.get(chars[i]) ?? chars[i];
    regional = regionalWordsIn(chars);
  }
  if (options.splitKana && chars.some((c) => scriptOf(c) !== OTHER)) {
    let start = 0;
    for (let i = 1; i <= chars.length; i++) {
      if (i < chars.length && scriptOf(chars[i]) === scriptOf(chars[start])) continue;
      if (scriptOf(chars[start]) !== HIRAGANA) emitPairs(chars.slice(start, i), starts.slice(start, i + 1), emit);
      start = i;
    }
  } else emitPairs(chars, starts, emit);
  // Added after the run, never substituted: without word boundaries a regional word can be found
  // across two words (运行程序 holds 行程), and replacing it would lose the words really there.
  for (const word of regional) {
    if (onRegional) onRegional(word);
    else emitPairs(Array.from(word[1]), [], emit, [at, at + run.length]);
  }
}

const HIRAGANA = 1;
const KATAKANA = 2;
const OTHER = 0;

// Chinese has no kana, so a Chinese run is always cut into pairs whole.
function scriptOf(ch: string): number {
  const cp = ch.charCodeAt(0);
  if (cp >= 0x3040 && cp <= 0x309f) return HIRAGANA;
  // The prolonged sound mark belongs with the katakana it lengthens (ノート).
  if ((cp >= 0x30a0 && cp <= 0x30ff) || (cp >= 0x31f0 && cp <= 0x31ff)) return KATAKANA;
  return OTHER;
}

/**
 * Whether `term` is the next pair of the same katakana word as `prev` (ファイル gives ファ, ァイ,
 * イル): one word to a person, three terms to the index, which matters where words are counted.
 */
export function continuesKatakanaWord(prev: string | undefined, term: string): boolean {
  if (prev === undefined || prev.length !== 2 || term.length !== 2 || prev[1] !== term[0]) return false;
  return scriptOf(prev[0]) === KATAKANA && scriptOf(term[0]) === KATAKANA && scriptOf(term[1]) === KATAKANA;
}

/** `starts`: where each character starts in the text, and one past the last; or `whole`, the span every pair is given. */
function emitPairs(chars: readonly string[], starts: readonly number[], emit: Emit, whole?: [number, number]): void {
  const from = (i: number): number => whole?.[0] ?? starts[i];
  const to = (i: number): number => whole?.[1] ?? starts[i];
  if (chars.length === 1) {
    if (!CJK_STOP_TERMS.has(chars[0])) emit(chars[0], from(0), to(1));
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) {
    if (CJK_PARTICLES.has(chars[i]) || CJK_PARTICLES.has(chars[i + 1])) continue;
    const bigram = chars[i] + chars[i + 1];
    if (!CJK_STOP_TERMS.has(bigram)) emit(bigram, from(i), to(i + 2));
  }
}

/** The regional words in `chars` with the mainland's, longest match first (乙太网路, not 乙太网). */
function regionalWordsIn(chars: readonly string[]): RegionalWord[] {
  const found: RegionalWord[] = [];
  for (let i = 0; i < chars.length;) {
    let hit: string | undefined;
    let len = Math.min(MAX_REGIONAL_LENGTH, chars.length - i);
    while (len >= 2 && (hit = REGIONAL_WORDS.get(chars.slice(i, i + len).join(""))) === undefined) len--;
    if (hit === undefined) i++;
    else {
      found.push([chars.slice(i, i + len).join(""), hit]);
      i += len;
    }
  }
  return found;
}

/**
 * A generated table kept as its string, entries "|key" + sep + "value" (t2s-table.ts). The first
 * lookups search the string itself; past MAP_AFTER lookups it is read into a Map once. Reading
 * the 3,222 characters into a Map on first use cost every Chinese prompt about 6 M instructions,
 * and the regional words 2 M (5% and 1.5% of the prompt hook); a prompt looks up a few dozen
 * characters, and an index, which looks up millions, builds the Map after the first few.
 */
export class StringTable {
  private map: Map<string, string> | undefined;
  private lookups = 0;

  constructor(
    private readonly text: string,
    private readonly sep: string,
  ) {}

  get(key: string): string | undefined {
    if (this.map) return this.map.get(key);
    if (++this.lookups > StringTable.MAP_AFTER) return this.built().get(key);
    // The key is rare in the text: searching for it and then checking that an entry starts there
    // skips ahead faster than searching for "|" + key, as "|" comes every few characters.
    const needle = key + this.sep;
    for (let at = this.text.indexOf(needle, 1); at > 0; at = this.text.indexOf(needle, at + 1)) {
      if (this.text.charCodeAt(at - 1) !== BAR) continue;
      const from = at + needle.length;
      const end = this.text.indexOf("|", from);
      return this.text.slice(from, end < 0 ? this.text.length : end);
    }
    return undefined;
  }

  private built(): Map<string, string> {
    const map = new Map<string, string>();
    for (const entry of this.text.split("|")) {
      if (entry === "") continue;
      // A key is one code point where sep is "", else the text before sep.
      const at = this.sep ? entry.indexOf(this.sep) : entry.codePointAt(0)! > 0xffff ? 2 : 1;
      map.set(entry.slice(0, at), entry.slice(at + this.sep.length));
    }
    return (this.map = map);
  }

  static readonly MAP_AFTER = 128;
}

const BAR = 0x7c;

const MAX_REGIONAL_LENGTH = 4;
const REGIONAL_WORDS = new StringTable(REGIONAL_PHRASES, " ");

const T2S = new StringTable(T2S_PAIRS, "");

/** How much two texts' sets of terms overlap: the terms both hold over the terms either holds (Jaccard), 0 to 1. */
export function termOverlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let both = 0;
  for (const t of a) if (b.has(t)) both++;
  const either = a.size + b.size - both;
  return either === 0 ? 0 : both / either;
}
