/** Adds the digest's synonym groups to the vault's synonyms note: appended lines, nothing rewritten. */

import { join } from "node:path";
import { frontmatterLines, parseSynonyms } from "../index/index-options";
import { rewriteText } from "../io/atomic";
import { baseName } from "../card/card";
import { DEFAULT_RELATED_HEADING } from "../card/related-heading";
import { AnswerError } from "../llm/answer";
import { safePath, type SynonymGroups } from "./answer";
import { RULES_NOTE } from "../card/schema";
import { readTextIfAny } from "../io/read-file";
import { MAX_NOTE_BYTES } from "../vault/scan";

const NEW_NOTE = `---
name: Synonyms
description: Words that mean the same in this vault, one group per line; recall treats each word of a group as any other
type: meta
tags: [meta, recall]
---
# Synonyms

One group per line; separate its words with commas. Edit freely: the index reads this note when it is built.
`;

// Linked to the rules the digest always writes first, so the new note is not an orphan.
const newNoteRelated = (heading: string): string => `\n${heading}\n- [[${baseName(RULES_NOTE)}]]\n`;

/** The note's vault-relative path, refused when the setting points outside the vault or at a non-note. */
export function synonymsNotePath(notePath: string): string {
  try {
    return safePath(notePath.trim());
  } catch {
    throw new AnswerError(`the synonymsNote setting "${notePath}" is not a note in the vault`);
  }
}

/**
 * The groups not already in the note (a group is there when some line holds all its words), after
 * they were appended. `notePath` is vault-relative, as in the settings.
 */
export function addSynonymGroups(vault: string, notePath: string, groups: SynonymGroups, dryRun: boolean, heading = DEFAULT_RELATED_HEADING): SynonymGroups {
  if (groups.length === 0 || notePath.trim() === "") return [];
  const abs = join(vault, synonymsNotePath(notePath));
  // The groups the note lacks, and the note with them: made again from a save of the person's
  // that comes in as it is written (rewriteText), so that save is kept.
  let fresh: SynonymGroups = [];
  const withGroups = (found: string | undefined): string | undefined => {
    const text = found ?? NEW_NOTE;
    const known = parseSynonyms(text).map((g) => new Set(g.map((p) => p.toLowerCase())));
    fresh = [];
    for (const group of groups) {
      const words = group.map((p) => p.toLowerCase());
      if (known.some((k) => words.every((w) => k.has(w)))) continue;
      known.push(new Set(words));
      fresh.push(group);
    }
    if (fresh.length === 0 || dryRun) return undefined;
    const next = insertGroups(
      text,
      fresh.map((g) => `- ${g.join(", ")}`),
    );
    return found !== undefined ? next : next + newNoteRelated(heading);
  };
  // Not a note (a FIFO, a huge file) throws, saying why: the entry fails and stays queued.
  rewriteText(abs, () => readTextIfAny(abs, { maxBytes: MAX_NOTE_BYTES }), withGroups);
  return fresh;
}

/**
 * New lines go after the note's last group, so they stay above a closing related section the
 * person keeps there; a note without groups gets them at its end.
 */
function insertGroups(text: string, lines: string[]): string {
  // The note keeps its own line endings, Windows ones included.
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const all = text.split(eol);
  let at = -1;
  for (let i = frontmatterLines(all); i < all.length; i++) if (parseSynonyms(all[i]).length > 0) at = i;
  if (at < 0) return `${text.trimEnd()}${eol}${eol}${lines.join(eol)}${eol}`;
  all.splice(at + 1, 0, ...lines);
  return all.join(eol);
}
