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

const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING_RE = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;
const WIKILINK_RE = /(!?)\[\[([^\][\n]+?)\]\]/g;
const INLINE_CODE_RE = /(`+)[^`\n]*?\1/g;

/** Lines of the body with code replaced by empty text, so that nothing inside code counts. */
export function proseLines(body: string): string[] {
  const lines = body.split("\n");
  let fence: string | null = null;
  return lines.map((line) => {
    const m = FENCE_RE.exec(line);
    if (fence !== null) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      return "";
    }
    if (m) {
      fence = m[1];
      return "";
    }
    return line.includes("`") ? line.replace(INLINE_CODE_RE, "") : line;
  });
}

export function headings(lines: readonly string[]): Heading[] {
  const out: Heading[] = [];
  lines.forEach((line, i) => {
    const m = HEADING_RE.exec(line);
    if (m) out.push({ level: m[1].length, text: stripInline(m[2]), line: i });
  });
  return out;
}

export function wikiLinks(lines: readonly string[]): WikiLink[] {
  const out: WikiLink[] = [];
  lines.forEach((line, i) => {
    if (!line.includes("[[")) return;
    WIKILINK_RE.lastIndex = 0;
    for (let m = WIKILINK_RE.exec(line); m !== null; m = WIKILINK_RE.exec(line)) {
      const target = linkTarget(m[2]);
      if (target !== "") out.push({ target, embed: m[1] === "!", line: i });
    }
  });
  return out;
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

/** Markdown inline syntax removed, keeping what a reader sees. */
export function stripInline(text: string): string {
  // Most headings and paragraphs hold none of the syntax: then only the spacing can change.
  if (!INLINE_SYNTAX_RE.test(text)) return text.replace(/\s+/g, " ").trim();
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
