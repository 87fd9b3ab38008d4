import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { MemoryIndex } from "../../../src/core/index/memory-index";
import { tokenize } from "../../../src/core/text/tokenizer";
import { DEFAULT_SCORING, DEFAULT_THRESHOLDS, applyThresholds, idfOf, impactOf, scoreDocs, type Scored } from "../../../src/core/index/scorer";

function indexOf(cards: Record<string, string>): MemoryIndex {
  const index = new MemoryIndex();
  for (const [path, text] of Object.entries(cards)) index.upsert(parseCard(path, text));
  return index;
}

const idf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

describe("scoreDocs", () => {
  it("scores the body with BM25 times IDF", () => {
    // A name and description keep "cron" out of the title field, so only the body scores.
    const fm = "---\nname: zz\ndescription: zz\n---\n";
    const index = indexOf({ "a.md": fm + "cron cron jobs fail nightly", "b.md": fm + "nothing relevant", "c.md": fm + "more filler text" });
    const [hit] = scoreDocs(["cron"], index);
    const avg = index.avgLength;
    const tf = 2;
    const len = 5;
    // "more" is a stop word, so the three bodies hold 5, 2 and 2 terms.
    expect(avg).toBeCloseTo((5 + 2 + 2) / 3, 5);
    const bm25 = (tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avg));
    expect(hit.score).toBeCloseTo(idf(3, 1) * bm25, 2);
  });

  it("adds a flat title bonus per term, however often the term is in the title", () => {
    const once = indexOf({ "a.md": "---\nname: cron\n---\n", "b.md": "x y", "c.md": "z w" });
    const thrice = indexOf({ "a.md": "---\nname: cron cron cron\ndescription: cron\n---\n", "b.md": "x y", "c.md": "z w" });
    const s1 = scoreDocs(["cron"], once)[0].score;
    const s3 = scoreDocs(["cron"], thrice)[0].score;
    expect(s1).toBeCloseTo(idf(3, 1) * DEFAULT_SCORING.titleBonus, 2);
    expect(s3).toBeCloseTo(s1, 5);
  });

  it("counts distinct matched terms", () => {
    const index = indexOf({ "a.md": "cron launchd path", "b.md": "cron only" });
    const byPath = new Map(scoreDocs(["cron", "launchd", "path"], index).map((s) => [index.doc(s.doc)?.path, s.matched]));
    expect(byPath.get("a.md")).toBe(3);
    expect(byPath.get("b.md")).toBe(1);
  });

  it("ranks rarer terms higher", () => {
    const index = indexOf({ "a.md": "common rare", "b.md": "common", "c.md": "common", "d.md": "common other" });
    expect(impactOf(2, idfOf(1, 4), 1.2, DEFAULT_SCORING)).toBeGreaterThan(impactOf(2, idfOf(4, 4), 1.2, DEFAULT_SCORING));
    expect(index.doc(scoreDocs(["rare", "common"], index)[0].doc)?.path).toBe("a.md");
  });

  it("indexes and finds prototype-named words like any other", () => {
    const index = indexOf({ "a.md": "constructor __proto__ toString", "b.md": "plain words" });
    for (const word of ["constructor", "__proto__", "toString"]) {
      expect(scoreDocs(tokenize(word), index).map((s) => index.doc(s.doc)?.path)).toEqual(["a.md"]);
    }
    expect(scoreDocs(tokenize("hasOwnProperty valueOf"), index)).toEqual([]);
  });

  it("follows updates and removals", () => {
    const index = indexOf({ "a.md": "alpha beta" });
    index.upsert(parseCard("a.md", "gamma delta"));
    expect(scoreDocs(["alpha"], index)).toEqual([]);
    expect(scoreDocs(["gamma"], index)).toHaveLength(1);
    index.remove("a.md");
    expect(scoreDocs(["gamma"], index)).toEqual([]);
    expect(index.termCount()).toBe(0);
  });
});

describe("applyThresholds", () => {
  const s = (doc: number, score: number, matched = 2): Scored => ({ doc, score, matched });

  it.each<[string, Scored[], Partial<typeof DEFAULT_THRESHOLDS>, number[]]>([
    ["nothing under the minimum score", [s(1, 14.9), s(2, 10)], {}, []],
    ["a card at the minimum score is kept", [s(1, 15)], {}, [1]],
    ["cards under 0.55 of the top are dropped", [s(1, 40), s(2, 22), s(3, 21.9)], {}, [1, 2]],
    ["a card must match two distinct terms", [s(1, 50, 1), s(2, 30, 2)], {}, [2]],
    ["one matched term is enough when the setting says so", [s(1, 50, 1)], { minMatchedTerms: 1 }, [1]],
    ["at most five cards", [1, 2, 3, 4, 5, 6, 7].map((d) => s(d, 30)), {}, [1, 2, 3, 4, 5]],
    ["max cards is a setting", [1, 2, 3].map((d) => s(d, 30)), { maxCards: 2 }, [1, 2]],
    ["the relative floor is a setting", [s(1, 40), s(2, 20)], { relativeToTop: 0.8 }, [1]],
    ["the minimum score is a setting", [s(1, 10)], { minScore: 5 }, [1]],
    ["a single-term top card does not raise the floor for others", [s(1, 100, 1), s(2, 30), s(3, 20)], {}, [2, 3]],
  ])("%s", (_, ranked, rules, expected) => {
    expect(applyThresholds(ranked, { ...DEFAULT_THRESHOLDS, ...rules }).map((x) => x.doc)).toEqual(expected);
  });
});

describe("what a card is about", () => {
  const fm = (name: string, extra = ""): string => `---\nname: ${name}\ndescription: ${name}\n${extra}---\n`;
  const index = indexOf({
    "deploy.md": fm("deploy to staging") + "Run the pipeline; the cache is warmed first.",
    "cache.md": fm("redis cache eviction") + "When the cache fills, keys go oldest first.",
    "hinted.md": fm("release train", "questions:\n  - ship the build to both app stores\n") + "Every second week.",
    "filler.md": fm("unrelated") + "nothing here",
  });
  const n = index.docCount;
  const byPath = (ranked: Scored[], path: string): Scored | undefined => ranked.find((s) => index.doc(s.doc)?.path === path);

  it("counts the IDF of the words in the title field, not those the body shares", () => {
    const ranked = scoreDocs(tokenize("cache deploy"), index);
    // deploy.md: "deploy" in its name, "cache" in its body only.
    expect(byPath(ranked, "deploy.md")?.about).toBeCloseTo(idf(n, 1), 5);
    expect(byPath(ranked, "cache.md")?.about).toBeCloseTo(idf(n, 2), 5);
  });

  it("counts a hint's words once the hint matches", async () => {
    const { scoreGroups } = await import("../../../src/core/index/scorer");
    const groups = tokenize("ship build app stores").map((term) => ({ term, alternatives: [[term, 1]] as [string, number][] }));
    const s = byPath(
      scoreGroups(groups, index, () => true, { hintBonus: DEFAULT_SCORING.hintBonus }),
      "hinted.md",
    );
    expect(s?.about).toBeGreaterThan(3 * idf(n, 1) - 1e-9);
    // Without hints scored, the same words are in no title field.
    expect(byPath(scoreGroups(groups, index), "hinted.md")).toBeUndefined();
  });
});
