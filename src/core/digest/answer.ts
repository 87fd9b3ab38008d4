/** The strict JSON shape the LLM must answer in, and its validation: output from an LLM is untrusted. */

import { CARD_FOLDERS } from "../card/schema";
// The synonyms note's own limits: a longer phrase would be written and then ignored when read.
import { MAX_PHRASE_CHARS, MAX_PHRASE_WORDS } from "../index/index-options";
import { findSecrets } from "../privacy/redact";
import { MAX_QUESTION_CHARS, MAX_QUESTIONS } from "../enrich/settings";

export const MAX_BODY_CHARS = 20_000;

/**
 * Groups of words that mean the same in this vault, for its synonyms note: how the person asked
 * (排程) beside the words the card uses (launchd), so that the next such prompt finds the card.
 */
export type SynonymGroups = string[][];

export type DigestAction =
  | {
      action: "create";
      folder: string;
      fileName: string;
      frontmatter: { name: string; description: string; type: string; tags: string[]; aliases?: string[]; project?: string };
      body: string;
      related: string[];
      synonyms?: SynonymGroups;
      questions?: string[];
    }
  | { action: "append"; target: string; section: string; related: string[]; synonyms?: SynonymGroups; questions?: string[] }
  | { action: "skip"; reason: string };

const MAX_GROUPS = 5;
const MAX_PHRASES = 8;

const MAX_ALIASES = 8;

export class AnswerError extends Error {}

/** Finds the JSON object in the answer: bare, in a ```json fence, or inside `claude -p --output-format json`'s result. */
export function extractJson(raw: string): unknown {
  let text = raw.trim();
  try {
    const outer = JSON.parse(text) as unknown;
    if (outer && typeof outer === "object" && typeof (outer as { result?: unknown }).result === "string") text = (outer as { result: string }).result.trim();
    else return outer;
  } catch {
    /* not JSON as a whole */
  }
  const fence = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(text);
  if (fence) text = fence[1];
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) throw new AnswerError("the answer holds no JSON object");
  try {
    return JSON.parse(text.slice(start, end + 1)) as unknown;
  } catch (err) {
    throw new AnswerError(`the answer is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Checks every field's type, size and shape; whether an append's target was one of the cards
 * offered, and unchanged since, is checked when the answer is applied (see applyAction).
 */
export function validateAnswer(value: unknown): DigestAction {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new AnswerError("the answer is not a JSON object");
  const v = value as Record<string, unknown>;
  switch (v.action) {
    case "skip":
      return { action: "skip", reason: str(v.reason, "reason", 500) || "no reason given" };
    case "create": {
      const folder = str(v.folder, "folder", 40);
      if (!CARD_FOLDERS.includes(folder)) throw new AnswerError(`folder "${folder}" is not one of ${CARD_FOLDERS.join(", ")}`);
      const fileName = safeName(str(v.fileName, "fileName", 100).replace(/\.md$/i, ""));
      const fm = v.frontmatter;
      if (!fm || typeof fm !== "object" || Array.isArray(fm)) throw new AnswerError("frontmatter is missing");
      const f = fm as Record<string, unknown>;
      const name = str(f.name, "frontmatter.name", 200);
      const description = str(f.description, "frontmatter.description", 500);
      const type = str(f.type, "frontmatter.type", 40);
      if (!name || !description || !type) throw new AnswerError("frontmatter needs name, description and type");
      const tags = list(f.tags, "frontmatter.tags");
      if (tags.length === 0) throw new AnswerError("frontmatter needs at least one tag");
      const project = f.project === undefined ? undefined : str(f.project, "frontmatter.project", 100);
      const aliases = f.aliases === undefined ? [] : list(f.aliases, "frontmatter.aliases").slice(0, MAX_ALIASES).map((a) => oneLine(a, "an alias", 80));
      return {
        action: "create",
        folder,
        fileName,
        frontmatter: { name, description, type, tags, ...(aliases.length ? { aliases } : {}), ...(project ? { project } : {}) },
        body: body(v.body),
        related: list(v.related, "related").map(linkName),
        synonyms: synonymGroups(v.synonyms),
        questions: v.questions === undefined ? [] : validateQuestions(v.questions),
      };
    }
    case "append": {
      const target = safePath(str(v.target, "target", 300));
      return {
        action: "append",
        target,
        section: body(v.section),
        related: list(v.related ?? [], "related").map(linkName),
        synonyms: synonymGroups(v.synonyms),
        questions: v.questions === undefined ? [] : validateQuestions(v.questions),
      };
    }
    default:
      throw new AnswerError(`action must be create, append or skip, not ${JSON.stringify(v.action)}`);
  }
}

// Invisible or line-breaking characters: YAML 1.1 readers break lines at U+2028/9, and the rest
// hide what a hint says from the person reading the card.
// eslint-disable-next-line no-control-regex -- finding them is the point
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Recall hints as the LLM gave them: a list of one-line strings, each short, with nothing that
 * could break the frontmatter they are written into or hide from the person. Whitespace is
 * collapsed as recall reads it, so the version record's hash matches what is read back; repeats
 * are dropped. Anything else refuses the list whole: an answer this far off is not trusted in part.
 */
export function validateQuestions(v: unknown, max = MAX_QUESTIONS): string[] {
  if (!Array.isArray(v)) throw new AnswerError("questions must be a list of strings");
  if (v.length > max) throw new AnswerError(`questions holds ${v.length} entries, more than ${max}`);
  const out = new Map<string, string>();
  for (const q of v) {
    if (typeof q !== "string") throw new AnswerError("questions must be a list of strings");
    if (/[\r\n]/.test(q)) throw new AnswerError("a question spans several lines");
    if (UNSAFE_CHARS.test(q)) throw new AnswerError("a question holds control or invisible characters");
    const s = q.replace(/\s+/g, " ").trim();
    if (s.length > MAX_QUESTION_CHARS) throw new AnswerError(`a question is longer than ${MAX_QUESTION_CHARS} characters`);
    if (findSecrets(s).length > 0) throw new AnswerError("a question looks like it holds a secret");
    if (s !== "" && !out.has(s.toLowerCase())) out.set(s.toLowerCase(), s);
  }
  return [...out.values()];
}

function str(v: unknown, field: string, max: number): string {
  if (typeof v !== "string") throw new AnswerError(`${field} must be a string`);
  const s = v.trim();
  if (s.length > max) throw new AnswerError(`${field} is longer than ${max} characters`);
  return s;
}

function list(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw new AnswerError(`${field} must be a list of strings`);
  return (v).map((x) => x.trim()).filter(Boolean).slice(0, 20);
}

/**
 * Each phrase becomes part of one comma-separated line of the synonyms note, so it must not hold
 * the separators, a line break, or what would turn the line into a heading, quote or link.
 */
function synonymGroups(v: unknown): SynonymGroups {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new AnswerError("synonyms must be a list of lists of words");
  if (v.length > MAX_GROUPS) throw new AnswerError(`synonyms holds more than ${MAX_GROUPS} groups`);
  return v.map((group) => {
    const byLower = new Map<string, string>();
    for (const p of list(group, "synonyms")) if (!byLower.has(p.toLowerCase())) byLower.set(p.toLowerCase(), oneLine(p, "a synonym", MAX_PHRASE_CHARS));
    const phrases = [...byLower.values()];
    for (const p of phrases) {
      if (/[,，、[\]|]|^[#>]|^[-*+]\s/.test(p)) throw new AnswerError(`synonym "${p}" holds a separator or markup`);
      if (p.split(/\s+/).length > MAX_PHRASE_WORDS) throw new AnswerError(`synonym "${p}" is more than ${MAX_PHRASE_WORDS} words`);
    }
    if (phrases.length < 2 || phrases.length > MAX_PHRASES) throw new AnswerError(`a synonym group needs 2 to ${MAX_PHRASES} different words`);
    return phrases;
  });
}

function oneLine(s: string, what: string, max: number): string {
  if (/[\r\n]/.test(s)) throw new AnswerError(`${what} spans several lines`);
  if (s.length > max) throw new AnswerError(`${what} is longer than ${max} characters`);
  return s;
}

function body(v: unknown): string {
  if (typeof v !== "string" || v.trim() === "") throw new AnswerError("the body is empty");
  if (v.length > MAX_BODY_CHARS) throw new AnswerError(`the body is over ${MAX_BODY_CHARS} characters`);
  // Frontmatter belongs to us; a body that opens a second block would corrupt the card.
  return v.replace(/^---\n[\s\S]*?\n---\n/, "").trim();
}

/** A file name with no path in it. */
function safeName(name: string): string {
  if (!name || /[\\/:*?"<>|]/.test(name) || name.includes(String.fromCharCode(0)) || name.startsWith(".") || name.includes("..")) throw new AnswerError(`file name "${name}" is not allowed`);
  return name;
}

/** A vault-relative path to a card: no traversal, not absolute, not hidden, markdown. */
export function safePath(path: string): string {
  const p = path.replace(/\\/g, "/");
  if (p.startsWith("/") || /^[a-zA-Z]:/.test(p) || p.split("/").some((seg) => seg === ".." || seg === "." || seg.startsWith(".") || seg === "")) {
    throw new AnswerError(`path "${path}" is not a card in the vault`);
  }
  if (!p.endsWith(".md")) throw new AnswerError(`path "${path}" is not a markdown card`);
  return p;
}

function linkName(s: string): string {
  return s.replace(/^\[\[|\]\]$/g, "").split("|")[0].trim();
}
