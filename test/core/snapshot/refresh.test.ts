/**
 * Bringing the snapshot up to date with the card files, without the vault's index: what a recall
 * then answers is what it answers after a whole `index` of the same files.
 */

import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { recall } from "../../../src/core/recall/recall";
import { overlayPathOf } from "../../../src/core/snapshot/format";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { refreshSnapshot } from "../../../src/core/snapshot/refresh";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { tempDir } from "../../helpers";
import { generateVault } from "../../fixtures/generated-vault";

const config = defaultConfig();
const NOW = Date.UTC(2026, 11, 1);

let vault: string;
let path: string;
// Time is the files' own: the snapshot's scan is said to come a little after the files were
// generated, and a change in a test moves the file's modification time well past it, so no test
// waits for a clock to tick. The refresh itself runs "later" still.
const AHEAD_MS = 3000;
const CHANGED_AT = () => new Date(Date.now() + 3_600_000);
const later = (): number => Date.now() + 7_200_000;

beforeEach(() => {
  vault = join(tempDir(), "vault");
  generateVault(vault, 200);
  path = join(vault, ".vault-memory", "snapshot.jsonl");
  const built = buildIndexFromDisk(vault, config);
  writeSnapshot(path, built.index, config.recall, new Date(), { ...built.scan, at: Date.now() + AHEAD_MS });
});

function refresh(maxChanged = 20) {
  return refreshSnapshot(vault, config, { maxChanged, now: later });
}

function write(rel: string, text: string): void {
  mkdirSync(join(vault, rel, ".."), { recursive: true });
  writeFileSync(join(vault, rel), text);
  utimesSync(join(vault, rel), CHANGED_AT(), CHANGED_AT());
}

/** What recall prints for `prompt` from the snapshot on disk, and from a whole index of the files. */
function both(prompt: string): { refreshed: string[]; whole: string[] } {
  const full = join(tempDir(), "full.jsonl");
  writeSnapshot(full, buildIndexFromDisk(vault, config).index, config.recall);
  const paths = (p: string): string[] => {
    const r = SnapshotReader.open(p);
    try {
      return recall(prompt, r, config.recall, vault, { now: NOW }).cards.map((c) => c.path);
    } finally {
      r.close();
    }
  };
  return { refreshed: paths(path), whole: paths(full) };
}

describe("refreshSnapshot", () => {
  it("does nothing when no card file changed", () => {
    expect(refresh()).toMatchObject({ kind: "current", changed: 0 });
    expect(existsSync(overlayPathOf(path))).toBe(false);
  });

  it("finds a card written since, by plain file I/O, as a whole index would", () => {
    write(
      "Zeppelins/Docking.md",
      "---\nname: Zeppelin docking\ndescription: how the zeppelin docks at the mast\nquestions:\n  - where does the airship tie up?\n---\nThe zeppelin docks at the mooring mast; the hangar doors stay shut.\n",
    );
    const r = refresh();
    expect(r).toMatchObject({ kind: "overlay", changed: 1 });
    expect(existsSync(overlayPathOf(path))).toBe(true);
    for (const prompt of ["zeppelin docking at the mast", "where does the airship tie up?"]) {
      const { refreshed, whole } = both(prompt);
      expect(refreshed[0]).toBe("Zeppelins/Docking.md");
      expect(refreshed).toEqual(whole);
    }
  });

  it("follows an edit, a deletion and a rename, and keeps the earlier changes in the next overlay", () => {
    const r0 = SnapshotReader.open(path);
    const [a, b, c] = [r0.doc(3)!.path, r0.doc(7)!.path, r0.doc(11)!.path];
    r0.close();
    write(a, "---\ndescription: the quartz oscillator drifts\n---\nquartz oscillator drift in the clock\n");
    rmSync(join(vault, b));
    expect(refresh()).toMatchObject({ kind: "overlay", changed: 2 });
    const renamed = c.replace(/\.md$/, " renamed.md");
    mkdirSync(join(vault, "Synced"), { recursive: true });
    renameSync(join(vault, c), join(vault, renamed));
    // A rename moves the file's status time; here, past the first refresh's scan.
    const afterFirst = new Date(later() + 3_600_000);
    utimesSync(join(vault, renamed), afterFirst, afterFirst);
    // A card a sync brought in keeping its old times: the new name alone says it is new.
    writeFileSync(join(vault, "Synced/old-times.md"), "---\ndescription: the barometer reads low\n---\nbarometer reads low before the storm\n", { flag: "w" });
    utimesSync(join(vault, "Synced/old-times.md"), new Date(0), new Date(0));
    expect(refreshSnapshot(vault, config, { maxChanged: 20, now: () => afterFirst.getTime() + 10_000 })).toMatchObject({ kind: "overlay", changed: 3 });
    expect(both("barometer reads low").refreshed[0]).toBe("Synced/old-times.md");
    const live = (() => {
      const r = SnapshotReader.open(path);
      try {
        return new Set(r.layout().live.keys());
      } finally {
        r.close();
      }
    })();
    expect(live.has(a) && live.has(renamed)).toBe(true);
    expect(live.has(b) || live.has(c)).toBe(false);
    const { refreshed, whole } = both("quartz oscillator drift");
    expect(refreshed[0]).toBe(a);
    expect(refreshed).toEqual(whole);
    // Nothing changed since: nothing to do, nothing written.
    const before = readFileSync(overlayPathOf(path));
    expect(refreshSnapshot(vault, config, { maxChanged: 20, now: () => afterFirst.getTime() + 20_000 })).toMatchObject({ kind: "current" });
    expect(readFileSync(overlayPathOf(path)).equals(before)).toBe(true);
  });

  it("links a new card to the cards it names", () => {
    const r0 = SnapshotReader.open(path);
    const target = r0.doc(5)!.path;
    r0.close();
    const name = target.slice(target.lastIndexOf("/") + 1, -3);
    write("Zeppelins/Linked.md", `---\ndescription: zeppelin mooring notes\n---\nzeppelin mooring, see [[${name}]]\n`);
    refresh();
    const r = SnapshotReader.open(path);
    try {
      const id = [...r.layout().live].find(([p]) => p === "Zeppelins/Linked.md")![1];
      expect(r.doc(id)!.links.map((l) => r.doc(l)?.path)).toEqual([target]);
    } finally {
      r.close();
    }
  });

  it("leaves more changes than it may take, or a sync conflict copy, to a whole index, writing nothing", () => {
    for (let i = 0; i < 5; i++) write(`Bulk/card-${i}.md`, `bulk card ${i}`);
    expect(refresh(4)).toMatchObject({ kind: "too-many", changed: 5 });
    expect(existsSync(overlayPathOf(path))).toBe(false);
    const r0 = SnapshotReader.open(path);
    const original = r0.doc(2)!.path;
    r0.close();
    write(original.replace(/\.md$/, ".sync-conflict-20261201-101010-ABCDEFG.md"), readFileSync(join(vault, original), "utf8"));
    const r = refresh(100);
    expect(r.kind).toBe("too-many");
    expect(r.reason).toMatch(/sync conflict/);
  });

  it("says when there is no snapshot to continue", () => {
    rmSync(path);
    expect(refresh().kind).toBe("unusable");
  });
});

describe("the snapshot's catalog", () => {
  it("says of every live card what its row says, base and overlay alike", () => {
    write("Zeppelins/Docking.md", "---\ndescription: zeppelin docking\nproject: airships\ntype: reference\n---\nzeppelin docking\n");
    expect(refresh().kind).toBe("overlay");
    const r = SnapshotReader.open(path);
    try {
      const catalog = r.catalog()!;
      expect(catalog.length).toBe(r.docCount);
      for (const c of catalog) {
        const row = r.doc(c.id)!;
        expect([c.path, c.project, c.type, c.updated]).toEqual([row.path, row.project, row.type, row.updated]);
      }
      expect(catalog.some((c) => c.project === "airships")).toBe(true);
    } finally {
      r.close();
    }
  });
});

describe("an edit outside Obsidian in a large vault", () => {
  // Large enough that the commonest words are held by more cards than a quick count reads.
  const CARDS = 3000;
  let big: string;
  let bigPath: string;
  let edited: string;

  beforeEach(() => {
    big = join(tempDir(), "big");
    const paths = generateVault(big, CARDS);
    // Words nearly every card holds, as a team's vault names its stack in every note.
    paths.forEach((p, i) => {
      if (i % 50 !== 7) appendFileSync(join(big, p), "\n\nRuns on kubernetes with redis.\n");
    });
    edited = paths[40];
    bigPath = join(big, ".vault-memory", "snapshot.jsonl");
    const built = buildIndexFromDisk(big, config);
    writeSnapshot(bigPath, built.index, config.recall, new Date(), { ...built.scan, at: Date.now() + AHEAD_MS });
  });

  function scored(prompt: string): { path: string; score: number }[] {
    const r = SnapshotReader.open(bigPath);
    try {
      return recall(prompt, r, config.recall, big, { now: NOW }).cards.map((c) => ({ path: c.path, score: c.score }));
    } finally {
      r.close();
    }
  }

  let edits = 0;
  function touch(text: string): void {
    // Each edit after the last refresh, each refresh after its edit.
    edits++;
    const at = new Date(Date.now() + edits * 2 * 3_600_000);
    writeFileSync(join(big, edited), text);
    utimesSync(join(big, edited), at, at);
    expect(refreshSnapshot(big, config, { maxChanged: 20, now: () => at.getTime() + 3_600_000 }).kind).toBe("overlay");
  }

  it("changes no recall result when the edit changed nothing", () => {
    const prompts = ["kubernetes redis", "backup sync", "plugin vault canvas", "kubernetes redis backup", "备份 同步"];
    const before = prompts.map(scored);
    touch(readFileSync(join(big, edited), "utf8"));
    expect(prompts.map(scored)).toEqual(before);
    // And again over the overlay that is there now.
    touch(readFileSync(join(big, edited), "utf8"));
    expect(prompts.map(scored)).toEqual(before);
  });

  it("never lets one edited card take over a common word", () => {
    const before = scored("kubernetes redis");
    touch(readFileSync(join(big, edited), "utf8") + "x");
    const after = scored("kubernetes redis");
    if (before.length === 0) expect(after).toEqual([]);
    const top = Math.max(0, ...before.map((c) => c.score));
    for (const c of after) expect(c.score).toBeLessThanOrEqual(top * 1.01);
    expect(after.map((c) => c.path).filter((p) => p !== edited)).toEqual(
      before
        .map((c) => c.path)
        .filter((p) => p !== edited)
        .slice(0, after.filter((c) => c.path !== edited).length),
    );
  });
});
