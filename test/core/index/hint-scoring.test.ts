import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { defaultConfig } from "../../../src/core/config";
import { DEFAULT_INDEX_OPTIONS } from "../../../src/core/index/index-options";
import { MemoryIndex } from "../../../src/core/index/memory-index";
import { synonymPhrases } from "../../../src/core/index/index-options";
import { scoreGroups } from "../../../src/core/index/scorer";
import { buildQuery } from "../../../src/core/recall/query";
import { fnv1aString } from "../../../src/core/io/hash";
import { recall } from "../../../src/core/recall/recall";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { tempDir } from "../../helpers";

const NOW = Date.UTC(2026, 10, 30);
const rules = () => defaultConfig().recall;
const paths = (r: { cards: { path: string }[] }): string[] => r.cards.map((c) => c.path);

function note(name: string, body: string, questions: string[] = []): string {
  const q = questions.length ? `questions: ${JSON.stringify(questions)}\n` : "";
  return `---\nname: ${name}\ndescription: ${name}\ntype: reference\n${q}---\n# ${name}\n\n${body}\n`;
}

function indexOf(cards: Record<string, string>): MemoryIndex {
  const index = new MemoryIndex(defaultConfig().recall.scoring, DEFAULT_INDEX_OPTIONS);
  for (const [path, text] of Object.entries(cards)) index.upsert(parseCard(path, text));
  // Filler, so that IDF and the vault-size scaling behave as in a real vault.
  for (let i = 0; i < 60; i++)
    index.upsert(parseCard(`filler/${i}.md`, note(`Filler ${i}`, `filler note number ${i} about gardening, cooking and the weather`)));
  return index;
}

const VERSION_HISTORY = note("Version history", "Snapshots of every file are kept for a year. Restore an older snapshot from the file menu.", [
  "how do I back up my vault",
  "get back a note I deleted by mistake",
  "restore an older version of a file",
]);

describe("recall hints", () => {
  it("find a card in the person's words when its text uses others", () => {
    const cards = { "reference/version-history.md": VERSION_HISTORY };
    const prompt = "how should I back up my vault?";
    expect(paths(recall(prompt, indexOf(cards), rules(), "/v", { now: NOW }))).toEqual(["reference/version-history.md"]);
    // The same card without its hints: no word of the prompt is in its text.
    const bare = {
      "reference/version-history.md": note("Version history", "Snapshots of every file are kept for a year. Restore an older snapshot from the file menu."),
    };
    expect(paths(recall(prompt, indexOf(bare), rules(), "/v", { now: NOW }))).toEqual([]);
  });

  it("say which hint matched", () => {
    const r = recall("how should I back up my vault?", indexOf({ "reference/version-history.md": VERSION_HISTORY }), rules(), "/v", { now: NOW });
    expect(r.cards[0].hint).toEqual({ index: 0, text: "how do I back up my vault" });
  });

  it("leave acknowledgements silent, whatever the hints say", () => {
    const cards = {
      "reference/version-history.md": VERSION_HISTORY,
      "reference/next-steps.md": note("Next steps", "What to read after the tour.", [
        "ok thanks, what next",
        "thanks, show me the next step",
        "next step after setup",
      ]),
    };
    for (const prompt of ["ok thanks, next", "thanks! next", "好的谢谢，下一个", "ありがとう、次"])
      expect(paths(recall(prompt, indexOf(cards), rules(), "/v", { now: NOW })), prompt).toEqual([]);
  });

  it("add nothing for one shared word: a hint is a whole question", () => {
    const cards = {
      "reference/vault.md": note("Storage", "Where files live on disk.", ["vault location on disk", "vault folder on a phone", "vault inside a cloud folder"]),
    };
    const index = indexOf(cards);
    const hintOf = (prompt: string) => {
      const groups = buildQuery(prompt, index.indexOptions, synonymPhrases(index.indexOptions));
      const id = [...index.docs()].find((d) => d.path === "reference/vault.md")!.id;
      return scoreGroups(groups, index, () => true, { hintBonus: 5 }).find((s) => s.doc === id)?.hint;
    };
    expect(hintOf("my vault looks great today, the weather is lovely")).toBeUndefined();
    expect(hintOf("where is the vault folder on my phone")).toBe(1);
    // A one-word prompt needs only its word.
    expect(hintOf("vault")).toBeDefined();
  });

  it("count a word once per card, so many hints do not outrank a better card", () => {
    const cards = {
      "reference/sync-conflicts.md": note("Sync conflicts", "When two devices edit one note, sync keeps both versions as conflict files.", [
        "why do I get conflict files after sync",
      ]),
      // Six hints that all say "sync" and "note" again add what one would.
      "reference/sync-everything.md": note(
        "Sync",
        "Sync settings.",
        Array.from({ length: 6 }, (_, i) => `sync note ${["one", "two", "three", "four", "five", "six"][i]} sync note`),
      ),
    };
    const r = recall("why does sync make conflict files for my note", indexOf(cards), rules(), "/v", { now: NOW });
    expect(paths(r)[0]).toBe("reference/sync-conflicts.md");
  });

  it("score the same from a snapshot as from memory, hints and all", () => {
    const cards = {
      "reference/version-history.md": VERSION_HISTORY,
      "reference/vault.md": note("Storage", "Where files live on disk.", ["vault location on disk", "vault folder on a phone"]),
    };
    const index = indexOf(cards);
    const path = join(tempDir(), "snapshot.jsonl");
    writeSnapshot(path, index, rules());
    const reader = SnapshotReader.open(path);
    try {
      for (const prompt of ["how should I back up my vault?", "where is my vault folder on a phone", "restore an older version of a file"]) {
        const fromMemory = recall(prompt, index, rules(), "/v", { now: NOW });
        const fromDisk = recall(prompt, reader, rules(), "/v", { now: NOW });
        expect(fromDisk.text, prompt).toBe(fromMemory.text);
        expect(
          fromDisk.cards.map((c) => [c.path, c.hint?.index]),
          prompt,
        ).toEqual(fromMemory.cards.map((c) => [c.path, c.hint?.index]));
      }
      // Hint postings sit in their term's shard: hints add no segment reads to a recall.
      const read = [...(reader as unknown as { base: { shardCache: Map<number, unknown> } }).base.shardCache.keys()];
      const terms = ["how should I back up my vault?", "where is my vault folder on a phone", "restore an older version of a file"]
        .flatMap((p) => buildQuery(p, reader.indexOptions, synonymPhrases(reader.indexOptions)))
        .flatMap((g) => g.alternatives.map(([t]) => t));
      const termShards = new Set(terms.map((t) => fnv1aString(t) % reader.header.shards));
      expect(read.every((shard) => termShards.has(shard))).toBe(true);
    } finally {
      reader.close();
    }
  });

  it("follow the property the settings name", () => {
    const index = new MemoryIndex(defaultConfig().recall.scoring, { ...DEFAULT_INDEX_OPTIONS, hintsProperty: "faq" });
    index.upsert(parseCard("a.md", VERSION_HISTORY.replace("questions:", "faq:")));
    for (let i = 0; i < 60; i++) index.upsert(parseCard(`filler/${i}.md`, note(`Filler ${i}`, "gardening and cooking")));
    expect(paths(recall("how should I back up my vault?", index, rules(), "/v", { now: NOW }))).toEqual(["a.md"]);
  });
});

describe("recall hints in Japanese", () => {
  it("count a katakana word once, however many character pairs it is cut into", () => {
    const cards = {
      "clipper/highlight.md": note("ハイライト", "蛍光ペンで線を引いた箇所を残す。", ["ハイライトした部分だけ保存したい", "付けたハイライトの一覧を見たい"]),
      "files/names.md": note("ファイル名", "使えない文字がある。", ["ファイルのアイコンを変える", "ファイルのプロパティを見る"]),
    };
    const index = indexOf(cards);
    const highlight = [...index.docs()].find((d) => d.path === "clipper/highlight.md")!;
    // ハイライト, 部分, 保存: three words, not the six pairs the index holds.
    expect(highlight.hintSizes[0]).toBe(3);
    const hintOf = (prompt: string, path: string) => {
      const groups = buildQuery(prompt, index.indexOptions, synonymPhrases(index.indexOptions));
      const id = [...index.docs()].find((d) => d.path === path)!.id;
      return scoreGroups(groups, index, () => true, { hintBonus: 5 }).find((s) => s.doc === id);
    };
    // One katakana word shared with a hint is one word: no hint match for a chat line about files.
    expect(hintOf("ファイルがきれいになった気がする", "files/names.md")?.hint).toBeUndefined();
    // Two words of the hint, in other words around them, are.
    expect(hintOf("マーカーを引いた部分だけを保存したい", "clipper/highlight.md")?.hint).toBe(0);
    // A one-word prompt needs only its word, however many pairs that word is.
    expect(hintOf("ハイライト", "clipper/highlight.md")?.hint).toBeDefined();
  });
});

describe("hint scoring's reads", () => {
  it("looks up no alternative the word scoring skipped (a prefix of a common word)", () => {
    const cards: Record<string, string> = { "reference/version-history.md": VERSION_HISTORY };
    // "configuration" in 30 cards: its prefix "confi*" adds nothing and is skipped.
    for (let i = 0; i < 30; i++) cards[`reference/c${i}.md`] = note(`Config ${i}`, "the configuration of this part");
    const index = indexOf(cards);
    const asked: string[] = [];
    const source = Object.assign(Object.create(index) as MemoryIndex, {
      hintPostings: (term: string) => {
        asked.push(term);
        return index.hintPostings(term);
      },
    });
    const groups = buildQuery("configuration backup", index.indexOptions, synonymPhrases(index.indexOptions));
    expect(groups.some((g) => g.alternatives.some(([t]) => t === "confi*"))).toBe(true);
    scoreGroups(groups, source, () => true, { hintBonus: 5 });
    expect(asked).not.toContain("confi*");
    expect(asked).toContain("configuration");
  });
});
