/** The first line of what recall prints: shared with capture, which strips it back out. */

export const RECALL_HEADER =
  "Vault Memory matched these notes from the user's vault to this prompt, best first. " +
  "Read the ones that bear on it before answering; ignore the rest.";
