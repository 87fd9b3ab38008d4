/** Edits a card without touching what the person wrote: links in the related section, dated sections before it. */

const RELATED = /^## (?:相關|相关|Related)\s*$/m;

/** Adds `- [[target]]` to the related section, creating the section if there is none; no duplicates. */
export function addRelatedLink(text: string, target: string): string {
  if (new RegExp(`\\[\\[${escapeRe(target)}(?:[|#][^\\]]*)?\\]\\]`, "i").test(text)) return text;
  const link = `- [[${target}]]`;
  const m = RELATED.exec(text);
  if (!m) return `${text.replace(/\s*$/, "")}\n\n## 相關\n${link}\n`;
  const after = text.slice(m.index + m[0].length);
  const next = after.search(/^#{1,2} /m);
  const end = next < 0 ? text.length : m.index + m[0].length + next;
  const section = text.slice(0, end).replace(/\s*$/, "");
  return `${section}\n${link}\n${next < 0 ? "" : "\n" + text.slice(end)}`;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A dated section, before the closing related section if there is one; nothing else moves. */
export function appendDated(text: string, date: string, markdown: string, sessionId: string): string {
  const section = `## ${date}\n\n${markdown.trim()}\n\n_From session ${sessionId}._\n`;
  const related = RELATED.exec(text);
  if (related && !/^#{1,2} /m.test(text.slice(related.index + related[0].length))) {
    return `${text.slice(0, related.index).replace(/\s*$/, "")}\n\n${section}\n${text.slice(related.index)}`;
  }
  return `${text.replace(/\s*$/, "")}\n\n${section}`;
}
