import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { parseCard } from "../../../src/core/card/card";
import type { MemoryIndex } from "../../../src/core/index/memory-index";
import { recall } from "../../../src/core/recall/recall";
import { SnapshotError, SnapshotReader } from "../../../src/core/snapshot/read";
import { verifySnapshot } from "../../../src/core/snapshot/verify";
import { serializeSnapshot, serializeSnapshotSliced, writeSnapshot, writeSnapshotSliced } from "../../../src/core/snapshot/write";
import { TOKENIZER_VERSION } from "../../../src/core/text/tokenizer";
import { RECORD_WIDTH, SNAPSHOT_VERSION } from "../../../src/core/snapshot/format";
import { fnv1aWords } from "../../../src/core/io/hash";
import { CORPUS, editHeader, HAS_CORPUS, NO_CORPUS, SAMPLE_VAULT, tempDir } from "../../helpers";
import { generateVault } from "../../fixtures/generated-vault";

const config = defaultConfig();
let sample: MemoryIndex;
let generated: MemoryIndex;
let generatedDir: string;

beforeAll(() => {
  sample = buildIndexFromDisk(SAMPLE_VAULT, config).index;
  generatedDir = join(tempDir(), "generated");
  generateVault(generatedDir, 400);
  generated = buildIndexFromDisk(generatedDir, config).index;
});

function written(index: MemoryIndex): string {
  const path = join(tempDir(), "snapshot.jsonl");
  writeSnapshot(path, index, config.recall);
  return path;
}

function problemOf(path: string): string {
  try {
    SnapshotReader.open(path).postings("排程");
    return "none";
  } catch (err) {
    return err instanceof SnapshotError ? err.problem : `unexpected ${String(err)}`;
  }
}

describe("snapshot round trip", () => {
  it.each([
    ["sample vault", () => sample, ["为什么排程跑不起来", "vite 部署到自訂網域 base 路徑", "commit message style", "hook stdout"]],
    ["a generated 400-note vault", () => generated, ["如何在笔记里嵌入 PDF", "同步 仓库 手机", "模板 插件", "backup sync plugin", "canvas graph template"]],
  ])("recalls the same cards from disk as from memory: %s", (_, index, prompts) => {
    const reader = SnapshotReader.open(written(index()));
    try {
      for (const prompt of prompts) {
        const fromMemory = recall(prompt, index(), config.recall, "/v");
        const fromDisk = recall(prompt, reader, config.recall, "/v");
        expect(fromDisk.text).toBe(fromMemory.text);
        expect(fromDisk.cards.map((c) => c.path)).toEqual(fromMemory.cards.map((c) => c.path));
      }
    } finally {
      reader.close();
    }
  });

  it("reads every list as the index holds it: words, hints and typo buckets", () => {
    const hinted = buildIndexFromDisk(SAMPLE_VAULT, config).index;
    hinted.upsert(
      parseCard(
        "reference/hinted.md",
        '---\nname: Version history\ndescription: Snapshots of every file\ntype: reference\nquestions: ["how do I back up my vault", "restore an older version of a file"]\n---\nKept for a year.',
      ),
    );
    expect([...hinted.hintEntries()].length).toBeGreaterThan(0);
    expect(sample.typos().size).toBeGreaterThan(0);
    for (const index of [sample, generated, hinted]) {
      const reader = SnapshotReader.open(written(index));
      // The snapshot numbers cards in its own order: a list is compared by the cards' paths.
      const byPath = (list: readonly number[] | undefined, source: typeof reader | typeof index): string[] => {
        const out: string[] = [];
        for (let i = 0; i < (list?.length ?? 0); i += 2) out.push(`${source.doc(list![i])?.path} ${list![i + 1]}`);
        return out.sort();
      };
      try {
        // Twice each: the second answer comes from what the first read kept.
        for (let round = 0; round < 2; round++) {
          for (const [term] of index.termEntries()) expect(byPath(reader.postings(term), reader), term).toEqual(byPath(index.postings(term), index));
          for (const [term] of index.hintEntries()) expect(byPath(reader.hintPostings(term), reader), term).toEqual(byPath(index.hintPostings(term), index));
          for (const [key, words] of index.typos()) expect(reader.nearWords(key), key).toEqual(words);
        }
        expect(reader.postings("nowhere-in-the-vault")).toBeUndefined();
      } finally {
        reader.close();
      }
    }
  });

  it("records format, tokenizer, card count and a checksum that verifies", () => {
    const path = written(sample);
    const header = verifySnapshot(path);
    expect(header).toMatchObject({ format: "vault-memory-snapshot", version: SNAPSHOT_VERSION, tokenizer: TOKENIZER_VERSION, cards: sample.docCount });
    expect(header.checksum).toMatch(/^fnv1a32:[0-9a-f]{8}$/);
  });

  it("is the same bytes for the same vault, whatever order cards were added in", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    const a = Buffer.concat(serializeSnapshot(sample, config.recall, now));
    const b = Buffer.concat(serializeSnapshot(buildIndexFromDisk(SAMPLE_VAULT, config).index, config.recall, now));
    expect(a.equals(b)).toBe(true);
  });

  it("is the same bytes when built in slices, pausing between them", async () => {
    const now = new Date("2026-01-01T00:00:00Z");
    const index = generated;
    let pauses = 0;
    const sliced = await serializeSnapshotSliced(
      index,
      config.recall,
      () =>
        new Promise<void>((r) =>
          setTimeout(() => {
            pauses++;
            r();
          }, 0),
        ),
      0,
      now,
    );
    expect(Buffer.concat(sliced).equals(Buffer.concat(serializeSnapshot(index, config.recall, now)))).toBe(true);
    // Every step is a chance to pause: one per 500 terms, per 64 shards, per chunk of cards, per MB hashed.
    expect(pauses).toBeGreaterThan(index.termCount() / 500);
    const path = join(tempDir(), "snap.jsonl");
    await writeSnapshotSliced(path, index, config.recall, () => Promise.resolve(), 5);
    expect(verifySnapshot(path).cards).toBe(index.docCount);
  });
});

describe("a broken snapshot is refused with a reason", () => {
  const mutate = (fn: (path: string, bytes: Buffer) => void): string => {
    const path = written(sample);
    fn(path, readFileSync(path));
    return path;
  };
  const headerLine = (bytes: Buffer): string => bytes.subarray(0, bytes.indexOf(0x0a)).toString();

  it.each<[string, (path: string, bytes: Buffer) => void, string]>([
    ["empty", (p) => writeFileSync(p, ""), "partial"],
    ["cut short (a writer died mid-write)", (p, b) => truncateSync(p, Math.floor(b.length / 2)), "partial"],
    ["cut inside the header", (p) => truncateSync(p, 20), "partial"],
    ["not ours", (p) => writeFileSync(p, '{"hello":"world"}\n'), "not-a-snapshot"],
    ["garbage", (p) => writeFileSync(p, "\u0000\u0001binary\n"), "corrupt"],
    [
      "an older format",
      (p, b) =>
        writeFileSync(
          p,
          Buffer.concat([
            Buffer.from(
              headerLine(b)
                .replace(`"version":${SNAPSHOT_VERSION}`, '"version":1')
                .replace(/,"headerSum":"[0-9a-f]+"/, ""),
            ),
            b.subarray(b.indexOf(0x0a)),
          ]),
        ),
      "old-version",
    ],
    [
      "another tokenizer",
      (p, b) =>
        writeFileSync(
          p,
          editHeader(b, (h) => h.replace(`"tokenizer":${TOKENIZER_VERSION}`, '"tokenizer":99')),
        ),
      "tokenizer-mismatch",
    ],
    [
      "a header whose card limit was changed",
      (p, b) => writeFileSync(p, Buffer.from(b.toString("latin1").replace('"maxCards":5', '"maxCards":3'), "latin1")),
      "corrupt",
    ],
    [
      "a header with its checksum removed",
      (p, b) => writeFileSync(p, Buffer.from(b.toString("latin1").replace(/,"headerSum":"[0-9a-f]+"/, ""), "latin1")),
      "corrupt",
    ],
    [
      "a flipped byte inside a segment",
      (p, b) => {
        const copy = Buffer.from(b);
        // Every byte after the table is segment data; damage them all so any shard read hits one.
        const tableEnd = copy.indexOf(0x0a, copy.indexOf(0x0a) + 1);
        for (let i = tableEnd + 2; i < copy.length - 2; i += 7) if (copy[i] !== 0x0a) copy[i] = copy[i] ^ 0x01;
        writeFileSync(p, copy);
      },
      "corrupt",
    ],
    // A table record no writer makes: parseInt would take a sign or a space, and a segment
    // outside the body; each damages every record, so whichever segment a lookup reads has it.
    ...(
      [
        ["a table record with a minus sign in its length", 10, "-"],
        ["a table record with a minus sign in its offset", 0, "-"],
        ["a table record with a space in front of its offset", 0, " "],
        ["a table record whose segment lies past the body", 0, "f"],
      ] as const
    ).map(([name, at, char]): [string, (path: string, bytes: Buffer) => void, string] => [
      name,
      (p, b) => {
        const copy = Buffer.from(b);
        const tableStart = copy.indexOf(0x0a) + 1;
        for (let r = tableStart; copy[r] !== 0x0a; r += RECORD_WIDTH) copy[r + at] = char.charCodeAt(0);
        writeFileSync(p, copy);
      },
      "corrupt",
    ]),
  ])("%s", (_, damage, problem) => {
    expect(problemOf(mutate(damage))).toBe(problem);
  });

  it("missing", () => {
    expect(problemOf(join(tempDir(), "snapshot.jsonl"))).toBe("missing");
  });
});

describe.skipIf(!HAS_CORPUS)(`the zh help vault round trip (${HAS_CORPUS ? "corpus present" : NO_CORPUS})`, () => {
  it("recalls the same cards from disk as from memory", () => {
    const zh = buildIndexFromDisk(join(CORPUS, "zh"), config).index;
    const reader = SnapshotReader.open(written(zh));
    try {
      for (const prompt of ["如何在笔记里嵌入 PDF", "同步 仓库 手机", "模板 插件"]) {
        expect(recall(prompt, reader, config.recall, "/v").text).toBe(recall(prompt, zh, config.recall, "/v").text);
      }
    } finally {
      reader.close();
    }
  });
});

describe("the segment hash", () => {
  it("is the same whether the bytes are aligned or not, and sees every byte", () => {
    const bytes = Buffer.from(Array.from({ length: 1001 }, (_, i) => (i * 37) % 256));
    const shifted = Buffer.alloc(1002);
    bytes.copy(shifted, 1);
    expect(fnv1aWords(shifted, 1, 1002)).toBe(fnv1aWords(bytes));
    for (const at of [0, 3, 500, 999, 1000]) {
      const copy = Buffer.from(bytes);
      copy[at] ^= 0x01;
      expect(fnv1aWords(copy), `byte ${at}`).not.toBe(fnv1aWords(bytes));
    }
  });
});
