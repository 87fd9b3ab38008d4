/** The card-writing rules the digest sends to the LLM: a note in the vault, made once with defaults. */

import { DEFAULT_RELATED_HEADING } from "../card/related-heading";

/** The note as first written, its related section under the vault's heading. */
export const defaultRules = (heading = DEFAULT_RELATED_HEADING): string => `---
name: Card-writing rules
description: How the nightly digest turns a queued conversation into cards; edit freely, it is sent to the LLM as written
type: meta
tags: [meta, digest]
---
# Card-writing rules

- Keep only what will help in a later session: a decision and its reason, a fix and its cause,
  a gotcha, a preference, a command or setting that was hard to find. Skip small talk, one-off
  questions and anything already in a card.
- One subject, one card. If a suggested card is on the same subject, extend it instead of
  opening a new one.
- Put each card in the folder of its type: projects (project, subproject), feedback
  (preferences about how to work), reference (facts, settings, commands), debugging (a problem,
  its cause, its fix), user (about the person), teaching (explanations).
- The description is one line that says when the card helps; Claude sees it before deciding to
  read the card.
- Tags are short, lower-case, in the language of the conversation.
- A section added to a card uses ### headings and below, never # or ## (the card's dated
  sections and related links are those); it adds no frontmatter, and links only to notes in
  the vault and to web addresses.
- When the person asked in words the card does not use (排程 for a launchd card, "whiteboard"
  for Canvas), give those words as synonyms, so that the next question worded that way finds it.
- Write in the language the conversation used. Never write secrets, tokens or passwords.

${heading}
- [[knowledge-overview]]
`;

export const DEFAULT_RULES = defaultRules();
