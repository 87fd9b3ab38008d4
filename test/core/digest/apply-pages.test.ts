import { readFileSync, utimesSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { applyAction } from "../../../src/core/digest/apply";
import { memoryIndex, overviewPages } from "../../../src/core/digest/pages";
import { tempDir } from "../../helpers";

function vaultWith(files: Record<string, string>): string {
  const v = tempDir();
  for (const [p, t] of Object.entries(files)) {
    mkdirSync(join(v, p, ".."), { recursive: true });
    writeFileSync(join(v, p), t);
  }
  return v;
}

describe("applyAction", () => {
  it("refuses to append to a card the person edited since it was suggested, and leaves it alone", () => {
    const v = vaultWith({ "reference/a.md": "---\nname: a\n---\nMine.\n" });
    const offered = new Map([["reference/a.md", 1000]]);
    utimesSync(join(v, "reference/a.md"), new Date(5000), new Date(5000));
    const ctx = { vault: v, cards: ["reference/a.md"], offered, sessionId: "s", date: "2026-11-30", dryRun: false };
    expect(() => applyAction({ action: "append", target: "reference/a.md", section: "more", related: [] }, ctx)).toThrow(/edited since it was suggested/);
    expect(() => applyAction({ action: "append", target: "reference/b.md", section: "more", related: [] }, ctx)).toThrow(/not one of the cards offered/);
    expect(readFileSync(join(v, "reference/a.md"), "utf8")).toBe("---\nname: a\n---\nMine.\n");
  });

  it("never overwrites an existing card when creating one with the same name", () => {
    const v = vaultWith({ "debugging/x.md": "keep me\n", "reference/r.md": "---\nname: r\n---\nR.\n" });
    const out = applyAction(
      { action: "create", folder: "debugging", fileName: "x", frontmatter: { name: "X", description: "d", type: "debugging", tags: ["t"] }, body: "new", related: ["r"] },
      { vault: v, cards: ["debugging/x.md", "reference/r.md"], offered: new Map(), sessionId: "s", date: "2026-11-30", dryRun: false },
    );
    expect(out.path).toBe("debugging/x-2.md");
    expect(readFileSync(join(v, "debugging/x.md"), "utf8")).toBe("keep me\n");
    expect(readFileSync(join(v, "reference/r.md"), "utf8")).toContain("[[x-2]]");
  });
});

describe("index pages", () => {
  const cards = [
    parseCard("reference/rare.md", "---\nname: Rare\ndescription: seldom recalled\nupdated: 2026-11-01\n---\n", 0),
    parseCard("debugging/hot.md", "---\nname: Hot\ndescription: recalled a lot\nupdated: 2026-01-01\nproject: p\n---\nWe decided to use X.", 0),
    parseCard("reference/old.md", "---\nname: Old\ndescription: archived\nstatus: archived\n---\n", 0),
  ];

  it("puts the most recalled cards first in MEMORY.md and leaves archived ones out", () => {
    const text = memoryIndex(cards, new Map([["debugging/hot.md", 12], ["reference/rare.md", 1]]));
    const lines = text.split("\n").filter((l) => l.startsWith("- "));
    expect(lines).toEqual(["- [Hot](debugging/hot.md) — recalled a lot", "- [Rare](reference/rare.md) — seldom recalled"]);
  });

  it("writes overview pages with valid frontmatter and a decision log per project", () => {
    const pages = overviewPages(cards, "2026-11-30");
    expect(Object.keys(pages).sort()).toEqual(["moc/decision-log-p.md", "moc/knowledge-overview.md", "moc/projects-overview.md", "moc/timeline.md"]);
    for (const [path, text] of Object.entries(pages)) expect(parseCard(path, text).frontmatterError).toBe("");
    expect(pages["moc/decision-log-p.md"]).toContain("[[hot|Hot]]");
  });
});
