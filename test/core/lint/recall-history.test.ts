import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recallHistory } from "../../../src/core/lint/lint";
import { vaultFiles } from "../../../src/core/paths";
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

  it("says nothing of a vault with no log", () => {
    expect(recallHistory(join(tempDir(), "none"))).toBeUndefined();
  });
});
