/** Writes a new card's frontmatter in the schema, the same way for the sidebar and the digest. */

import { stringify as yaml, stringifyList as yamlList } from "../queue/yaml-line";

export interface NewCardFields {
  name: string;
  description: string;
  type: string;
  tags: readonly string[];
  aliases?: readonly string[];
  project?: string;
  sessionId: string;
  /** YYYY-MM-DD. */
  date: string;
}

export function cardFrontmatter(f: NewCardFields): string {
  return [
    "---",
    `name: ${yaml(f.name)}`,
    `description: ${yaml(f.description)}`,
    `type: ${yaml(f.type)}`,
    `tags: ${yamlList(f.tags)}`,
    ...(f.aliases?.length ? [`aliases: ${yamlList(f.aliases)}`] : []),
    ...(f.project ? [`project: ${yaml(f.project)}`] : []),
    `source: ${yaml(`session ${f.sessionId}`)}`,
    `updated: ${f.date}`,
    "---",
  ].join("\n");
}
