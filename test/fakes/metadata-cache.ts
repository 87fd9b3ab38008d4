/**
 * Obsidian's metadata cache, as far as the plugin asks it: a note's properties, headings, links
 * and embeds, parsed the way Obsidian does and independently of the plugin's own parser (a test
 * holds the two together, so this must not share code with src/core/card). What Obsidian does:
 * properties only in a block that opens on the first line with `---` alone and closes with a line
 * of `---`, read as YAML 1.2 (dates stay text); ATX headings outside code; `[[…]]`, `![[…]]` and
 * `[text](target)` links outside code, each with its `original` text and the `link` it names (the
 * alias cut off, a table's escaped bar unescaped).
 */

import { readFileSync, statSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { Events } from "./events";

export interface Loc {
  line: number;
  col: number;
  offset: number;
}
export interface Pos {
  start: Loc;
  end: Loc;
}
export interface CachedMetadata {
  frontmatter?: Record<string, unknown>;
  frontmatterPosition?: Pos;
  headings?: { heading: string; level: number; position: Pos }[];
  links?: { link: string; original: string; displayText: string; position: Pos }[];
  embeds?: { link: string; original: string; displayText: string; position: Pos }[];
}

const at = (line: number, col: number, offset: number): Loc => ({ line, col, offset });

export function parseMetadata(raw: string): CachedMetadata {
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  const meta: CachedMetadata = {};
  let start = 0;
  if (lines[0] === "---") {
    const close = lines.findIndex((l, i) => i > 0 && l.trimEnd() === "---");
    if (close > 0) {
      meta.frontmatterPosition = { start: at(0, 0, 0), end: at(close, 3, lines.slice(0, close).join("\n").length + 4) };
      try {
        const value: unknown = parseYaml(lines.slice(1, close).join("\n"), { schema: "core" });
        if (value && typeof value === "object" && !Array.isArray(value)) meta.frontmatter = value as Record<string, unknown>;
      } catch {
        // Obsidian shows invalid properties as such and gives no frontmatter object.
      }
      start = close + 1;
    }
  }
  const headings: NonNullable<CachedMetadata["headings"]> = [];
  const links: NonNullable<CachedMetadata["links"]> = [];
  const embeds: NonNullable<CachedMetadata["embeds"]> = [];
  let fence: { char: string; len: number } | undefined;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.len) fence = undefined;
      continue;
    }
    if (f) {
      fence = { char: f[1][0], len: f[1].length };
      continue;
    }
    // Inline code hides what is in it: blanked, keeping columns.
    const visible = line.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (m) => " ".repeat(m.length));
    const h = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (h && (h[2] ?? "").trim() !== "")
      headings.push({ heading: h[2].trim(), level: h[1].length, position: { start: at(i, 0, 0), end: at(i, line.length, 0) } });
    for (const m of visible.matchAll(/(!?)\[\[([^\]\n]+?)\]\]/g)) {
      const original = line.slice(m.index, m.index + m[0].length);
      const inner = m[2];
      const bar = inner.search(/\\?\|/);
      const link = (bar < 0 ? inner : inner.slice(0, bar)).trim();
      const displayText = bar < 0 ? link : inner.slice(inner.indexOf("|", bar) + 1);
      const entry = { link, original, displayText, position: { start: at(i, m.index, 0), end: at(i, m.index + m[0].length, 0) } };
      (m[1] === "!" ? embeds : links).push(entry);
    }
    for (const m of visible.matchAll(/(!?)\[([^\]\n]*)\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(m[3])) continue;
      const entry = {
        link: decodeURI(m[3]),
        original: line.slice(m.index, m.index + m[0].length),
        displayText: m[2],
        position: { start: at(i, m.index, 0), end: at(i, m.index + m[0].length, 0) },
      };
      (m[1] === "!" ? embeds : links).push(entry);
    }
  }
  if (headings.length) meta.headings = headings;
  if (links.length) meta.links = links;
  if (embeds.length) meta.embeds = embeds;
  return meta;
}

/** Answers from the files on disk, parsed on first ask and again after they change. */
export class MetadataCache extends Events {
  private readonly cache = new Map<string, { mtime: number; size: number; meta: CachedMetadata }>();
  constructor(private readonly read: (path: string) => { text: string; mtime: number; size: number } | null) {
    super();
  }

  getFileCache(file: { path: string }): CachedMetadata | null {
    const now = this.read(file.path);
    if (!now) return null;
    const held = this.cache.get(file.path);
    if (held && held.mtime === now.mtime && held.size === now.size) return held.meta;
    const meta = parseMetadata(now.text);
    this.cache.set(file.path, { mtime: now.mtime, size: now.size, meta });
    return meta;
  }
}

export function readForCache(abs: string): { text: string; mtime: number; size: number } | null {
  try {
    const st = statSync(abs);
    if (!st.isFile()) return null;
    return { text: readFileSync(abs, "utf8"), mtime: st.mtimeMs, size: st.size };
  } catch {
    return null;
  }
}
