import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendUsage, promptHash } from "../../../src/core/recall/usage-log";
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
});
