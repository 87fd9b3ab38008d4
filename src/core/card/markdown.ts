/** Reads the parts of a markdown body that recall and lint care about: headings, links, first paragraph. */

import { linkTarget } from "./links";

export interface Heading {
  level: number;
  text: string;
  /** 0-based line in the body. */
  line: number;
}

export interface WikiLink {
  /** The note the link points at, without heading, block or alias: `folder/name` or `name`. */
  target: string;
  embed: boolean;
  /** 0-based line in the body. */
  line: number;
}

// A fence as Obsidian reads it: three or more backticks or tildes, after at most three
// characters of white space (a tab too: a list's code block is indented with one).
const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING_RE = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;
const WIKILINK_RE = /(!?)\[\[([^\][\n]+?)\]\]/g;
const INLINE_CODE_RE = /(`+)[^`\n]*?\1/g;

export interface Body {
  /** Lines of the body with code replaced by empty text, so that nothing inside code counts. */
  lines: string[];
  headings: Heading[];
  links: WikiLink[];
}

// A line whose first character is printable ASCII other than these opens no fence and is no
// heading (both allow only white space before), so most lines need neither pattern run.
const [BACKTICK, TILDE, HASH] = ["`", "~", "#"].map((c) => c.charCodeAt(0));
const mayOpenBlock = (c: number): boolean => c <= 32 || c >= 127 || c === BACKTICK || c === TILDE || c === HASH;

/**
 * The fence `line` opens (its run of backticks or tildes), or "" when it opens none. As Obsidian
 * reads it, a line such as "```x``` and more" opens one too (CommonMark would call it inline
 * code): the rest of the note is code there, so it is here.
 */
export function opensFence(line: string): string {
  const m = mayOpenBlock(line.charCodeAt(0)) ? FENCE_RE.exec(line) : null;
  return m ? m[1] : "";
}

/**
 * Whether `line` closes the block `fence` opened: only a bare fence of its character, at least as
 * long (CommonMark, and Obsidian); "```yaml" inside a block is text.
 */
export function closesFence(line: string, fence: string): boolean {
  const m = mayOpenBlock(line.charCodeAt(0)) ? FENCE_RE.exec(line) : null;
  return m !== null && m[1][0] === fence[0] && m[1].length >= fence.length && line.slice(m[0].length).trim() === "";
}

/** The heading `line` is, as written (its markup kept), or undefined. */
export function writtenHeading(line: string): string | undefined {
  return HEADING_RE.exec(line)?.[2];
}

/** The body's prose lines, headings and wikilinks, in one pass over its lines. */
export function readBody(body: string): Body {
  const lines = body.split("\n");
  const headings: Heading[] = [];
  const links: WikiLink[] = [];
  let fence = "";
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (fence !== "") {
      if (closesFence(line, fence)) fence = "";
      lines[i] = "";
      continue;
    }
    fence = opensFence(line);
    if (fence !== "") {
      lines[i] = "";
      continue;
    }
    // A heading keeps its code as text (`### \`date\`` is the heading "date", as Obsidian shows it);
    // links and prose are read with code taken out.
    const h = mayOpenBlock(line.charCodeAt(0)) ? HEADING_RE.exec(line) : null;
    if (line.includes("`")) lines[i] = line = line.replace(INLINE_CODE_RE, "");
    if (h) headings.push({ level: h[1].length, text: stripInline(h[2]), line: i });
    if (!line.includes("[[")) continue;
    WIKILINK_RE.lastIndex = 0;
    for (let w = WIKILINK_RE.exec(line); w !== null; w = WIKILINK_RE.exec(line)) {
      const target = linkTarget(w[2]);
      if (target !== "") links.push({ target, embed: w[1] === "!", line: i });
    }
  }
  return { lines, headings, links };
}

/**
 * `text` with each wikilink whose target does not resolve written as its words (`[[x|shown]]` →
 * `shown`, `[[x]]` → `x`): a link written by a model to a note that is not there would be a
 * dangling link lint reports. Code, fenced or inline, embeds and links to attachments (a name with
 * an extension other than .md) are left as they are.
 */
const ATTACHMENT_RE = /\.(?!md$)[A-Za-z0-9]{1,8}$/;

export function unlinkUnresolved(text: string, resolves: (target: string) => boolean): { text: string; unlinked: string[] } {
  const unlinked: string[] = [];
  const lines = text.split("\n");
  let fence = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence !== "") {
      if (closesFence(line, fence)) fence = "";
      continue;
    }
    fence = opensFence(line);
    if (fence !== "" || !line.includes("[[")) continue;
    // Inline code spans keep their text; only what lies between them is rewritten.
    let out = "";
    let last = 0;
    const rewrite = (part: string): string =>
      part.replace(WIKILINK_RE, (whole, bang: string, inner: string) => {
        const target = linkTarget(inner);
        // An embed or a file that is no note (an image, a PDF) is an attachment, which no note list holds.
        if (target === "" || bang === "!" || ATTACHMENT_RE.test(target) || resolves(target)) return whole;
        unlinked.push(target);
        const bar = inner.indexOf("|");
        return (bar >= 0 ? inner.slice(bar + 1) : target).replace(/\\$/, "").trim() || target;
      });
    for (const code of line.matchAll(INLINE_CODE_RE)) {
      out += rewrite(line.slice(last, code.index)) + code[0];
      last = code.index + code[0].length;
    }
    lines[i] = out + rewrite(line.slice(last));
  }
  return { text: lines.join("\n"), unlinked };
}

/**
 * The first paragraph of prose: what a person would call the note's summary. Headings, embeds,
 * callout titles, tables, lists of links and HTML blocks are passed over.
 */
export function firstParagraph(lines: readonly string[]): string {
  const para: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "") {
      if (para.length > 0) break;
      continue;
    }
    if (para.length === 0 && isNotProse(line)) continue;
    para.push(line.replace(/^>\s?/, ""));
  }
  return stripInline(para.join(" "));
}

function isNotProse(line: string): boolean {
  return (
    line.startsWith("#") ||
    line.startsWith("![[") ||
    line.startsWith("|") ||
    line.startsWith("<") ||
    /^>\s*\[!/.test(line) ||
    /^(-{3,}|\*{3,}|_{3,})$/.test(line) ||
    /^[-*+]\s*(\[\[|<span|!\[)/.test(line)
  );
}

// A character each of stripInline's replacements needs before it can change anything.
const INLINE_SYNTAX_RE = /[[<*_=~`]/;
// White space that /\s+/ → " " would change: a run of two, or one that is not a space.
const ODD_SPACE_RE = /[^\S ]|\s\s/;

/** Markdown inline syntax removed, keeping what a reader sees. */
export function stripInline(text: string): string {
  // Most headings and paragraphs hold none of the syntax: then only the spacing can change, and
  // only if there is white space other than single spaces.
  if (!INLINE_SYNTAX_RE.test(text)) return (ODD_SPACE_RE.test(text) ? text.replace(/\s+/g, " ") : text).trim();
  return stripAllInline(text);
}

/** stripInline without its shortcuts: every replacement, in turn. */
export function stripAllInline(text: string): string {
  return text
    .replace(/!\[\[[^\]]*\]\]/g, "")
    .replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
    .replace(/\[\[([^\]]*)\]\]/g, (_, inner: string) => inner.split("#").filter(Boolean).join(" › "))
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/(\*\*|__|==|~~)(.+?)\1/g, "$2")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}
