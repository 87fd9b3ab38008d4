/** Writes a new card's frontmatter in the schema, the same way for the sidebar and the digest. */

import { stringify as yaml, stringifyList as yamlList } from "./yaml";

export interface NewCardFields {
  name: string;
  description: string;
  type: string;
  tags: readonly string[];
  aliases?: readonly string[];
  project?: string;
  /** The conversation the card came from; "" when not known (a card Claude wrote with no session named). */
  sessionId: string;
  /** YYYY-MM-DD. */
  date: string;
}

export function cardFrontmatter(f: NewCardFields): string {
  return frontmatterBlock([
    ["name", f.name],
    ["description", f.description],
    ["type", f.type],
    ["tags", f.tags],
    ...(f.aliases?.length ? ([["aliases", f.aliases]] as const) : []),
    ...(f.project ? ([["project", f.project]] as const) : []),
    ["source", f.sessionId ? `session ${f.sessionId}` : "Claude Code"],
    ["updated", f.date, "plain"],
  ]);
}

/**
 * A frontmatter block of `key: value` lines, each value quoted as YAML needs, lists in flow style.
 * "plain" marks a value written as it is: a date, which YAML would read as one, as Obsidian does.
 */
export function frontmatterBlock(entries: readonly (readonly [key: string, value: string | readonly string[], style?: "plain"])[]): string {
  const line = ([key, value, style]: (typeof entries)[number]): string =>
    `${key}: ${typeof value !== "string" ? yamlList(value) : style === "plain" ? value : yaml(value)}`;
  return ["---", ...entries.map(line), "---"].join("\n");
}
