import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { buildGraph } from "../../../src/core/lint/graph";

const graphOf = (files: Record<string, string>) => buildGraph(Object.entries(files).map(([p, t]) => parseCard(p, t)));
const edges = (g: ReturnType<typeof graphOf>) => Object.fromEntries([...g.out].map(([from, to]) => [from, [...to].sort()]));

describe("buildGraph", () => {
  it("links notes of one name to the nearest, and path-style links to the note they name", () => {
    const g = graphOf({
      "en/Links.md": "[[Other]] [[de/links]] [[../fr/docs/links]]",
      "en/sub/Links.md": "[[links]] [[./deep/c]] [[../links]] [[../nowhere/links]]",
      "en/sub/deep/c.md": "[[LINKS]] [[sub/links]] [[EN/Links]]",
      "de/Links.md": "[[links]] [[c]]",
      "fr/docs/links.md": "[[docs/links]] [[en/sub/deep/c.md|see]]",
      "Other.md": "[[links]]",
    });
    expect(edges(g)).toEqual({
      "en/Links.md": ["Other.md", "de/Links.md", "fr/docs/links.md"],
      "en/sub/Links.md": ["en/Links.md", "en/sub/deep/c.md"],
      "en/sub/deep/c.md": ["en/Links.md", "en/sub/Links.md"],
      "de/Links.md": ["en/sub/deep/c.md"],
      "fr/docs/links.md": ["en/sub/deep/c.md"],
      "Other.md": ["de/Links.md"],
    });
    // A link to itself is no edge; a relative link resolves from the linking note's folder, and
    // is missing if that path is no note, whatever other notes end with its last parts.
    expect([...(g.in.get("fr/docs/links.md") ?? [])]).toEqual(["en/Links.md"]);
    expect([...g.missing.keys()]).toEqual(["../nowhere/links"]);
  });

  it("lists every mention of a missing note, in the order of the notes and their lines", () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`n/${String(i).padStart(3, "0")}.md`] = `---\na: 1\n---\nfirst [[gone]]\nthen [[gone#h]] and [[x/gone]]\n`;
    const g = graphOf(files);
    const mentions = g.missing.get("gone") ?? [];
    expect(mentions).toHaveLength(600);
    expect(mentions.slice(0, 3)).toEqual([
      { file: "n/000.md", line: 4 },
      { file: "n/000.md", line: 5 },
      { file: "n/001.md", line: 4 },
    ]);
    expect(g.missing.get("x/gone")).toHaveLength(300);
  });
});
