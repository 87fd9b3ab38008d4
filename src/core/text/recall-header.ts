/** The first lines of what the hooks print for Claude: recall and the brief write them, and the sanitiser (privacy/redact.ts) strips them back out of what is captured. */

export const RECALL_HEADER =
  "Vault Memory matched these notes from the user's vault to this prompt, best first. " +
  "Read the ones that bear on it before answering; ignore the rest.";

/** The session brief's first words (see brief.ts); the rest of its first line says the counts. */
export const BRIEF_HEADER = "Vault Memory, the user's memory vault of notes from past sessions,";
