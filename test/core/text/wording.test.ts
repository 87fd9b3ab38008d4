import { describe, expect, it } from "vitest";
import { exactTime, plural, relativeTime } from "../../../src/core/text/wording";

const now = Date.UTC(2026, 11, 1, 12, 0, 0);

describe("wording", () => {
  it.each([
    [0, "0 findings"],
    [1, "1 finding"],
    [2, "2 findings"],
    [12172, "12,172 findings"],
  ])("plural(%i)", (n, text) => expect(plural(n, "finding")).toBe(text));

  it("takes an irregular plural", () => expect(plural(3, "entry", "entries")).toBe("3 entries"));

  it.each([
    [now - 10_000, "just now"],
    [now - 5 * 60_000, "5 minutes ago"],
    [now - 3 * 3_600_000, "3 hours ago"],
    [now - 26 * 3_600_000, "yesterday"],
    [now - 3 * 86_400_000, "3 days ago"],
    [now - 20 * 86_400_000, "3 weeks ago"],
    [now + 2 * 3_600_000, "in 2 hours"],
  ])("relativeTime(%i)", (when, text) => expect(relativeTime(when, now)).toBe(text));

  it("keeps the exact time for hover", () => expect(exactTime(now)).toMatch(/1 Dec 2026/));
});
