/** Recall and lint through the built bridge in a vault where sync tools left copies of a card beside it. */

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
    .map((l) =>
      l
        .slice(2)
        .split(" — ")[0]
        .slice(vault.length + 1),
    );
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

describe("lint beside sync conflict copies", () => {
  it("reports the family once, on the original, with a fix that moves every copy aside", () => {
    const vault = conflictVault();
    const r = runBridge(["lint", "--vault", vault, "--json"]);
    // A warning: the copies break nothing, recall already shows the family once.
    expect(r.status).toBe(0);
    const found = JSON.parse(r.stdout) as {
      rule: string;
      severity: string;
      file: string;
      message: string;
      fix?: { kind: string; moves: { from: string; to: string }[] };
    }[];
    const conflicts = found.filter((f) => f.rule === "sync-conflict");
    expect(conflicts.map((f) => [f.file, f.severity])).toEqual([[ORIGINAL, "warning"]]);
    const moves = conflicts[0].fix!.moves;
    expect(moves.map((m) => m.from).sort()).toEqual(Object.values(COPIES).sort());
    for (const m of moves) expect(m.to.startsWith(".vault-memory/conflicts/reference/")).toBe(true);
    expect(conflicts[0].message).toContain(".vault-memory/conflicts/");
    // The copies draw no finding of their own: not the case twin as a second note of the name.
    expect(found.filter((f) => f.file !== ORIGINAL && FAMILY.includes(f.file))).toEqual([]);
    // Chapter 2 is a chapter, and Chapter 3 has no Chapter beside it.
    expect(found.filter((f) => f.file.startsWith("teaching/Chapter") && f.rule === "sync-conflict")).toEqual([]);
    const text = runBridge(["lint", "--vault", vault]).stdout;
    expect(text).toMatch(/^WARNING sync-conflict \(1\)$/m);
  });
});
