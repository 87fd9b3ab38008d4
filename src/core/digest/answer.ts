/** The strict JSON shape the LLM must answer in, and its validation: output from an LLM is untrusted. */

import { closesFence, opensFence } from "../card/markdown";
import { relatedSectionRe } from "../card/related-heading";
import { CARD_FOLDERS } from "../card/schema";
import { isWindowsReserved } from "../card/slug";
// The synonyms note's own limits: a longer phrase would be written and then ignored when read.
import { MAX_PHRASE_CHARS, MAX_PHRASE_WORDS } from "../index/index-options";
import { validateQuestions } from "../enrich/answer";
import { AnswerError, UNSAFE_CHARS } from "../llm/answer";

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
      for (const segment of folder.split("/")) safeName(segment, "folder");
      const fileName = safeName(str(v.fileName, "fileName", 100).replace(/\.md$/i, ""));
      const fm = v.frontmatter;
      if (!fm || typeof fm !== "object" || Array.isArray(fm)) throw new AnswerError("frontmatter is missing");
      const f = fm as Record<string, unknown>;
      // The name is also the card's title line: a line break in it would write headings and links of its own.
      const name = oneLine(str(f.name, "frontmatter.name", 200), "frontmatter.name", 200);
      const description = oneLine(str(f.description, "frontmatter.description", 500), "frontmatter.description", 500);
      const type = oneLine(str(f.type, "frontmatter.type", 40), "frontmatter.type", 40);
      if (!name || !description || !type) throw new AnswerError("frontmatter needs name, description and type");
      const tags = list(f.tags, "frontmatter.tags").map((t) => oneLine(t, "a tag", 100));
      if (tags.length === 0) throw new AnswerError("frontmatter needs at least one tag");
      const project = f.project === undefined ? undefined : oneLine(str(f.project, "frontmatter.project", 100), "frontmatter.project", 100);
      const text = body(v.body, "the body", true);
      checkAddedText(text, "the body", folder, false);
      const aliases =
        f.aliases === undefined
          ? []
          : list(f.aliases, "frontmatter.aliases")
              .slice(0, MAX_ALIASES)
              .map((a) => oneLine(a, "an alias", 80));
      return {
        action: "create",
        folder,
        fileName,
        frontmatter: { name, description, type, tags, ...(aliases.length ? { aliases } : {}), ...(project ? { project } : {}) },
        body: text,
        related: list(v.related, "related").map(linkName),
        synonyms: synonymGroups(v.synonyms),
        questions: v.questions === undefined ? [] : validateQuestions(v.questions),
      };
    }
    case "append": {
      const target = safePath(str(v.target, "target", 300));
      const section = body(v.section, "the section", false);
      checkAddedText(section, "the section", target.slice(0, target.lastIndexOf("/") + 1), true);
      return {
        action: "append",
        target,
        section,
        related: list(v.related ?? [], "related").map(linkName),
        synonyms: synonymGroups(v.synonyms),
        questions: v.questions === undefined ? [] : validateQuestions(v.questions),
      };
    }
    default:
      throw new AnswerError(`action must be create, append or skip, not ${JSON.stringify(v.action)}`);
  }
}

function str(v: unknown, field: string, max: number): string {
  if (typeof v !== "string") throw new AnswerError(`${field} must be a string`);
  const s = v.trim();
  if (s.length > max) throw new AnswerError(`${field} is longer than ${max} characters`);
  return s;
}

function list(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw new AnswerError(`${field} must be a list of strings`);
  return v
    .map((x) => x.trim())
    .filter(Boolean)
    .slice(0, 20);
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
  // U+0085, U+2028 and U+2029 break lines in YAML 1.1 readers, and in some editors.
  if (/[\r\n\u0085\u2028\u2029]/.test(s)) throw new AnswerError(`${what} spans several lines`);
  if (s.length > max) throw new AnswerError(`${what} is longer than ${max} characters`);
  return s;
}

function body(v: unknown, what: string, stripFrontmatter: boolean): string {
  if (typeof v !== "string" || v.trim() === "") throw new AnswerError(`${what} is empty`);
  if (v.length > MAX_BODY_CHARS) throw new AnswerError(`${what} is over ${MAX_BODY_CHARS} characters`);
  // A new card's frontmatter is ours, written from the answer's fields: a block the body opens
  // with is dropped. An extend answer's section is refused for one instead (see checkAddedText).
  return (stripFrontmatter ? v.replace(/^---\n[\s\S]*?\n---\n/, "") : v).trim();
}

/**
 * A file name, or one folder of a path, that every OS the vault syncs to takes as it is: no path
 * in it, not hidden, no control or invisible characters, nothing Windows refuses (a device name
 * such as CON or COM¹, with or without an extension, or a dot or space at the end, which Windows
 * drops, so that the name on disk would not be the one linked), and short enough for a file
 * system's 255 bytes with `.md` and a number after it.
 */
function safeName(name: string, what = "file name"): string {
  const refuse = (why: string): AnswerError => new AnswerError(`${what} "${shown(name)}" is not allowed: ${why}`);
  if (!name) throw refuse("it is empty");
  if (/[\\/:*?"<>|]/.test(name) || name.includes("..")) throw refuse("it holds a path, or a character Windows refuses");
  if (name.startsWith(".")) throw refuse("it would be hidden");
  if (UNSAFE_CHARS.test(name)) throw refuse("it holds control or invisible characters");
  if (/[. ]$/.test(name)) throw refuse("Windows drops a dot or space at the end of a name");
  if (isWindowsReserved(name)) throw refuse("Windows reserves it for a device");
  if (Buffer.byteLength(name, "utf8") > MAX_NAME_BYTES) throw refuse(`it is longer than ${MAX_NAME_BYTES} bytes`);
  return name;
}

const MAX_NAME_BYTES = 200;

/** A name as a report can show it: control and invisible characters written as escapes. */
const shown = (s: string): string => s.replace(new RegExp(UNSAFE_CHARS.source, "g"), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

// Lines as CommonMark (and Obsidian) reads them.
const TOP_HEADING_RE = /^ {0,3}#{1,2}(?:[ \t]|$)/;
const HTML_TOP_HEADING_RE = /<h[12](?:[\s/>]|$)/i;
const UNDERLINE_RE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK_RE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
// Lines an underline below does not turn into a heading: blank, a heading, quote, table, list item or HTML.
const NOT_PARAGRAPH_RE = /^ {0,3}(?:$|[#>|<]|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))/;
const YAML_OPEN_RE = /^---[ \t]*$/;
const YAML_CLOSE_RE = /^(?:---|\.\.\.)[ \t]*$/;
const YAML_KEY_RE = /^[A-Za-z_][\w-]*[ \t]*:(?:[ \t]|$)/;
const INLINE_CODE_RE = /(`+)[^`\n]*?\1/g;

/**
 * Text the LLM adds to a card (an extend answer's section, `appended`, or a new card's body) may
 * not reshape the card or lead out of the vault; such an answer is refused, not mended, like any
 * other answer this far off, and its conversation stays queued.
 *
 * - No link out of the vault: a wikilink, embed, markdown link or image, reference definition,
 *   autolink or HTML link whose target is an absolute path, a home path, a Windows drive or UNC
 *   path, a `file:` URL, or a relative path that climbs above the vault's root from `folder`
 *   (the card's folder, "" or ending in "/"). Web and other URLs are links, not files.
 * - No code block left open: it would swallow what follows it, the related section included.
 * - A section adds no frontmatter: no `---` block at its start, nor one of `key:` lines anywhere.
 * - A section adds no heading of level 1 or 2, `#`/`##` or underlined with `===`/`---`. Refused,
 *   not demoted: those levels are the card's own structure. Its dated sections are `## date`,
 *   its related section is a level-2 heading the vault chooses (`## Related`, `## 相關`, `## 相关`
 *   or the setting, which a list of names would miss), and card/related.ts ends a section at the
 *   next level-1 or level-2 heading, so one inside a section would take the links written after
 *   it (issue #24). Demoting would write what the LLM did not, and hide that it was off; `###`
 *   and below are the section's own. A new card's body may hold its own `##` sections, but not
 *   a related heading (checked with the others in refuseRelatedHeading).
 *
 * Code is code: nothing inside a fenced block or inline code counts, except a related heading
 * (refuseRelatedHeading), since card/related.ts finds that by its line alone.
 */
export function checkAddedText(text: string, what: string, folder: string, appended: boolean): void {
  const lines = text.split(/\r?\n/);
  if (appended && YAML_OPEN_RE.test(lines[0])) throw new AnswerError(`${what} opens with a --- block, which would be read as frontmatter`);
  let fence = "";
  // The line before, when an underline below it would make it a heading.
  let paragraph = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence !== "") {
      if (closesFence(line, fence)) fence = "";
      paragraph = "";
      continue;
    }
    fence = opensFence(line);
    if (fence !== "") {
      paragraph = "";
      continue;
    }
    if (appended) {
      if (YAML_OPEN_RE.test(line) && YAML_KEY_RE.test(lines[i + 1] ?? "") && lines.slice(i + 2).some((l) => YAML_CLOSE_RE.test(l))) {
        throw new AnswerError(`${what} holds a --- block of properties, which could be read as frontmatter`);
      }
      if (TOP_HEADING_RE.test(line) || HTML_TOP_HEADING_RE.test(line.replace(INLINE_CODE_RE, ""))) throw topHeading(what, line.trim());
      if (paragraph !== "" && UNDERLINE_RE.test(line)) throw topHeading(what, `${paragraph.trim()}" underlined with "${line.trim()}`);
    }
    for (const target of linkTargets(line)) {
      if (leavesVault(target, folder))
        throw new AnswerError(
          `${what} links out of the vault (${JSON.stringify(target.slice(0, 80))}): a card links to notes in the vault and to web addresses only`,
        );
    }
    paragraph = NOT_PARAGRAPH_RE.test(line) || THEMATIC_BREAK_RE.test(line) || UNDERLINE_RE.test(line) ? "" : line;
  }
  if (fence !== "") throw new AnswerError(`${what} opens a code block it does not close, so the rest of the card would read as code`);
  refuseRelatedHeading(text, what);
}

const topHeading = (what: string, heading: string): AnswerError =>
  new AnswerError(
    `${what} adds the heading "${heading}": headings of level 1 and 2 are the card's own (its dated sections and related links); a section may use ### and below`,
  );

/**
 * A related heading anywhere in the text, in code too: card/related.ts finds the related section
 * by that line alone, and the links written after would land under it. `heading` is the vault's
 * own, when the caller knows it; the usual three are always refused.
 */
export function refuseRelatedHeading(text: string, what: string, heading?: string): void {
  const m = relatedSectionRe(heading).exec(text);
  if (m) throw new AnswerError(`${what} holds the heading "${m[0].trim()}", which opens the card's related links: the links written after it would land there`);
}

const WIKILINK_RE = /!?\[\[([^\]\n]+?)\]\]/g;
const INLINE_LINK_RE = /\]\(\s*(<[^>\n]*>|[^\s)]+)/g;
const REFERENCE_RE = /^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/;
const AUTOLINK_RE = /<([a-z][a-z0-9+.-]{1,31}:[^\s<>]*)>/gi;
// An attribute inside a tag: `data=/var/lib` in prose is no link.
const HTML_LINK_RE = /<[a-z][^<>]*?\s(?:href|src|srcset|poster|data|action|formaction)[ \t]*=[ \t]*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;
const BARE_FILE_URL_RE = /(?:^|[^a-z0-9+.-])(file:\/\S*)/gi;

/** Every target a line links to, inline code taken out (it links nowhere). */
function linkTargets(line: string): string[] {
  const text = line.includes("`") ? line.replace(INLINE_CODE_RE, "") : line;
  const out: string[] = [];
  for (const m of text.matchAll(WIKILINK_RE)) out.push(m[1].split("|")[0].replace(/\\$/, "").split("#")[0]);
  for (const m of text.matchAll(INLINE_LINK_RE)) out.push(m[1]);
  const ref = REFERENCE_RE.exec(text);
  if (ref) out.push(ref[1]);
  for (const m of text.matchAll(AUTOLINK_RE)) out.push(m[1]);
  for (const m of text.matchAll(HTML_LINK_RE)) out.push(m[1] ?? m[2] ?? m[3]);
  for (const m of text.matchAll(BARE_FILE_URL_RE)) out.push(m[1]);
  return out.map((t) => t.trim()).filter(Boolean);
}

/** Whether a link's target is a file outside the vault, as written or percent-decoded once. */
function leavesVault(target: string, folder: string): boolean {
  const raw = target.replace(/^<([\s\S]*)>$/, "$1").trim();
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    /* not percent-encoded: as written */
  }
  return [raw, decoded].some((t) => {
    const p = t.trim().replace(/\\/g, "/");
    if (/^file:/i.test(p)) return true;
    // A drive (C:\, C:/, C:x), before the URL test: a letter and a colon is no scheme.
    if (/^[a-z]:/i.test(p)) return true;
    if (/^[a-z][a-z0-9+.-]+:/i.test(p)) return false;
    // Absolute, UNC (\\server, now //server) or the home folder.
    if (p.startsWith("/") || /^~(?:\/|$)/.test(p)) return true;
    // Obsidian reads ./ and ../ from the linking note's folder, other paths from the vault's root.
    let depth = p.startsWith("./") || p.startsWith("../") ? folder.split("/").filter(Boolean).length : 0;
    for (const segment of p.split("/")) {
      if (segment === "..") depth--;
      else if (segment !== "." && segment !== "") depth++;
      if (depth < 0) return true;
    }
    return false;
  });
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
  return s
    .replace(/^\[\[|\]\]$/g, "")
    .split("|")[0]
    .trim();
}
