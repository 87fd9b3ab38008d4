import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recallHistory, recallHistoryInSlices } from "../../../src/core/lint/lint";
import { vaultFiles } from "../../../src/core/paths";
import { appendUsage, olderUsageLog, USAGE_LOG_ROTATE_BYTES } from "../../../src/core/recall/usage-log";
import { tempDir } from "../../helpers";

const line = (t: string, ...paths: string[]): string =>
  JSON.stringify({ t, session: "s", prompt: "0", cards: paths.map((path) => ({ path, score: 20 })), ms: 1 }) + "\n";

function vaultWithLog(text: string): { vault: string; log: string } {
  const vault = tempDir();
  mkdirSync(vaultFiles.dir(vault), { recursive: true });
  const log = vaultFiles.usageLog(vault);
  writeFileSync(log, text);
  return { vault, log };
}

describe("the recall log, read once a process and carried on as it grows", () => {
  it("counts what is appended after a reading, and the line that was half written when read", () => {
    const { vault, log } = vaultWithLog(line("2026-11-01T00:00:00Z", "a.md"));
    expect(recallHistory(vault)?.count.get("a.md")).toBe(1);
    // A hook's append caught half way: not counted until it is whole, and then once.
    const next = line("2026-11-02T00:00:00Z", "a.md", "b.md");
    appendFileSync(log, next.slice(0, 20));
    expect(recallHistory(vault)?.count.get("b.md")).toBeUndefined();
    const before = recallHistory(vault)!;
    appendFileSync(log, next.slice(20) + line("2026-11-03T00:00:00Z", "b.md"));
    const h = recallHistory(vault)!;
    expect([h.count.get("a.md"), h.count.get("b.md")]).toEqual([2, 2]);
    // What an earlier call handed out stays as it was.
    expect([before.count.get("a.md"), before.count.get("b.md")]).toEqual([1, undefined]);
    expect(h.first).toBe(Date.parse("2026-11-01T00:00:00Z"));
    expect(h.last.get("b.md")).toBe(Date.parse("2026-11-03T00:00:00Z"));
  });

  it("reads a log replaced by another file, or cut short, afresh", () => {
    const { vault, log } = vaultWithLog(line("2026-11-01T00:00:00Z", "a.md") + line("2026-11-02T00:00:00Z", "a.md"));
    expect(recallHistory(vault)?.count.get("a.md")).toBe(2);
    // Another computer's log, put in its place by a sync.
    writeFileSync(log + ".new", line("2026-10-01T00:00:00Z", "c.md"));
    renameSync(log + ".new", log);
    const replaced = recallHistory(vault)!;
    expect([replaced.count.get("a.md"), replaced.count.get("c.md"), replaced.first]).toEqual([undefined, 1, Date.parse("2026-10-01T00:00:00Z")]);
    // The same file written again in place, as long as before and perhaps within the same tick.
    writeFileSync(log, line("2026-12-01T00:00:00Z", "d.md"));
    expect([...recallHistory(vault)!.count.keys()]).toEqual(["d.md"]);
  });

  it("joins the log moved aside to the one after it, carried on as each grows", () => {
    const { vault, log } = vaultWithLog(line("2026-10-01T00:00:00Z", "a.md") + line("2026-10-02T00:00:00Z", "b.md"));
    expect(recallHistory(vault)?.count.get("a.md")).toBe(1);
    // The next prompt finds the log past its size: it is moved aside, and a new one begins.
    const entry = { t: "2026-11-01T00:00:00.000Z", session: "s", prompt: "0", cards: [{ path: "a.md", score: 20 }], ms: 1 };
    appendUsage(log, entry, 10);
    let h = recallHistory(vault)!;
    expect([h.count.get("a.md"), h.count.get("b.md"), h.first, h.last.get("a.md")]).toEqual([
      2,
      1,
      Date.parse("2026-10-01T00:00:00Z"),
      Date.parse("2026-11-01T00:00:00Z"),
    ]);
    // Asked again with nothing changed: the same history, not joined anew.
    expect(recallHistory(vault)).toBe(h);
    appendFileSync(log, line("2026-11-02T00:00:00Z", "c.md"));
    h = recallHistory(vault)!;
    expect([h.count.get("a.md"), h.count.get("c.md")]).toEqual([2, 1]);
    // Moved aside again: the generation before it is no longer read.
    appendUsage(log, { ...entry, t: "2026-12-01T00:00:00.000Z", cards: [{ path: "d.md", score: 20 }] }, 10);
    h = recallHistory(vault)!;
    expect(Object.fromEntries(h.count)).toEqual({ "a.md": 1, "c.md": 1, "d.md": 1 });
    expect(h.first).toBe(Date.parse("2026-11-01T00:00:00Z"));
    // Only the older generation, between a move and the next prompt: it is the history.
    rmSync(log);
    expect(Object.fromEntries(recallHistory(vault)!.count)).toEqual({ "a.md": 1, "c.md": 1 });
    expect(olderUsageLog(log)).toBe(join(vaultFiles.dir(vault), "recall-log.1.jsonl"));
  });

  it("does not join the older generation to a log read from its tail only", () => {
    // The log grew past what one reading takes, its moves refused (Windows, with the older file
    // open): the months between the older generation and the tail were not read.
    const { vault, log } = vaultWithLog("");
    writeFileSync(olderUsageLog(log), line("2026-01-01T00:00:00Z", "old.md"));
    const filler = JSON.stringify({ t: "2026-11-01T00:00:00Z", session: "x".repeat(10_000), prompt: "0", cards: [], ms: 1 }) + "\n";
    writeFileSync(log, line("2026-06-01T00:00:00Z", "used.md") + filler.repeat(Math.ceil(USAGE_LOG_ROTATE_BYTES / filler.length) + 10));
    const h = recallHistory(vault)!;
    expect([h.count.get("old.md"), h.count.get("used.md"), h.first]).toEqual([undefined, undefined, Date.parse("2026-11-01T00:00:00Z")]);
    // Grown since, it is carried on, still from its tail.
    appendFileSync(log, line("2026-11-02T00:00:00Z", "new.md"));
    const grown = recallHistory(vault)!;
    expect([grown.count.get("old.md"), grown.count.get("new.md"), grown.first]).toEqual([undefined, 1, Date.parse("2026-11-01T00:00:00Z")]);
  });

  it("says nothing of a vault with no log", async () => {
    expect(recallHistory(join(tempDir(), "none"))).toBeUndefined();
    expect(await recallHistoryInSlices(join(tempDir(), "none"), () => Promise.resolve())).toBeUndefined();
    // A folder where the log should be: refused, not read.
    const { vault, log } = vaultWithLog("");
    rmSync(log);
    mkdirSync(log);
    expect(await recallHistoryInSlices(vault, () => Promise.resolve())).toBeUndefined();
  });
});

describe("the recall log read for Obsidian's window", () => {
  it("parses a large log a slice at a time, pausing between slices, to what a reading at once gives", async () => {
    const lines = Array.from({ length: 12_001 }, (_, i) =>
      line(new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), "a.md", ...(i % 3 === 0 ? ["b.md"] : [])),
    );
    const { vault } = vaultWithLog(lines.join(""));
    const copy = vaultWithLog(lines.join("")).vault;
    let pauses = 0;
    const sliced = (await recallHistoryInSlices(vault, () => {
      pauses++;
      return Promise.resolve();
    }))!;
    expect(pauses).toBe(2);
    const atOnce = recallHistory(copy)!;
    expect([sliced.count.get("a.md"), sliced.count.get("b.md")]).toEqual([12_001, 4_001]);
    expect(sliced).toEqual(atOnce);
  });

  it("carries on from a reading in slices to one at once, and back, as the log grows", async () => {
    const { vault, log } = vaultWithLog(line("2026-11-01T00:00:00Z", "a.md"));
    const first = await recallHistoryInSlices(vault, () => Promise.resolve());
    expect(first?.count.get("a.md")).toBe(1);
    // Unchanged: the same reading, handed out again by either.
    expect(recallHistory(vault)).toBe(first);
    appendFileSync(log, line("2026-11-02T00:00:00Z", "a.md"));
    expect(recallHistory(vault)?.count.get("a.md")).toBe(2);
    appendFileSync(log, line("2026-11-03T00:00:00Z", "a.md", "b.md"));
    const third = (await recallHistoryInSlices(vault, () => Promise.resolve()))!;
    expect([third.count.get("a.md"), third.count.get("b.md")]).toEqual([3, 1]);
    expect(first?.count.get("a.md")).toBe(1);
  });
});
