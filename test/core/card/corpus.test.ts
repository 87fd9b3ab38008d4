import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { CORPUS, HAS_CORPUS, markdownFiles, NO_CORPUS } from "../../helpers";

// Obsidian's own help vaults: real notes with aliases, embeds, callouts, tables and code.
describe.skipIf(!HAS_CORPUS).each(["en", "zh"])(`every note in obsidian-help/%s${HAS_CORPUS ? "" : ` (${NO_CORPUS})`}`, (lang) => {
  const dir = join(CORPUS, lang);
  const files = HAS_CORPUS ? markdownFiles(dir) : [];

  it("is a vault of real notes", () => {
    expect(files.length).toBeGreaterThan(150);
  });

  it("parses without error, with a name and its frontmatter read", () => {
    const failures: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(dir, f), "utf8");
      const card = parseCard(f, text);
      if (card.frontmatterError) failures.push(`${f}: ${card.frontmatterError}`);
      if (!card.name) failures.push(`${f}: no name`);
      if (text.startsWith("---\n") && !card.hasFrontmatter) failures.push(`${f}: frontmatter not found`);
    }
    expect(failures).toEqual([]);
  });

  it("finds a description for nearly every note", () => {
    const withDescription = files.filter((f) => parseCard(f, readFileSync(join(dir, f), "utf8")).description !== "");
    expect(withDescription.length / files.length).toBeGreaterThan(0.9);
  });
});
