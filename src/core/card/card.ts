/** The card model: any Obsidian note, read into the fields that recall, lint and the digest use. */

import type matterFn from "gray-matter";
import { linkTarget } from "./links";
import { firstParagraph, readBody, stripInline, type Heading, type WikiLink } from "./markdown";

export interface Card {
  /** Vault-relative path with forward slashes, e.g. `debugging/launchd-path.md`. */
  path: string;
  name: string;
  description: string;
  type: string;
  tags: string[];
  aliases: string[];
  project: string;
  parent: string;
  status: string;
  /** Epoch ms of the `updated` (or `date`) field, else the file's mtime, else 0. */
  updated: number;
  /** Epoch ms the file was last modified, as given to parseCard; 0 if unknown. */
  mtime: number;
  firstHeading: string;
  headings: Heading[];
  links: WikiLink[];
  /** The markdown after the frontmatter, with Windows line endings and BOM removed. */
  body: string;
  /** Line of the body's first line in the file, so findings can point at file lines. */
  bodyLine: number;
  hasFrontmatter: boolean;
  /** Frontmatter as parsed; a null-prototype copy, since keys are user data. */
  frontmatter: Record<string, unknown>;
  /** Why the frontmatter could not be read, if it could not. The note is still indexed. */
  frontmatterError: string;
}

const FRONTMATTER_RE = /^---([^\n]*)\n([\s\S]*?\n)?---[ \t]*(?:\n|$)/;

// gray-matter would eval `---js` frontmatter; a note is data and must never run.
const REFUSE_CODE = {
  parse: (): object => {
    throw new Error("JavaScript frontmatter is not run");
  },
};
const MATTER_OPTIONS = {
  engines: { js: REFUSE_CODE, javascript: REFUSE_CODE, coffee: REFUSE_CODE, cson: REFUSE_CODE },
};

// Loaded on first use: js-yaml's set-up would otherwise run in every recall hook, which never
// parses a note. The bundler turns this require into a lazy call of the bundled module.
let matter: typeof matterFn | undefined;
function grayMatter(): typeof matterFn {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is the point, see above
  return (matter ??= require("gray-matter") as typeof matterFn);
}

/**
 * What Obsidian's metadata cache already parsed of a note, in the shape the card needs (the
 * plugin converts CachedMetadata to it; the core never imports Obsidian). Lines are the file's,
 * 0-based.
 */
export interface NoteMetadata {
  /** The properties as Obsidian read them; undefined when the note has none. */
  frontmatter?: Record<string, unknown>;
  /** The line of the frontmatter's closing `---`, when there is frontmatter. */
  frontmatterEndLine?: number;
  headings: readonly { level: number; heading: string; line: number }[];
  /** Wikilinks and embeds of the body, as written (`original`) and as Obsidian names the target (`link`). */
  links: readonly { link: string; original: string; line: number }[];
}

/**
 * `meta`: Obsidian's own parse of the same text, from the plugin. Its frontmatter, headings and
 * links are used, the body's prose is still read here; the bridge, which runs without Obsidian,
 * parses everything itself, and a test holds the two together on the help vaults.
 */
/** The text as the parser reads it: no byte-order mark, and Unix line ends. */
function normalized(text: string): string {
  const unmarked = text.replace(/^\uFEFF/, "");
  return unmarked.includes("\r") ? unmarked.replace(/\r\n?/g, "\n") : unmarked;
}

/**
 * Whether a note opens with a whole frontmatter block, opened and closed, as parseCard reads one:
 * a writer that finds a card's frontmatter gone, or cut off, is reading a save in progress.
 */
export function hasFrontmatterBlock(text: string): boolean {
  return FRONTMATTER_RE.test(normalized(text));
}

export function parseCard(path: string, text: string, mtime = 0, meta?: NoteMetadata): Card {
  const clean = normalized(text);
  const split = splitFrontmatter(clean, meta);
  const { data, body, bodyLine, has, error } = split;
  const read = readBody(body);
  const { lines } = read;
  const heads = meta
    ? meta.headings.filter((h) => h.line >= bodyLine).map((h) => ({ level: h.level, text: stripInline(h.heading), line: h.line - bodyLine }))
    : read.headings;
  const links = meta ? metaLinks(meta, bodyLine) : read.links;
  const fileName = baseName(path);
  const firstHeading = heads.find((h) => h.level === 1)?.text ?? heads[0]?.text ?? "";
  return {
    path,
    name: str(data.name) || str(data.title) || fileName,
    description: str(data.description) || str(data.summary) || firstParagraph(lines),
    type: str(data.type),
    tags: list(data.tags ?? data.tag).map((t) => t.replace(/^#/, "")),
    aliases: list(data.aliases ?? data.alias),
    project: str(data.project),
    parent: linkText(str(data.parent)),
    status: str(data.status).toLowerCase(),
    updated: date(data.updated) || date(data.date) || mtime,
    mtime,
    firstHeading,
    headings: heads,
    links: [...frontmatterLinks(data), ...links],
    body,
    bodyLine,
    hasFrontmatter: has,
    frontmatter: data,
    frontmatterError: error,
  };
}

/** The file name without folder and `.md`, which is what a wikilink names. */
export function baseName(path: string): string {
  const file = path.slice(path.lastIndexOf("/") + 1);
  return file.replace(/\.md$/i, "");
}

interface Split {
  data: Record<string, unknown>;
  body: string;
  bodyLine: number;
  has: boolean;
  error: string;
}

function splitFrontmatter(text: string, meta?: NoteMetadata): Split {
  if (meta?.frontmatterEndLine !== undefined) {
    // Obsidian found the block: the body starts on the line after its closing `---`.
    const bodyLine = meta.frontmatterEndLine + 1;
    let at = 0;
    for (let i = 0; i < bodyLine; i++) {
      const nl = text.indexOf("\n", at);
      at = nl < 0 ? text.length : nl + 1;
    }
    const body = text.slice(at);
    return { data: nullProto(meta.frontmatter ?? {}), body, bodyLine, has: true, error: "" };
  }
  if (meta) return { data: Object.create(null) as Record<string, unknown>, body: text, bodyLine: 0, has: false, error: "" };
  const m = FRONTMATTER_RE.exec(text);
  // A note that opens with a horizontal rule and never closes it has no frontmatter.
  if (!m) return { data: Object.create(null) as Record<string, unknown>, body: text, bodyLine: 0, has: false, error: "" };
  const body = text.slice(m[0].length);
  const bodyLine = m[0].split("\n").length - 1;
  try {
    // Given the frontmatter alone, gray-matter finds the same block (it stops at the first
    // "\n---", which m[0] holds) without first copying the whole note into a Buffer.
    const parsed = grayMatter()(m[0], MATTER_OPTIONS).data as unknown;
    return { data: nullProto(parsed), body, bodyLine, has: true, error: "" };
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
    return { data: Object.create(null) as Record<string, unknown>, body, bodyLine, has: true, error: reason };
  }
}

function nullProto(value: unknown): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) out[k] = v;
  }
  return out;
}

function str(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return "";
}

/** YAML lists, comma- or space-separated strings, and stray nulls all become a clean list. */
function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(str).filter((s) => s !== "");
  const s = str(value);
  if (s === "") return [];
  return s
    .split(s.includes(",") ? "," : /\s+/)
    .map((x) => x.trim())
    .filter((x) => x !== "");
}

function date(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== "string" && typeof value !== "number") return 0;
  const t = new Date(value).getTime();
  return Number.isFinite(t) ? t : 0;
}

function linkText(value: string): string {
  return /^\[\[([^\]]+)\]\]$/.test(value) ? linkTarget(value) : value;
}

// `parent: "[[main]]"` and `related: ["[[x]]"]` are links too, as Obsidian's graph counts them.
function frontmatterLinks(data: Record<string, unknown>): WikiLink[] {
  const out: WikiLink[] = [];
  for (const value of Object.values(data)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== "string" || !item.includes("[[")) continue;
      for (const m of item.matchAll(/\[\[([^\][\n]+?)\]\]/g)) {
        const target = linkTarget(m[1]);
        if (target) out.push({ target, embed: false, line: -1 });
      }
    }
  }
  return out;
}

/** Obsidian's links and embeds of the body, wikilinks only (it lists `[text](note.md)` links too, which cards do not count). */
function metaLinks(meta: NoteMetadata, bodyLine: number): WikiLink[] {
  const out: WikiLink[] = [];
  for (const l of meta.links) {
    if (l.line < bodyLine) continue;
    const embed = l.original.startsWith("![[");
    if (!embed && !l.original.startsWith("[[")) continue;
    const target = linkTarget(l.link);
    if (target !== "") out.push({ target, embed, line: l.line - bodyLine });
  }
  return out.sort((a, b) => a.line - b.line);
}

/** Text that names the card: what the flat title bonus is matched against. */
export function titleText(card: Card): string {
  return [card.name, card.description, card.tags.join(" "), card.aliases.join(" "), baseName(card.path), card.firstHeading].map(stripInline).join("\n");
}

/** The headings after the first: title-like, but a long note has many, so they weigh less. */
export function headingText(card: Card): string {
  return card.headings
    .filter((h) => h.text !== card.firstHeading)
    .map((h) => h.text)
    .join("\n");
}
