/** The card schema's fixed parts: which folder each type lives in, which notes are Vault Memory's own, and which statuses retire a card. */

/** Where each card type lives. Types not listed (decision, a person's own) have no fixed folder. */
export const FOLDER_OF_TYPE: Readonly<Record<string, string>> = {
  project: "projects",
  subproject: "projects",
  feedback: "feedback",
  reference: "reference",
  debugging: "debugging",
  user: "user",
  teaching: "teaching",
  moc: "moc",
  meta: "meta",
};

/** The folders new cards may be written to: the overview and meta folders are not for cards. */
export const CARD_FOLDERS: readonly string[] = ["projects", "feedback", "reference", "debugging", "user", "teaching"];

/** The types a person picks from when making a card by hand, one per card folder. */
export const CARD_TYPES: readonly string[] = ["project", "feedback", "reference", "debugging", "user", "teaching"];

/**
 * The digest's card-writing rules, a note the person edits: settings, not a card, so enrich
 * gives it no hints.
 */
export const RULES_NOTE = "meta/card-writing-rules.md";

/** The frontmatter line of the overview pages the digest rewrites every night (`moc/`). */
export const GENERATED_MARK = "generated: vault-memory";

/** Cards in these states stay in the vault but are never recalled, listed or counted as unused. */
export const RETIRED_STATUSES: ReadonlySet<string> = new Set(["archived", "superseded", "merged"]);

export function isRetired(status: string): boolean {
  return RETIRED_STATUSES.has(status.toLowerCase());
}

/**
 * Whether Vault Memory wrote the card: its `source` names the conversation it came from. A card
 * without one, or with an empty one, is the person's own: edit_card and archive_card ask them
 * first, and consolidation never merges it.
 */
export function writtenByProduct(frontmatter: Readonly<Record<string, unknown>>): boolean {
  return typeof frontmatter.source === "string" && frontmatter.source.trim() !== "";
}

/** The properties archiving sets, and restoring takes out. */
export const ARCHIVE_KEYS = ["status", "archived", "archived-reason"] as const;

/** What archiving writes, whoever archives (the night, archive_card, the lint report): the status, the day (UTC) and why. */
export function archiveFields(when: Date, reason: string): Record<(typeof ARCHIVE_KEYS)[number], string> {
  return { status: "archived", archived: when.toISOString().slice(0, 10), "archived-reason": reason };
}

/**
 * Notes about the vault rather than knowledge in it, by their type: overview pages (moc: the
 * digest's generated pages are all of it) and notes about the vault and its settings (meta: the
 * rules note, the digest's reports). They are indexed, so that links to them resolve and every
 * word weighs what it did, but never recalled, briefed or offered as a similar card: a list of
 * every card's name matches every prompt.
 */
export function isVaultPage(type: string): boolean {
  const t = type.toLowerCase();
  return t === "moc" || t === "meta";
}
