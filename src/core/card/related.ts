/** Edits a card without touching what the person wrote: links in the related section, dated sections before it. */

import { hasControl } from "../text/visible";
import { DEFAULT_RELATED_HEADING, escapeRe, relatedSectionRe } from "./related-heading";

/**
 * Adds `- [[target]]` to the related section, creating one under `heading` if there is none; no
 * duplicates. A section under any related heading counts, so a card keeps the one it has. A
 * target holding a line break or another control character is not linked: the text comes back
 * as it was, since such a link would write lines of its own into the card.
 */
export function addRelatedLink(text: string, target: string, heading = DEFAULT_RELATED_HEADING): string {
  if (hasControl(target)) return text;
  if (new RegExp(`\\[\\[${escapeRe(target)}(?:[|#][^\\]]*)?\\]\\]`, "i").test(text)) return text;
  const link = `- [[${target}]]`;
  const m = relatedSectionRe(heading).exec(text);
  if (!m) return `${text.replace(/\s*$/, "")}\n\n${heading}\n${link}\n`;
  const after = text.slice(m.index + m[0].length);
  const next = after.search(/^#{1,2} /m);
  const end = next < 0 ? text.length : m.index + m[0].length + next;
  const section = text.slice(0, end).replace(/\s*$/, "");
  return `${section}\n${link}\n${next < 0 ? "" : "\n" + text.slice(end)}`;
}

/** A dated section, before the closing related section if there is one; nothing else moves. `sessionId` "": not known. */
export function appendDated(text: string, date: string, markdown: string, sessionId: string, heading = DEFAULT_RELATED_HEADING): string {
  const section = `## ${date}\n\n${markdown.trim()}\n\n_From ${sessionId ? `session ${sessionId}` : "a Claude Code session"}._\n`;
  const related = relatedSectionRe(heading).exec(text);
  if (related && !/^#{1,2} /m.test(text.slice(related.index + related[0].length))) {
    return `${text.slice(0, related.index).replace(/\s*$/, "")}\n\n${section}\n${text.slice(related.index)}`;
  }
  return `${text.replace(/\s*$/, "")}\n\n${section}`;
}
