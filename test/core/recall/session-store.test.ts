import { utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSeen, rememberSeen } from "../../../src/core/recall/session-store";
import { tempDir } from "../../helpers";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 30);

describe("the session store", () => {
  it("keeps a record per session, and expires old records", () => {
    const dir = join(tempDir(), "sessions");
    rememberSeen(dir, "s-1", new Set(), ["a.md", "b.md"], NOW);
    rememberSeen(dir, "s-1", loadSeen(dir, "s-1"), ["c.md"], NOW);
    expect([...loadSeen(dir, "s-1")].sort()).toEqual(["a.md", "b.md", "c.md"]);
    expect(loadSeen(dir, "s-2").size).toBe(0);
    expect(loadSeen(dir, "../escape").size).toBe(0);
    rememberSeen(dir, "../escape", new Set(), ["x.md"], NOW);
    const old = join(dir, "s-1.json");
    utimesSync(old, new Date(NOW - 8 * DAY), new Date(NOW - 8 * DAY));
    utimesSync(join(dir, ".swept"), new Date(NOW - 2 * DAY), new Date(NOW - 2 * DAY));
    rememberSeen(dir, "s-3", new Set(), ["z.md"], NOW);
    expect(loadSeen(dir, "s-1").size).toBe(0);
    expect(loadSeen(dir, "s-3").size).toBe(1);
  });
});
