import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCard, type Card, type NoteMetadata } from "../../src/core/card/card";
import { listMarkdown } from "../../src/core/vault/scan";
import { parseMetadata } from "../fakes/metadata-cache";
import { fromCachedMetadata } from "../../src/plugin/note-metadata";
import { CORPUS, HAS_CORPUS, NO_CORPUS, SAMPLE_VAULT } from "../helpers";

const asNoteMetadata = (text: string): NoteMetadata | undefined => fromCachedMetadata(parseMetadata(text));

/** What recall, lint and the digest use of a card. */
const view = (c: Card) => ({
  name: c.name,
  description: c.description,
  type: c.type,
  tags: c.tags,
  aliases: c.aliases,
  project: c.project,
  parent: c.parent,
  status: c.status,
  updated: c.updated,
  firstHeading: c.firstHeading,
  headings: c.headings.map((h) => `${h.level} ${h.text} @${h.line}`),
  links: c.links.map((l) => `${l.embed ? "!" : ""}${l.target.toLowerCase()} @${l.line}`).sort(),
  bodyLine: c.bodyLine,
  hasFrontmatter: c.hasFrontmatter,
});

function disagreements(vault: string): { path: string; own: unknown; obsidian: unknown }[] {
  const out: { path: string; own: unknown; obsidian: unknown }[] = [];
  for (const f of listMarkdown(vault)) {
    const text = readFileSync(f.abs, "utf8");
    const own = view(parseCard(f.path, text, 1));
    const obsidian = view(parseCard(f.path, text, 1, asNoteMetadata(text)));
    const keys = (Object.keys(own) as (keyof typeof own)[]).filter((k) => JSON.stringify(own[k]) !== JSON.stringify(obsidian[k]));
    if (keys.length)
      out.push({ path: f.path, own: Object.fromEntries(keys.map((k) => [k, own[k]])), obsidian: Object.fromEntries(keys.map((k) => [k, obsidian[k]])) });
  }
  return out;
}

describe("the card as the bridge reads it and as Obsidian's metadata cache gives it", () => {
  it("agree on the sample vault", () => {
    expect(disagreements(SAMPLE_VAULT)).toEqual([]);
  });

  it.skipIf(!HAS_CORPUS)(
    `agree on every note of the help vaults (${HAS_CORPUS ? "all languages" : NO_CORPUS})`,
    () => {
      const found = disagreements(CORPUS);
      expect(found.slice(0, 5)).toEqual([]);
      expect(found.length).toBe(0);
    },
    120_000,
  );
});
