/** Writes that never replace what someone else wrote since: exclusive creation, compare-then-replace, and the lock between processes. */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChangedSince, replaceIfUnchanged, writeFileExclusive } from "../../../src/core/io/atomic";
import { withFileLock } from "../../../src/core/io/file-lock";
import { tempDir } from "../../helpers";

const made: string[] = [];
const dir = (): string => {
  const d = tempDir("vm-guard-");
  made.push(d);
  return d;
};
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("writeFileExclusive", () => {
  it("writes where nothing is, and refuses a file, a folder or a link that leads nowhere", () => {
    const d = dir();
    expect(writeFileExclusive(join(d, "a.md"), "one")).toBe(true);
    expect(writeFileExclusive(join(d, "a.md"), "two")).toBe(false);
    expect(readFileSync(join(d, "a.md"), "utf8")).toBe("one");
    symlinkSync(join(d, "nowhere.md"), join(d, "dangling.md"));
    expect(writeFileExclusive(join(d, "dangling.md"), "three")).toBe(false);
    expect(existsSync(join(d, "nowhere.md"))).toBe(false);
    // No temporary file is left beside them.
    expect(readdirSync(d).sort()).toEqual(["a.md", "dangling.md"]);
  });
});

describe("replaceIfUnchanged", () => {
  it("replaces a file that still holds what was read", () => {
    const p = join(dir(), "c.md");
    writeFileSync(p, "before");
    replaceIfUnchanged(p, "before", "after");
    expect(readFileSync(p, "utf8")).toBe("after");
  });

  it("leaves a file someone saved since, and says so", () => {
    const d = dir();
    const p = join(d, "c.md");
    writeFileSync(p, "before");
    writeFileSync(p, "before, and the person's edit");
    expect(() => replaceIfUnchanged(p, "before", "after")).toThrow(ChangedSince);
    expect(readFileSync(p, "utf8")).toBe("before, and the person's edit");
    expect(readdirSync(d)).toEqual(["c.md"]);
  });
});

describe("withFileLock", () => {
  const opts = { staleMs: 60_000, waitMs: 0, what: "the test's cards" };

  it("runs one holder at a time and leaves nothing behind", () => {
    const d = dir();
    const lock = join(d, "x.lock");
    expect(withFileLock(lock, () => existsSync(lock), opts)).toBe(true);
    expect(readdirSync(d)).toEqual([]);
  });

  it("says who waits when a live process holds it", () => {
    const lock = join(dir(), "x.lock");
    writeFileSync(lock, `${process.pid + 0} elsewhere ${Date.now()} abc`);
    expect(() => withFileLock(lock, () => 1, opts)).toThrow(/the test's cards is locked by another process/);
  });

  it("waits for, then refuses, a path that holds something no lock is, and never takes it over", () => {
    const d = dir();
    const folder = join(d, "x.lock");
    mkdirSync(folder);
    let ran = false;
    expect(() => withFileLock(folder, () => (ran = true), { ...opts, waitMs: 20 })).toThrow(/the test's cards is locked by another process/);
    const large = join(d, "y.lock");
    writeFileSync(large, "x".repeat(4096));
    expect(() => withFileLock(large, () => (ran = true), opts)).toThrow(/locked by another process/);
    expect(ran).toBe(false);
    expect(readFileSync(large, "utf8")).toHaveLength(4096);
    expect(statSync(folder).isDirectory()).toBe(true);
  });

  it("takes over at once a lock an earlier release left empty, or held by a process that ended, and waits for one being made", () => {
    const d = dir();
    const lock = join(d, "x.lock");
    // Left empty by an earlier release, a while ago; one just made may be having its token written.
    writeFileSync(lock, "");
    utimesSync(lock, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
    expect(withFileLock(lock, () => "ran", opts)).toBe("ran");
    writeFileSync(lock, "");
    expect(() => withFileLock(lock, () => "ran", opts)).toThrow(/locked by another process/);
    rmSync(lock);
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    const host = spawnSync(process.execPath, ["-e", "process.stdout.write(require('node:os').hostname())"], { encoding: "utf8" }).stdout;
    writeFileSync(lock, `${gone} ${host} ${Date.now()} abc`);
    expect(withFileLock(lock, () => "ran again", opts)).toBe("ran again");
    // Nothing deleted: what was taken over is kept beside it.
    expect(readdirSync(d).filter((f) => f.startsWith("x.lock.stale-")).length).toBe(2);
  });
});

describe("sweepTemps", () => {
  it("removes the temporary files a killed writer left, and no one else's", async () => {
    const { sweepTemps, tempPathFor } = await import("../../../src/core/io/atomic");
    const d = dir();
    const file = join(d, "snapshot.jsonl");
    writeFileSync(file, "whole");
    const gone = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    const left = `snapshot.jsonl.${gone}.3.m2abc.tmp`;
    writeFileSync(join(d, left), "half a snapshot");
    // Another writer's, still at work (this process), another file's, and a person's file named alike.
    const mine = tempPathFor(file);
    writeFileSync(mine, "being written");
    writeFileSync(join(d, `other.jsonl.${gone}.3.m2abc.tmp`), "x");
    writeFileSync(join(d, "snapshot.jsonl.notes.tmp"), "x");
    sweepTemps(file);
    expect(readdirSync(d).sort()).toEqual([mine.slice(d.length + 1), `other.jsonl.${gone}.3.m2abc.tmp`, "snapshot.jsonl", "snapshot.jsonl.notes.tmp"].sort());
  });
});
