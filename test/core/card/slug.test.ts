import { describe, expect, it } from "vitest";
import { slugify } from "../../../src/core/card/slug";

describe("slugify", () => {
  it.each([
    ["Claude path under launchd", "claude-path-under-launchd"],
    ["排程 定時任務", "排程-定時任務"],
    ["日本語のメモ：設定", "日本語のメモ-設定"],
    ["한국어 카드", "한국어-카드"],
    ["🚀 Deploy to Pages 🎉", "deploy-to-pages"],
    ["🚀🎉", "card"],
    ['a/b\\c:d*e?f"g<h>i|j#k^l[m]n', "a-b-c-d-e-f-g-h-i-j-k-l-m-n"],
    ["../../etc/passwd", "etc-passwd"],
    ["ＦＵＬＬ　ｗｉｄｔｈ", "full-width"],
    ["", "card"],
  ])("%j → %j", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it.each(["CON", "prn", "Aux", "nul", "COM1", "lpt9"])("never gives the reserved Windows name %j", (name) => {
    expect(slugify(name)).toBe(`${name.toLowerCase()}-card`);
    expect(slugify(name, "project")).toBe(`${name.toLowerCase()}-project`);
  });

  it("cuts a name of 100+ characters to 80, on a whole character and without a trailing dash", () => {
    const long = slugify(`${"word ".repeat(30)}end`);
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).not.toMatch(/-$/);
    const cjk = slugify("𠮷".repeat(120));
    // Four bytes each: cut by bytes before characters, whole characters still.
    expect(Array.from(cjk)).toHaveLength(45);
    // No lone surrogate: the string survives a round trip through UTF-8.
    expect(Buffer.from(cjk, "utf8").toString("utf8")).toBe(cjk);
  });

  it("keeps a long Chinese name within the file name's bytes, so a title of 120 characters is a card", () => {
    const slug = slugify("排程任務找不到指令".repeat(13));
    expect(Buffer.byteLength(slug, "utf8")).toBeLessThanOrEqual(180);
    expect(Array.from(slug)).toHaveLength(60);
  });
});
