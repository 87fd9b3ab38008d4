/** Overlays: an edit writes only the cards it changed, and a recall answers as from a full rewrite. */
// As from a full rewrite: the same cards in the same order. Scores may differ by the little that
// IDF moved since the base (the base's cards keep the counts of when it was written).

import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { defaultConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import type { MemoryIndex } from "../../../src/core/index/memory-index";
import { snapshotTime } from "../../../src/core/lint/lint";
import { recall } from "../../../src/core/recall/recall";
import { overlayPathOf } from "../../../src/core/snapshot/format";
import { SnapshotError, SnapshotReader } from "../../../src/core/snapshot/read";
import { SnapshotWriter, writeSnapshot } from "../../../src/core/snapshot/write";
import { editHeader, tempDir } from "../../helpers";
import { generateVault } from "../../fixtures/generated-vault";

const config = defaultConfig();
const NOW = Date.UTC(2026, 11, 1);
const pause = (): Promise<void> => Promise.resolve();
const PROMPTS = ["zeppelin docking bay schedule", "hangar doors open slowly", "how do I rotate the api keys", "ok continue", "deploy pipeline staging"];

let dir: string;
let index: MemoryIndex;
let path: string;

beforeEach(() => {
  dir = join(tempDir(), "vault");
  generateVault(dir, 300);
  index = buildIndexFromDisk(dir, config).index;
  path = join(dir, ".vault-memory", "snapshot.jsonl");
});

function card(rel: string, body: string, extra = ""): void {
  index.upsert(parseCard(rel, `---\ndescription: ${body.slice(0, 40)}\n${extra}---\n${body}\n`, NOW));
}

/** What a recall prints from the files on disk, and what it prints from a full rewrite of the same index. */
function answers(): { fromOverlay: string[]; fromFull: string[]; overlay: boolean; drift: number } {
  const full = join(tempDir(), "full.jsonl");
  writeSnapshot(full, index, config.recall);
  const a = SnapshotReader.open(path);
  const b = SnapshotReader.open(full);
  try {
    const scored = (r: SnapshotReader) => PROMPTS.map((p) => recall(p, r, config.recall, dir, { now: NOW }).cards);
    expect(a.docCount).toBe(b.docCount);
    const [x, y] = [scored(a), scored(b)];
    const drift = Math.max(0, ...x.flatMap((cards, i) => cards.map((c, j) => Math.abs(c.score - (y[i][j]?.score ?? 0)) / c.score)));
    const paths = (all: typeof x): string[] => all.map((cards) => cards.map((c) => c.path).join("\n"));
    return { fromOverlay: paths(x), fromFull: paths(y), overlay: a.hasOverlay, drift };
  } finally {
    a.close();
    b.close();
  }
}

/** A full write, then an overlay holding one new card, "new/a.md". */
async function withOverlayOfOneCard(): Promise<SnapshotWriter> {
  const writer = new SnapshotWriter(path);
  await writer.writeFull(index, config.recall, pause, 12);
  card("new/a.md", "zeppelin docking bay schedule");
  writer.changed("new/a.md");
  expect((await writer.write(index, config.recall, pause, 12)).kind).toBe("overlay");
  return writer;
}

describe("snapshot overlays", () => {
  it("write only the cards an edit changed, and rank as a full rewrite", async () => {
    const writer = new SnapshotWriter(path);
    const first = await writer.writeFull(index, config.recall, pause, 12);
    const some = [...index.docs()][150].path;
    card(some, "zeppelin docking bay schedule for the hangar crew");
    writer.changed(some);
    card("new/hangar.md", "hangar doors open slowly when the zeppelin docks", "type: gotcha\n");
    writer.changed("new/hangar.md");
    const gone = [...index.docs()][10].path;
    index.remove(gone);
    writer.changed(gone);
    const w = await writer.write(index, config.recall, pause, 12);
    expect(w.kind).toBe("overlay");
    // A few KB for three cards, where the full file is hundreds.
    expect(w.bytes).toBeLessThan(first.bytes / 20);
    expect(statSync(path).size).toBe(first.bytes);
    const { fromOverlay, fromFull, overlay, drift } = answers();
    expect(overlay).toBe(true);
    expect(fromOverlay).toEqual(fromFull);
    expect(drift).toBeLessThan(0.02);
    expect(fromOverlay[0]).toContain(some);
    expect(fromOverlay[1]).toContain("new/hangar.md");
    const r = SnapshotReader.open(path);
    try {
      const paths = Array.from({ length: r.idLimit }, (_, i) => r.doc(i)?.path).filter(Boolean);
      expect(paths).not.toContain(gone);
      expect(paths.filter((p) => p === some)).toHaveLength(1);
    } finally {
      r.close();
    }
  });

  it("keep links to an edited card pointing at its new version", async () => {
    card("links/target.md", "eviction policy for the redis cache maxmemory");
    card("links/source.md", "redis eviction policy notes, see [[target]] for maxmemory");
    const writer = new SnapshotWriter(path);
    await writer.writeFull(index, config.recall, pause, 12);
    card("links/target.md", "eviction policy for the redis cache maxmemory allkeys lru");
    writer.changed("links/target.md");
    await writer.write(index, config.recall, pause, 12);
    const r = SnapshotReader.open(path);
    try {
      const ids = Array.from({ length: r.idLimit }, (_, i) => i);
      const source = ids.find((i) => r.doc(i)?.path === "links/source.md")!;
      const target = ids.find((i) => r.doc(i)?.path === "links/target.md")!;
      expect(r.doc(source)!.links).toEqual([target]);
    } finally {
      r.close();
    }
  });

  it("mark a sync conflict copy with the card it belongs with, as that card comes, moves and goes", async () => {
    const copy = "pumps/pump seals.sync-conflict-20240101-123456-ABCDEFG.md";
    const original = "pumps/pump seals.md";
    card(copy, "replace the pump seals every spring before the hangar floods");
    const writer = new SnapshotWriter(path);
    await writer.writeFull(index, config.recall, pause, 12);
    /** The path of the card each copy on disk belongs with. */
    const marks = (): Record<string, string | undefined> => {
      const r = SnapshotReader.open(path);
      try {
        const ids = Array.from({ length: r.idLimit }, (_, i) => i).filter((i) => r.doc(i));
        const at = (p: string) => r.doc(ids.find((i) => r.doc(i)!.path === p)!)!;
        const keep = at(copy).copyOf;
        return { [copy]: keep === undefined ? undefined : r.doc(keep)?.path };
      } finally {
        r.close();
      }
    };
    expect(marks()).toEqual({ [copy]: undefined });
    // The original arrives: the copy, not edited, is marked in the overlay.
    card(original, "replace the pump seals every spring before the hangar floods");
    writer.changed(original);
    expect((await writer.write(index, config.recall, pause, 12)).kind).toBe("overlay");
    expect(marks()).toEqual({ [copy]: original });
    // Edited, the original moves into the overlay; the mark follows it.
    card(original, "replace the pump seals every spring before the hangar floods, and the gaskets");
    writer.changed(original);
    await writer.write(index, config.recall, pause, 12);
    expect(marks()).toEqual({ [copy]: original });
    const { fromOverlay, fromFull } = answers();
    expect(fromOverlay).toEqual(fromFull);
    index.remove(original);
    writer.changed(original);
    await writer.write(index, config.recall, pause, 12);
    expect(marks()).toEqual({ [copy]: undefined });
  });

  it("grow with every edit since the base, and a full write starts afresh past their bound", async () => {
    const writer = new SnapshotWriter(path, { maxOverlayBytes: 64 << 10, maxOverlayShare: 0.05 });
    await writer.writeFull(index, config.recall, pause, 12);
    const docs = [...index.docs()].map((d) => d.path);
    let kinds: string[] = [];
    for (let i = 0; i < 40; i++) {
      card(docs[i], `edited card number ${i} about zeppelin docking`);
      writer.changed(docs[i]);
      kinds.push((await writer.write(index, config.recall, pause, 12)).kind);
    }
    // 5% of 300 cards: the 16th changed card sends the next write back to a full one.
    expect(kinds.slice(0, 15).every((k) => k === "overlay")).toBe(true);
    expect(kinds).toContain("full");
    expect(answers().fromOverlay).toEqual(answers().fromFull);
    kinds = [];
    const last = await writer.writeFull(index, config.recall, pause, 12);
    expect(last.kind).toBe("full");
    expect(existsSync(overlayPathOf(path))).toBe(false);
  });

  it("are ignored when the base was replaced by another writer, and the next write is a full one", async () => {
    const writer = await withOverlayOfOneCard();
    const overlay = readFileSync(overlayPathOf(path));
    // `index` from the bridge, say: a new base, and the overlay of the old one dropped.
    writeSnapshot(path, index, config.recall);
    expect(existsSync(overlayPathOf(path))).toBe(false);
    // An overlay of another base that comes back (a sync tool, a backup) is left unread.
    writeFileSync(overlayPathOf(path), overlay);
    const r = SnapshotReader.open(path);
    expect(r.hasOverlay).toBe(false);
    expect(Array.from({ length: r.idLimit }, (_, i) => r.doc(i)?.path)).toContain("new/a.md");
    r.close();
    card("new/b.md", "hangar doors open slowly");
    writer.changed("new/b.md");
    expect((await writer.write(index, config.recall, pause, 12)).kind).toBe("full");
  });

  it("that are damaged make recall fail as a damaged snapshot does", async () => {
    await withOverlayOfOneCard();
    const good = readFileSync(overlayPathOf(path));
    const problem = (bytes: Buffer): string => {
      writeFileSync(overlayPathOf(path), bytes);
      try {
        const r = SnapshotReader.open(path);
        try {
          recall(PROMPTS[0], r, config.recall, dir, { now: NOW });
        } finally {
          r.close();
        }
        return "none";
      } catch (err) {
        return err instanceof SnapshotError ? err.problem : `unexpected ${String(err)}`;
      }
    };
    const flipped = Buffer.from(good);
    const at = flipped.lastIndexOf("zeppelin");
    flipped[at] ^= 0x20;
    expect(problem(flipped)).toBe("corrupt");
    expect(problem(good.subarray(0, good.length - 10))).toBe("partial");
    expect(problem(good)).toBe("none");
    // A header whose overlay fields make no sense (sealed again, so only the fields are wrong) is not an overlay.
    writeFileSync(
      overlayPathOf(path),
      editHeader(good, (h) => h.replace('"removed":[', '"removed":{"x":[').replace('],"moved"', ']},"moved"')),
    );
    const r = SnapshotReader.open(path);
    expect(r.hasOverlay).toBe(false);
    r.close();
  });

  it("leave the base byte for byte as a full write of the same index would make it", async () => {
    const writer = new SnapshotWriter(path);
    await writer.writeFull(index, config.recall, pause, 12, new Date(NOW));
    const copy = join(tempDir(), "copy.jsonl");
    copyFileSync(path, copy);
    writeSnapshot(path, index, config.recall, new Date(NOW));
    expect(readFileSync(path).equals(readFileSync(copy))).toBe(true);
  });
});

describe("lint's snapshot time", () => {
  it("is the overlay's when there is one, so a snapshot brought up to an edit is not called stale", async () => {
    const writer = new SnapshotWriter(path);
    await writer.writeFull(index, config.recall, pause, 12, new Date(NOW - 86_400_000));
    expect(snapshotTime(dir)).toBe(NOW - 86_400_000);
    card("new/a.md", "zeppelin docking bay schedule");
    writer.changed("new/a.md");
    expect((await writer.write(index, config.recall, pause, 12, new Date(NOW))).kind).toBe("overlay");
    expect(snapshotTime(dir)).toBe(NOW);
  });
});
