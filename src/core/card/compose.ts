/** The one card composer: a new card's path, frontmatter, body and related links both ways, for the sidebar and the digest. */

import { hasControl } from "../text/visible";
import { addRelatedLink } from "./related";
import { LinkResolver } from "./links";
import { cardFrontmatter, type NewCardFields } from "./write-card";

export interface CardToCompose {
  folder: string;
  /** The file name wanted, without `.md`; a number is added when it is taken. */
  fileName: string;
  fields: NewCardFields;
  /** Markdown after the frontmatter; a `# name` heading is added when it does not open with one. */
  body: string;
  /** Vault-relative paths of the cards to link, which each get a link back; one holding control characters is skipped. */
  related: readonly string[];
  /** The related section's heading (see relatedHeading). */
  heading: string;
}

export interface ComposedCard {
  path: string;
  text: string;
  /** The related cards, each with the edit that links it back to the new card. */
  linkBacks: { path: string; edit: (text: string) => string }[];
}

/**
 * `notes` are the vault's notes, vault-relative; `exists` also sees files outside that list (a
 * folder the index leaves out, a file written since the list was read), so nothing is overwritten.
 */
export function composeCard(c: CardToCompose, notes: readonly string[], exists: (path: string) => boolean = () => false): ComposedCard {
  const path = freePath(c.folder, c.fileName, notes, exists);
  const links = new LinkResolver([...notes, path]);
  const body = c.body.trim().startsWith("# ") ? c.body.trim() : `# ${c.fields.name}\n\n${c.body.trim()}`;
  // A note whose path holds a line break or another control character is never linked, either
  // way: its link would break the related section's lines (and every list that shows it).
  const related = [...new Set(c.related)].filter((r) => r !== path && !hasControl(r));
  const section = related.length === 0 ? [] : ["", c.heading, ...related.map((r) => `- [[${links.linkTo(r, path)}]]`)];
  const text = [cardFrontmatter(c.fields), body, ...section, ""].join("\n");
  return { path, text, linkBacks: related.map((r) => ({ path: r, edit: (t: string) => addRelatedLink(t, links.linkTo(path, r), c.heading) })) };
}

/**
 * `folder/fileName.md`, or with -2, -3… added. A name is taken when a note anywhere has it, not only
 * in `folder`: wikilinks resolve by file name, so a second `x.md` would take the links meant for the first.
 */
export function freePath(folder: string, fileName: string, notes: readonly string[], exists: (path: string) => boolean): string {
  const names = new Set(
    notes.map((n) =>
      n
        .slice(n.lastIndexOf("/") + 1)
        .replace(/\.md$/i, "")
        .toLowerCase(),
    ),
  );
  const prefix = folder ? `${folder}/` : "";
  for (let i = 1; ; i++) {
    const name = i === 1 ? fileName : `${fileName}-${i}`;
    const path = `${prefix}${name}.md`;
    if (!names.has(name.toLowerCase()) && !exists(path)) return path;
  }
}
