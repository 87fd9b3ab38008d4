/** Edits a card without touching what the person wrote: links in the related section, dated sections before it. */

import { hasControl } from "../text/visible";
import { DEFAULT_RELATED_HEADING, escapeRe, relatedSectionRe } from "./related-heading";

/**
 * The line end of what an edit adds: the card's own, CRLF when it has any (a card saved on
 * Windows), so that an edit writes no line of the other kind into it.
 */
function lineEndOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

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
  const eol = lineEndOf(text);
  const m = relatedSectionRe(heading).exec(text);
  if (!m) return `${text.replace(/\s*$/, "")}${eol}${eol}${heading}${eol}${link}${eol}`;
  const after = text.slice(m.index + m[0].length);
  const next = after.search(/^#{1,2} /m);
  const end = next < 0 ? text.length : m.index + m[0].length + next;
  const section = text.slice(0, end).replace(/\s*$/, "");
  return `${section}${eol}${link}${eol}${next < 0 ? "" : eol + text.slice(end)}`;
}

/** A dated section, before the closing related section if there is one; nothing else moves. `sessionId` "": not known. */
export function appendDated(text: string, date: string, markdown: string, sessionId: string, heading = DEFAULT_RELATED_HEADING): string {
  const eol = lineEndOf(text);
  const body = markdown.trim().replace(/\r\n?/g, "\n");
  const section = `## ${date}\n\n${body}\n\n_From ${sessionId ? `session ${sessionId}` : "a Claude Code session"}._\n`.replace(/\n/g, eol);
  const related = relatedSectionRe(heading).exec(text);
  if (related && !/^#{1,2} /m.test(text.slice(related.index + related[0].length))) {
    return `${text.slice(0, related.index).replace(/\s*$/, "")}${eol}${eol}${section}${eol}${text.slice(related.index)}`;
  }
  return `${text.replace(/\s*$/, "")}${eol}${eol}${section}`;
}
