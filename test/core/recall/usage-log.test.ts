import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendUsage, olderUsageLog, promptHash, recentUsageText } from "../../../src/core/recall/usage-log";
import { tempDir } from "../../helpers";

describe("usage log", () => {
  it("records a hash of the prompt, never its text", () => {
    const file = join(tempDir(), "recall-log.jsonl");
    appendUsage(file, { t: "2026-11-30T00:00:00Z", session: "s", prompt: promptHash("my secret project name"), cards: [{ path: "a.md", score: 20 }], ms: 3 });
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toMatchObject({ prompt: promptHash("my secret project name"), cards: [{ path: "a.md" }] });
    expect(promptHash("a")).not.toBe(promptHash("b"));
  });

  const entry = (n: number) => ({ t: "2026-11-30T00:00:00Z", session: "s", prompt: String(n), cards: [], ms: 1 });

  it("moves a log past its size aside, replacing the generation before, and begins a new one", () => {
    const file = join(tempDir(), "recall-log.jsonl");
    const older = olderUsageLog(file);
    expect(older).toBe(file.replace(/recall-log\.jsonl$/, "recall-log.1.jsonl"));
    for (let i = 0; i < 3; i++) appendUsage(file, entry(i), 200);
    expect(existsSync(older)).toBe(false);
    const long = readFileSync(file, "utf8");
    expect(long.length).toBeGreaterThanOrEqual(200);
    appendUsage(file, entry(3), 200);
    expect(readFileSync(older, "utf8")).toBe(long);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ prompt: "3" });
    for (let i = 4; i < 8; i++) appendUsage(file, entry(i), 200);
    expect(readFileSync(older, "utf8").split("\n")[0]).toContain('"prompt":"3"');
  });

  it("appends to the log as it is while another process moves it", () => {
    const dir = tempDir();
    const file = join(dir, "recall-log.jsonl");
    writeFileSync(file, "x".repeat(300) + "\n");
    // A live process of this computer holds the lock: the line is not held up, nor lost.
    writeFileSync(`${file}.lock`, `${process.pid} ${hostname()} ${Date.now()} other`);
    appendUsage(file, entry(1), 200);
    expect(existsSync(olderUsageLog(file))).toBe(false);
    expect(readFileSync(file, "utf8").split("\n")[1]).toContain('"prompt":"1"');
  });

  it("reads the recent use across the two generations", () => {
    const file = join(tempDir(), "recall-log.jsonl");
    expect(recentUsageText(file, 100)).toBe("");
    writeFileSync(olderUsageLog(file), "a".repeat(100));
    writeFileSync(file, "b".repeat(30));
    expect(recentUsageText(file, 50)).toBe("a".repeat(20) + "b".repeat(30));
    expect(recentUsageText(file, 20)).toBe("b".repeat(20));
  });
});
