/**
 * A vault on a file system without hard links (a FAT or exFAT drive, some network and cloud-drive
 * mounts): cards are still created only where nothing is, locks still taken, cards still replaced
 * only while they hold what was read. Here every hard link fails as such a file system fails it.
 */

import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  const linkSync = (): never => {
    throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
  };
  return { ...fs, linkSync, default: { ...fs, linkSync } };
});

const { ChangedSince, replaceIfUnchanged, writeFileExclusive } = await import("../../../src/core/io/atomic");
const { withFileLock } = await import("../../../src/core/io/file-lock");
const { tempDir } = await import("../../helpers");

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});
const dir = (): string => {
  const d = tempDir("vm-nolinks-");
  made.push(d);
  return d;
};

describe("on a file system without hard links", () => {
  it("creates a card only where nothing is, and leaves nothing beside it", () => {
    const d = dir();
    expect(writeFileExclusive(join(d, "a.md"), "one")).toBe(true);
    expect(writeFileExclusive(join(d, "a.md"), "two")).toBe(false);
    expect(readFileSync(join(d, "a.md"), "utf8")).toBe("one");
    expect(readdirSync(d)).toEqual(["a.md"]);
  });

  it("takes and gives back a lock, one holder at a time", () => {
    const d = dir();
    const lock = join(d, "x.lock");
    expect(withFileLock(lock, () => readFileSync(lock, "utf8").split(" ")[0], { staleMs: 60_000, waitMs: 0, what: "the cards" })).toBe(String(process.pid));
    writeFileSync(lock, `${process.pid} elsewhere ${Date.now()} t`);
    expect(() => withFileLock(lock, () => 1, { staleMs: 60_000, waitMs: 0, what: "the cards" })).toThrow(/locked by another process/);
  });

  it("replaces a card only while it holds what was read, and hands back a save in place", () => {
    const d = dir();
    const p = join(d, "c.md");
    writeFileSync(p, "before");
    expect(replaceIfUnchanged(p, "before", "after")).toBeUndefined();
    expect(readFileSync(p, "utf8")).toBe("after");
    expect(() => replaceIfUnchanged(p, "before", "again")).toThrow(ChangedSince);
    expect(replaceIfUnchanged(p, "after", "ours", { afterCompare: () => writeFileSync(p, "theirs") })).toBe("theirs");
    expect(readdirSync(d)).toEqual(["c.md"]);
  });
});
