import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { defaultConfig } from "../../../src/core/config";
import { MemoryIndex } from "../../../src/core/index/memory-index";
import { nearKey, type PostingSource } from "../../../src/core/index/postings";
import { MAX_BUCKET_WORDS, MAX_TYPO_WORDS, buildTypoTable, correctionsOf, oneEditApart } from "../../../src/core/index/typos";
import { withCorrections } from "../../../src/core/recall/query";
import { buildQuery } from "../../../src/core/recall/query";
import { recall } from "../../../src/core/recall/recall";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { synonymPhrases } from "../../../src/core/index/index-options";
import { tempDir } from "../../helpers";

describe("oneEditApart", () => {
  it.each([
    ["reciev", "receiv", true], // two neighbours swapped
    ["dependanci", "dependenci", true], // one changed
    ["deploment", "deployment", true], // one left out
    ["configg", "config", true], // one too many
    ["config", "config", false], // the same word is no typo
    ["revers", "reviews", false], // two edits
    ["abcdef", "badcef", false], // two swaps
  ])("%s ~ %s: %s", (a, b, want) => {
    expect(oneEditApart(a, b)).toBe(want);
    expect(oneEditApart(b, a)).toBe(want);
  });
});

describe("the typo table", () => {
  it("buckets words of five Latin letters or more in two cards or more, commonest first", () => {
    const table = buildTypoTable([
      ["deploy", 3],
      ["delete", 9],
      ["docker", 1],
      ["部署服务", 4],
      ["k8s", 5],
      ["cfg", 7],
      ["dns1x", 3],
    ]);
    expect(table.get(nearKey("d", 6))).toEqual(["delete", "deploy"]);
    expect([...table.values()].flat()).not.toContain("docker");
    expect([...table.keys()]).toEqual([nearKey("d", 6)]);
  });

  it("keeps a bucket to its bound", () => {
    const words = Array.from(
      { length: MAX_BUCKET_WORDS + 50 },
      (_, i) => [`a${i.toString(26).replace(/[0-9]/g, (d) => "qrstuvwxyz"[Number(d)])}`.padEnd(8, "z"), 2] as const,
    );
    for (const list of buildTypoTable(words).values()) expect(list.length).toBeLessThanOrEqual(MAX_BUCKET_WORDS);
  });

  it("looks up at most three buckets per word and corrects only a few of the prompt's words", () => {
    const asked: string[] = [];
    const source = {
      postings: () => undefined,
      hintPostings: () => undefined,
      nearWords: (key: string) => {
        asked.push(key);
        return key === nearKey("r", 7) ? ["receive"] : ["zzzzzz"];
      },
    } as unknown as PostingSource;
    expect(correctionsOf("recieve", source)).toEqual(["receive"]);
    expect(asked).toEqual([nearKey("r", 6), nearKey("r", 7), nearKey("r", 8)]);
    asked.length = 0;
    const groups = ["alphaa", "bravoo", "charlie", "deltaa", "echooo"].map((term) => ({ term, alternatives: [[term, 1]] as [string, number][] }));
    withCorrections(groups, source);
    expect(new Set(asked.map((k) => k[1])).size).toBe(MAX_TYPO_WORDS);
  });
});

describe("typos in prompts", () => {
  const config = defaultConfig();
  const cards: Record<string, string> = {
    "debugging/webhook-receive.md":
      "---\nname: Webhook does not receive events\ndescription: The endpoint must receive the raw body to verify the signature\n---\nWe receive events through the proxy; the receive path keeps the raw body.",
    "feedback/dependency.md":
      "---\nname: Ask before adding a dependency\ndescription: Every new dependency is a question first\n---\nA dependency costs upkeep.",
    "reference/receipts.md":
      "---\nname: Receipt uploads\ndescription: Receipt photos go to the bucket\n---\nReceive a receipt, store it; no new dependency for it.",
  };
  for (let i = 0; i < 12; i++)
    cards[`filler/${i}.md`] = `---\nname: filler ${i}\ndescription: note ${i}\n---\n` + Array.from({ length: 12 }, (_, j) => `word${i}x${j}`).join(" ");
  const index = new MemoryIndex();
  for (const [path, text] of Object.entries(cards)) index.upsert(parseCard(path, text));

  it("matches a word misspelt by one edit, in the live index and through the snapshot", () => {
    const path = join(tempDir(), "snapshot.jsonl");
    writeSnapshot(path, index, config.recall);
    const reader = SnapshotReader.open(path);
    try {
      // Without the table, the misspelt word finds nothing: its first five letters are not a prefix of the right one.
      const noTable = Object.assign(Object.create(index) as MemoryIndex, { nearWords: undefined });
      expect(recall("new depnedency for the dates, ok?", noTable, config.recall, "/v").cards).toEqual([]);
      for (const source of [index, reader]) {
        expect(recall("webhook doesnt recieve the events", source, config.recall, "/v").cards[0]?.path).toBe("debugging/webhook-receive.md");
        expect(recall("new depnedency for the dates, ok?", source, config.recall, "/v").cards[0]?.path).toBe("feedback/dependency.md");
      }
    } finally {
      reader.close();
    }
  });

  it("leaves a word the vault has as it is, and corrects no short word nor Chinese", () => {
    const groups = (prompt: string) => withCorrections(buildQuery(prompt, index.indexOptions, synonymPhrases(index.indexOptions)), index);
    // "receipt" is in the vault: no correction to anything near it.
    expect(groups("receipt").find((g) => g.term === "receipt")?.alternatives).toEqual([
      ["receipt", 1],
      ["recei*", 0.5],
    ]);
    expect(groups("recieve")[0].alternatives.map(([t]) => t)).toContain("receiv");
    expect(groups("cfgs").every((g) => g.alternatives.length <= 2)).toBe(true);
    expect(groups("依懒").every((g) => g.alternatives.length === 1)).toBe(true);
  });
});
