/** The frontmatter that records a card's recall hints: the list and what it was written for. */

import { parseCard } from "./card";
import { setFrontmatter, type FrontmatterValue } from "./frontmatter-edit";
import { contentHash, formatHintVersion, hintsHash, hintVersionProperty } from "./hints";

/**
 * The two properties to set on the card whose text is `text`. The version is of the card as it is
 * now, which the hints leave unchanged (they are not part of its content hash), so the card reads
 * as "current" once written.
 */
export function hintFields(path: string, text: string, property: string, hints: readonly string[]): Record<string, FrontmatterValue> {
  const version = formatHintVersion({ content: contentHash(parseCard(path, text)), hints: hintsHash(hints) });
  return { [property]: [...hints], [hintVersionProperty(property)]: version };
}

/** `text` with those properties set, and nothing else of it changed; throws on frontmatter it cannot read. */
export function withHints(path: string, text: string, property: string, hints: readonly string[]): string {
  return setFrontmatter(text, hintFields(path, text, property, hints));
}
