// The scorer's loops run in WebAssembly where it is available (totals.wat) and in JavaScript
// where it is not: both must give every doc the same score, matches and "about", on real vaults
// and on damaged postings, and the floor must never leave out a doc `keep` takes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import type { MemoryIndex } from "../../../src/core/index/memory-index";
import type { FlatPostings, PostingSource } from "../../../src/core/index/postings";
import { scoreGroups, scoreGroupsScript, type QueryGroup, type Scored } from "../../../src/core/index/scorer";
import { failureQuery } from "../../../src/core/recall/failure";
import { buildQuery } from "../../../src/core/recall/query";
import { synonymPhrases } from "../../../src/core/index/index-options";
import { SAMPLE_VAULT } from "../../helpers";

const root = join(__dirname, "..", "..", "..");
const config = defaultConfig();
const everything = (): boolean => true;

interface Case {
  name: string;
  index: MemoryIndex;
  texts: string[];
}
const cases: Case[] = [];

beforeAll(() => {
  const texts = (file: string): string[] => {
    const set = JSON.parse(readFileSync(join(root, "eval", "queries", file), "utf8")) as
      { q: string }[] | { prompts?: { q: string }[]; cases?: { error: string }[] };
    if (Array.isArray(set)) return set.map((p) => p.q);
    return [...(set.prompts ?? []).map((p) => p.q), ...(set.cases ?? []).map((c) => failureQuery(c.error))];
  };
  cases.push({
    name: "en-work",
    index: buildIndexFromDisk(join(root, "eval", "vaults", "en-work"), config).index,
    texts: [...texts("work-en.json"), ...texts("failures-en.json")],
  });
  cases.push({ name: "ja-work", index: buildIndexFromDisk(join(root, "eval", "vaults", "ja-work"), config).index, texts: texts("work-ja.json") });
  cases.push({ name: "sample", index: buildIndexFromDisk(SAMPLE_VAULT, config).index, texts: texts("sample.json") });
});

function groupsOf(text: string, source: PostingSource): QueryGroup[] {
  return buildQuery(text, source.indexOptions, synonymPhrases(source.indexOptions));
}

describe("the scorer's loops in WebAssembly and in JavaScript", () => {
  it("give every doc the same score, matches, about and hint, on three vaults' prompts and errors", () => {
    let compared = 0;
    for (const c of cases) {
      for (const text of c.texts) {
        const groups = groupsOf(text, c.index);
        for (const hintBonus of [0, 5]) {
          const wasm = scoreGroups(groups, c.index, everything, { hintBonus });
          expect(scoreGroupsScript(groups, c.index, everything, { hintBonus }), `${c.name}: ${text}`).toEqual(wasm);
          compared += wasm.length;
        }
      }
    }
    // Thousands of docs scored, so the comparison is of real work.
    expect(compared).toBeGreaterThan(5000);
  });

  it("leave out nothing keep takes when given the floor keep asks", () => {
    for (const c of cases) {
      for (const text of c.texts) {
        const groups = groupsOf(text, c.index);
        const need = Math.min(2, groups.length);
        // A floor that rounding could misjudge: exactly a doc's score.
        const all = scoreGroups(groups, c.index, everything, { hintBonus: 5 });
        const min = all[Math.min(3, all.length - 1)]?.score ?? 1;
        const keep = (s: Scored): boolean => s.matched >= need && s.score * 1.7 >= min * 1.7;
        const floor = { matched: need, score: min };
        const unfloored = scoreGroups(groups, c.index, keep, { hintBonus: 5 });
        expect(scoreGroups(groups, c.index, keep, { hintBonus: 5, floor })).toEqual(unfloored);
        expect(scoreGroupsScript(groups, c.index, keep, { hintBonus: 5, floor })).toEqual(unfloored);
      }
    }
  });

  it("start afresh on each scoring, a larger vault's or a smaller one's", () => {
    const [big, , small] = cases;
    const bigGroups = groupsOf(big.texts[0], big.index);
    const smallGroups = groupsOf(small.texts[0], small.index);
    const first = scoreGroups(bigGroups, big.index, everything, { hintBonus: 5 });
    expect(scoreGroups(smallGroups, small.index, everything, { hintBonus: 5 })).toEqual(
      scoreGroupsScript(smallGroups, small.index, everything, { hintBonus: 5 }),
    );
    expect(scoreGroups(bigGroups, big.index, everything, { hintBonus: 5 })).toEqual(first);
  });

  it("pass over damaged postings alike: doc ids out of range, an odd length, a list longer than the vault", () => {
    const docs = 40;
    const lists: Record<string, FlatPostings> = {
      // Ids past the vault, negative, not whole; a value with its about bit.
      broken: [3, 8, 999, 40, -1, 6, 40, 2, 7, 5, 39, 1000, 2.5, 7, 2 ** 32 + 4, 9],
      // A value but no doc for the last pair.
      odd: [1, 20, 2, 31, 5],
      // Each doc many times over: longer than the kernel's room for one list, so copied in pieces.
      long: Array.from({ length: docs * 7 }, (_, i) => [i % docs, (i % 13) * 2 + (i % 2)]).flat(),
      near: [3, 4, 9, 11],
    };
    const source: PostingSource = {
      indexOptions: cases[2].index.indexOptions,
      docCount: docs,
      idLimit: docs,
      postings: (term: string) => lists[term],
      doc: () => undefined,
    };
    const groups: QueryGroup[] = [
      { term: "broken", alternatives: [["broken", 1]] },
      { term: "odd", alternatives: [["odd", 1]] },
      {
        term: "long",
        alternatives: [
          ["long", 1],
          ["near", 0.5],
        ],
      },
      {
        term: "near",
        alternatives: [
          ["near", 1],
          ["broken", 0.5],
          ["odd", 0.25],
        ],
      },
    ];
    const wasm = scoreGroups(groups, source, everything);
    expect(wasm.length).toBeGreaterThan(20);
    expect(wasm.every((s) => s.doc >= 0 && s.doc < docs && Number.isFinite(s.score))).toBe(true);
    expect(scoreGroupsScript(groups, source, everything)).toEqual(wasm);
  });
  it("agree on what no prompt gives: a weight of 0 or not a number, a floor not whole, a vault of no docs", () => {
    const docs = 3;
    const lists: Record<string, FlatPostings> = {
      // Every doc about the word, many times over: more about-postings than the vault has docs.
      about: Array.from({ length: 200 }, (_, i) => [i % docs, 3]).flat(),
      two: [0, 2, 1, 4],
      one: [0, 6],
    };
    const sourceOf = (idLimit: number): PostingSource => ({
      indexOptions: cases[2].index.indexOptions,
      docCount: docs,
      idLimit,
      postings: (term: string) => lists[term],
      doc: () => undefined,
    });
    const source = sourceOf(docs);
    for (const weight of [0, -0, -1, NaN]) {
      const groups: QueryGroup[] = [
        { term: "two", alternatives: [["two", 1]] },
        { term: "about", alternatives: [["about", weight]] },
        {
          term: "one",
          alternatives: [
            ["one", 1],
            ["about", weight],
          ],
        },
      ];
      expect(scoreGroups(groups, source, everything), `weight ${weight}`).toEqual(scoreGroupsScript(groups, source, everything));
    }
    // Doc 0 matches two words, doc 1 one: a floor of 1.5 matches keeps doc 0 alone.
    const groups: QueryGroup[] = [
      { term: "two", alternatives: [["two", 1]] },
      { term: "one", alternatives: [["one", 1]] },
    ];
    for (const matched of [1.5, NaN, Infinity, -Infinity, 2 ** 32 + 1, -(2 ** 32) + 1]) {
      const floor = { matched, score: 0 };
      expect(scoreGroups(groups, source, everything, { floor }), `floor ${matched}`).toEqual(scoreGroupsScript(groups, source, everything, { floor }));
    }
    expect(scoreGroups(groups, source, everything, { floor: { matched: 1.5, score: 0 } }).map((s) => s.doc)).toEqual([0]);
    // A damaged snapshot's count of docs: none (with postings all the same), or not whole.
    for (const idLimit of [0, 2.5])
      expect(scoreGroups(groups, sourceOf(idLimit), everything)).toEqual(scoreGroupsScript(groups, sourceOf(idLimit), everything));
  });

  it("leave the kernel to the scoring that took it, when others score inside it", () => {
    const c = cases[2];
    const [outer, other] = [c.texts[0], c.texts[1]].map((t) => groupsOf(t, c.index));
    const alone = scoreGroups(outer, c.index, everything);
    const otherAlone = scoreGroups(other, c.index, everything);
    expect(alone.length).toBeGreaterThan(1);
    expect(otherAlone).not.toEqual(alone);
    let inner = 0;
    // Two scorings of another text for each doc kept: the first is refused the kernel, and so
    // must the second be, or it would score into the memory the outer one is still reading.
    const keep = (): boolean => {
      for (let i = 0; i < 2; i++) expect(scoreGroups(other, c.index, everything)).toEqual(otherAlone);
      inner++;
      return true;
    };
    expect(scoreGroups(outer, c.index, keep)).toEqual(alone);
    expect(inner).toBe(alone.length);
  });
});
