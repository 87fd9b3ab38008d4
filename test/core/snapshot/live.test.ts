/** A long-lived reader follows the files on disk: a new base, and a new overlay over the same base. */

import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { defaultConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import type { MemoryIndex } from "../../../src/core/index/memory-index";
import { LiveSnapshot } from "../../../src/core/snapshot/live";
import { SnapshotWriter } from "../../../src/core/snapshot/write";
import { tempDir } from "../../helpers";
import { generateVault } from "../../fixtures/generated-vault";

const config = defaultConfig();
const pause = (): Promise<void> => Promise.resolve();

let index: MemoryIndex;
let path: string;

beforeEach(() => {
  const dir = join(tempDir(), "vault");
  generateVault(dir, 120);
  index = buildIndexFromDisk(dir, config).index;
  path = join(dir, ".vault-memory", "snapshot.jsonl");
});

const paths = (live: LiveSnapshot): string[] => {
  const r = live.current();
  return Array.from({ length: r.idLimit }, (_, i) => r.doc(i)?.path ?? "").filter(Boolean);
};

describe("a live snapshot", () => {
  it("sees a card that only an overlay written after it opened holds", async () => {
    const writer = new SnapshotWriter(path);
    await writer.writeFull(index, config.recall, pause, 12);
    const live = new LiveSnapshot(path);
    try {
      expect(paths(live)).not.toContain("new/zeppelin.md");
      index.upsert(parseCard("new/zeppelin.md", "---\ndescription: zeppelin hangar\n---\nzeppelin hangar doors\n"));
      writer.changed("new/zeppelin.md");
      expect((await writer.write(index, config.recall, pause, 12)).kind).toBe("overlay");
      expect(paths(live)).toContain("new/zeppelin.md");
      // And a second overlay over the same base, replacing the first.
      index.upsert(parseCard("new/airship.md", "---\ndescription: airship mooring\n---\nairship mooring mast\n"));
      writer.changed("new/airship.md");
      expect((await writer.write(index, config.recall, pause, 12)).kind).toBe("overlay");
      expect(paths(live)).toEqual(expect.arrayContaining(["new/zeppelin.md", "new/airship.md"]));
    } finally {
      live.close();
    }
  });
});
