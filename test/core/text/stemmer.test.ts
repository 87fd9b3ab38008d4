import { describe, expect, it } from "vitest";
import { stem } from "../../../src/core/text/stemmer";

describe("stem", () => {
  it.each([
    ["note", "notes"],
    ["delete", "deleted"],
    ["delete", "deleting"],
    ["sync", "syncing"],
    ["embed", "embedded"],
    ["file", "files"],
    ["query", "queries"],
    ["plugin", "plugins"],
    ["hop", "hopping"],
    ["configure", "configured"],
    ["schedule", "scheduled"],
    ["link", "linking"],
  ])("%s and %s share a stem", (a, b) => {
    expect(stem(a)).toBe(stem(b));
  });

  it.each([
    ["general", "generate"],
    ["status", "stat"],
  ])("%s and %s stay apart", (a, b) => {
    expect(stem(a)).not.toBe(stem(b));
  });

  it("leaves short words, digits and non-Latin words alone", () => {
    expect(stem("css")).toBe("css");
    expect(stem("v1.2")).toBe("v1.2");
    expect(stem("заметки")).toBe("заметки");
    expect(stem("class")).toBe("class");
    expect(stem("canvas")).toBe("canva");
  });
});
