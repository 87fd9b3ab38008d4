/** Obsidian's parse of a note (its metadata cache), in the shape the core's card reader takes. */

import type { App, CachedMetadata, TFile } from "obsidian";
import type { NoteMetadata } from "../core/card/card";

/**
 * What Obsidian already parsed of `file`, or undefined when it has not parsed it yet, or found
 * properties it could not read: the core's own reader then says why, as lint reports it.
 */
export function metadataOf(app: App, file: TFile): NoteMetadata | undefined {
  const c = app.metadataCache.getFileCache(file);
  return c ? fromCachedMetadata(c) : undefined;
}

/** The conversion itself, on its own for the test that holds both readers together. */
export function fromCachedMetadata(c: Pick<CachedMetadata, "frontmatter" | "frontmatterPosition" | "headings" | "links" | "embeds">): NoteMetadata | undefined {
  if (c.frontmatterPosition && !c.frontmatter) return undefined;
  return {
    frontmatter: c.frontmatter,
    frontmatterEndLine: c.frontmatterPosition?.end.line,
    headings: (c.headings ?? []).map((h) => ({ level: h.level, heading: h.heading, line: h.position.start.line })),
    links: [...(c.links ?? []), ...(c.embeds ?? [])].map((l) => ({ link: l.link, original: l.original, line: l.position.start.line })),
  };
}
