import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { buildGraph } from "../../../src/core/lint/graph";
import { lint } from "../../../src/core/lint/lint";
import { CORPUS, copyVault, HAS_CORPUS, markdownFiles, NO_CORPUS, runBridge, SAMPLE_VAULT } from "../../helpers";

/**
 * An independent count of a note's wikilinks: a character scanner written apart from the
 * parser's line regexes, skipping fenced code, inline code and frontmatter.
 */
function countLinks(text: string): number {
  let n = 0;
  let i = 0;
  const s = text.replace(/\r\n/g, "\n");
  if (s.startsWith("---\n")) {
    const end = s.indexOf("\n---", 4);
    if (end > 0) i = end + 4;
  }
  let atLineStart = true;
  while (i < s.length) {
    if (atLineStart) {
      const rest = s.slice(i);
      const fence = /^ {0,3}(`{3,}|~{3,})/.exec(rest);
      if (fence) {
        const closer = new RegExp(`\\n {0,3}${fence[1][0] === "`" ? "`" : "~"}{${fence[1].length},}[ \\t]*(?:\\n|$)`);
        const m = closer.exec(rest.slice(fence[0].length));
        i += m ? fence[0].length + m.index + m[0].length : rest.length;
        continue;
      }
    }
    const c = s[i];
    atLineStart = c === "\n";
    if (c === "`") {
      let run = 1;
      while (s[i + run] === "`") run++;
      const close = s.indexOf("`".repeat(run), i + run);
      const nl = s.indexOf("\n", i);
      if (close > 0 && (nl < 0 || close < nl)) {
        i = close + run;
        continue;
      }
      i += run;
      continue;
    }
    if (c === "[" && s[i + 1] === "[") {
      const close = s.indexOf("]]", i + 2);
      const nl = s.indexOf("\n", i);
      const inner = close > 0 && (nl < 0 || close < nl) ? s.slice(i + 2, close) : "";
      if (inner && !inner.includes("[") && inner.split("|")[0].split("#")[0].trim() !== "") n++;
      i = close > 0 && inner ? close + 2 : i + 2;
      continue;
    }
    i++;
  }
  return n;
}

describe.skipIf(!HAS_CORPUS).each(["en", "zh"])(`lint on obsidian-help/%s (a copy)${HAS_CORPUS ? "" : ` (${NO_CORPUS})`}`, (lang) => {
  const vault = HAS_CORPUS ? copyVault(join(CORPUS, lang), lang) : "";
  const files = HAS_CORPUS ? markdownFiles(vault) : [];
  const cards = files.map((f) => parseCard(f, readFileSync(join(vault, f), "utf8")));

  it("finds the same wikilinks in every note as an independent count", () => {
    const mismatches = cards
      .map((c) => ({ path: c.path, parsed: c.links.filter((l) => l.line >= 0).length, counted: countLinks(readFileSync(join(vault, c.path), "utf8")) }))
      .filter((x) => x.parsed !== x.counted);
    expect(mismatches).toEqual([]);
    expect(cards.reduce((n, c) => n + c.links.length, 0)).toBeGreaterThan(500);
  });

  it("resolves most links, and every resolved edge appears both ways", () => {
    const g = buildGraph(cards);
    let edges = 0;
    for (const [from, tos] of g.out) {
      for (const to of tos) {
        edges++;
        expect(g.in.get(to)?.has(from)).toBe(true);
      }
    }
    const incoming = [...g.in.values()].reduce((n, s) => n + s.size, 0);
    expect(incoming).toBe(edges);
    expect(edges).toBeGreaterThan(300);
  });

  it("reports findings for every rule group it can, with files and lines inside the vault", () => {
    const findings = lint({ cards, text: new Map(files.map((f) => [f, readFileSync(join(vault, f), "utf8")])), snapshot: undefined });
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      if (f.file) expect(files).toContain(f.file);
      expect(f.line).toBeGreaterThanOrEqual(0);
    }
  });

  it("runs from the CLI with a readable report, and passes: an ordinary folder lacks no card field", () => {
    const r = runBridge(["lint", "--vault", vault]);
    expect(r.stdout).toMatch(/^\d+ warnings?, /);
    expect(r.status).toBe(0);
    const json = JSON.parse(runBridge(["lint", "--vault", vault, "--json"]).stdout) as { rule: string; severity: string }[];
    expect(json.length).toBeGreaterThan(0);
    expect(json.filter((f) => f.severity === "error")).toEqual([]);
    // The help's notes are not in type folders: no card field is asked of them, even as a warning.
    expect(json.filter((f) => ["missing-frontmatter", "missing-tags", "missing-description"].includes(f.rule))).toEqual([]);
  });
});

describe("lint's exit code", () => {
  it("is 1 when there are errors, with the errors counted first", () => {
    const vault = copyVault(SAMPLE_VAULT);
    expect(runBridge(["lint", "--vault", vault]).status).toBe(0);
    writeFileSync(join(vault, "reference", "broken.md"), "---\nname: [broken\n---\nSee [[hook-output-rules]].\n");
    const r = runBridge(["lint", "--vault", vault]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^1 error, /);
    expect(r.stdout).toMatch(/^ERROR broken-frontmatter \(1\)$/m);
  });
});
