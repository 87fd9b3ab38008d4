/** Recall through the built bridge in a vault where sync tools left copies of a card beside it. */

import { renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COPIES, conflictVault, ORIGINAL } from "../fixtures/conflicts";
import { hookJson, runBridge, tempDir } from "../helpers";

const FAMILY = [ORIGINAL, ...Object.values(COPIES)];

/** The vault paths of the cards a recall printed, in order. */
function printed(vault: string, prompt: string): string[] {
  const r = runBridge(["recall", "--vault", vault], hookJson(prompt));
  expect(r.status).toBe(0);
  return r.stdout
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .map((l) => l.slice(2).split(" — ")[0].slice(vault.length + 1));
}

describe("recall beside sync conflict copies", () => {
  const vault = conflictVault();
  expect(runBridge(["index", "--vault", vault]).status).toBe(0);

  it("prints the original once and none of its copies", () => {
    const cards = printed(vault, "how is the café server backed up with restic?");
    expect(cards.filter((p) => FAMILY.includes(p))).toEqual([ORIGINAL]);
  });

  it("prints the original in the place of a copy that matched better", () => {
    // Only the Syncthing copy says "till".
    const cards = printed(vault, "restic prune old snapshots of the café till");
    expect(cards.filter((p) => FAMILY.includes(p))).toEqual([ORIGINAL]);
  });

  it("prints one copy when the original is gone", () => {
    const moved = conflictVault();
    expect(runBridge(["index", "--vault", moved]).status).toBe(0);
    renameSync(join(moved, ORIGINAL), join(tempDir(), "elsewhere.md"));
    const cards = printed(moved, "how is the café server backed up with restic?");
    expect(cards.filter((p) => FAMILY.includes(p))).toHaveLength(1);
  });

  it("keeps a note named with a number that is no copy: Chapter 2 beside a different Chapter", () => {
    expect(printed(vault, "incremental backups with rsync and link-dest")).toContain("teaching/Chapter 2.md");
  });
});
