import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { defaultConfig, indexOptionsOf } from "../../../src/core/config";
import { MemoryIndex } from "../../../src/core/index/memory-index";
import { fuseSimilar, similarCards } from "../../../src/core/recall/similar";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { tempDir } from "../../helpers";

const note = (name: string, body: string, extra = ""): string =>
  `---\nname: ${name}\ndescription: about ${name}\ntype: reference\n${extra}---\n# ${name}\n\n${body}\n`;

function indexOf(cards: Record<string, string>, synonyms = ""): MemoryIndex {
  const cfg = defaultConfig();
  const index = new MemoryIndex(cfg.recall.scoring, indexOptionsOf(cfg.index, synonyms));
  for (const [path, text] of Object.entries(cards)) index.upsert(parseCard(path, text));
  for (let i = 0; i < 40; i++) index.upsert(parseCard(`filler/${i}.md`, note(`Filler ${i}`, `gardening, cooking and the weather, note ${i}`)));
  return index;
}

const paths = (r: { path: string }[]): string[] => r.map((c) => c.path);
const hintBonus = defaultConfig().recall.scoring.hintBonus;

describe("similarCards", () => {
  it("finds cards as recall does: stems, folds traditional Chinese and counts the vault's synonyms", () => {
    const index = indexOf(
      {
        "debugging/launchd.md": note("launchd job", "The nightly launchd job deletes stale files."),
        "reference/links.md": note("連結 設定", "檔案 之間 的 連結 怎麼 設定"),
      },
      "- 排程, launchd",
    );
    expect(paths(similarCards("the nightly job deleted the files", index, 5))).toEqual(["debugging/launchd.md"]);
    expect(paths(similarCards("链接 设定 文件", index, 5))).toEqual(["reference/links.md"]);
    expect(paths(similarCards("排程 nightly 失败", index, 5))).toEqual(["debugging/launchd.md"]);
  });

  it("counts a card's recall hints when given the hint bonus", () => {
    const index = indexOf({
      "reference/history.md": note("Version history", "Restore an older version of a note.", 'questions: ["how do I back up my vault safely"]\n'),
    });
    expect(similarCards("how do I back up my vault safely", index, 5, 0)).toEqual([]);
    expect(paths(similarCards("how do I back up my vault safely", index, 5, hintBonus))).toEqual(["reference/history.md"]);
  });

  it("keeps the best `limit` cards, and leaves out overview pages, notes about the vault and cards sharing one stray word", () => {
    const cards: Record<string, string> = {
      "moc/overview.md": note("Overview", "vite deploy base path cname"),
      "meta/about.md": note("About", "vite deploy base path cname"),
      "reference/weather.md": note("Weather", "the weather of the deploy day"),
    };
    for (let i = 0; i < 8; i++) cards[`reference/vite-${i}.md`] = note(`Vite ${i}`, `vite deploy base path ${"cname ".repeat(i)}`);
    const got = similarCards("vite deploy base path cname", indexOf(cards), 3);
    expect(got).toHaveLength(3);
    expect(paths(got).every((p) => p.startsWith("reference/vite-"))).toBe(true);
    expect(got.map((c) => c.score)).toEqual([...got.map((c) => c.score)].sort((a, b) => b - a));
    expect(paths(similarCards("vite deploy base path cname", indexOf(cards), 50))).not.toEqual(
      expect.arrayContaining(["moc/overview.md", "meta/about.md", "reference/weather.md"]),
    );
  });

  it("gives the same cards from a snapshot as from the live index", () => {
    const index = indexOf({
      "debugging/launchd.md": note("launchd job", "The nightly launchd job deletes stale files."),
      "reference/cron.md": note("cron", "A nightly cron job and its files."),
    });
    const path = join(tempDir(), "snapshot.jsonl");
    writeSnapshot(path, index, defaultConfig().recall);
    const text = "the nightly job and its files";
    expect(similarCards(text, SnapshotReader.open(path), 5, hintBonus)).toEqual(similarCards(text, index, 5, hintBonus));
  });
});

describe("similar cards with meaning", () => {
  it("adds recall's minimum score at the gate, twice it at alone, vetoes nothing, and lets meaning alone bring a card", () => {
    const words = [
      { path: "a.md", description: "A", score: 30 },
      { path: "b.md", description: "B", score: 10 },
    ];
    const sims = new Map([
      ["a.md", { standOut: -2, description: "A" }],
      ["b.md", { standOut: 9, description: "B" }],
      ["c.md", { standOut: 3, description: "C" }],
      ["d.md", { standOut: 2.9, description: "D" }],
      ["moc/index.md", { standOut: 8, description: "an overview page" }],
    ]);
    expect(fuseSimilar(words, sims, { gate: 3, alone: 5, weight: 1, scale: 15 }, 5)).toEqual([
      { path: "b.md", description: "B", score: 40 },
      { path: "a.md", description: "A", score: 30 },
      { path: "c.md", description: "C", score: 15 },
    ]);
  });
});
