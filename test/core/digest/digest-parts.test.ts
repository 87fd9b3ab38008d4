import { spawnSync } from "node:child_process";
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { safePath, validateAnswer } from "../../../src/core/digest/answer";
import { AnswerError, extractJson } from "../../../src/core/llm/answer";
import { commitVault, MAX_DELETIONS } from "../../../src/core/digest/git";
import { isDue, lastScheduled } from "../../../src/core/digest/schedule";
import { tempDir } from "../../helpers";

const create = {
  action: "create",
  folder: "debugging",
  fileName: "x",
  frontmatter: { name: "n", description: "d", type: "debugging", tags: ["t"] },
  body: "b",
  related: [],
};

describe("validateAnswer", () => {
  it.each<[string, unknown, RegExp]>([
    ["an unknown action", { action: "delete" }, /action must be/],
    ["not an object", ["create"], /not a JSON object/],
    ["path traversal in the folder", { ...create, folder: "../secrets" }, /folder/],
    ["a folder outside the card folders", { ...create, folder: "meta" }, /folder/],
    ["a path in the file name", { ...create, fileName: "../../etc/passwd" }, /not allowed/],
    ["a hidden file name", { ...create, fileName: ".obsidian" }, /not allowed/],
    ["missing frontmatter", { ...create, frontmatter: undefined }, /frontmatter is missing/],
    ["frontmatter without a description", { ...create, frontmatter: { name: "n", type: "t", tags: ["t"] } }, /must be a string/],
    ["frontmatter without tags", { ...create, frontmatter: { name: "n", description: "d", type: "t", tags: [] } }, /at least one tag/],
    ["an oversized body", { ...create, body: "x".repeat(20_001) }, /over 20000/],
    ["an empty body", { ...create, body: "  " }, /empty/],
    ["an absolute append target", { action: "append", target: "/etc/hosts.md", section: "s", related: [] }, /not a card/],
    ["a Windows absolute target", { action: "append", target: "C:\\notes\\a.md", section: "s", related: [] }, /not a card/],
    ["a traversal target", { action: "append", target: "reference/../../x.md", section: "s", related: [] }, /not a card/],
    ["a hidden target", { action: "append", target: ".vault-memory/config.md", section: "s", related: [] }, /not a card/],
    ["a target that is not markdown", { action: "append", target: "reference/a.txt", section: "s", related: [] }, /not a markdown card/],
    ["synonyms that are not a list of lists", { ...create, synonyms: "排程, launchd" }, /list of lists/],
    ["a synonym group of one word", { ...create, synonyms: [["launchd", "LaunchD"]] }, /2 to 8 different words/],
    ["more than five synonym groups", { ...create, synonyms: Array.from({ length: 6 }, (_, i) => [`a${i}`, `b${i}`]) }, /more than 5 groups/],
    ["a synonym holding a comma", { ...create, synonyms: [["排程，定时", "cron"]] }, /separator or markup/],
    ["a synonym that is a wikilink", { ...create, synonyms: [["[[secret]]", "cron"]] }, /separator or markup/],
    ["a synonym that would be a heading", { ...create, synonyms: [["# Owned", "cron"]] }, /separator or markup/],
    ["a synonym of more words than the note reads as one", { ...create, synonyms: [["one two three four five six", "cron"]] }, /more than 5 words/],
    [
      "a synonym over two lines",
      { action: "append", target: "reference/a.md", section: "s", synonyms: [["cron\n- injected, line", "launchd"]] },
      /several lines/,
    ],
    ["an alias over two lines", { ...create, frontmatter: { ...create.frontmatter, aliases: ["a\nb"] } }, /several lines/],
  ])("refuses %s", (_, value, message) => {
    expect(() => validateAnswer(value)).toThrow(AnswerError);
    expect(() => validateAnswer(value)).toThrow(message);
  });

  it("accepts the three shapes, and strips a frontmatter block from a body", () => {
    expect(validateAnswer({ ...create, body: "---\nname: evil\n---\nreal body", related: ["[[a|x]]"] })).toMatchObject({
      action: "create",
      body: "real body",
      related: ["a"],
    });
    expect(validateAnswer({ action: "append", target: "reference/a.md", section: "more" })).toMatchObject({ action: "append", target: "reference/a.md" });
    expect(validateAnswer({ action: "skip", reason: "nothing new" })).toEqual({ action: "skip", reason: "nothing new" });
    expect(
      validateAnswer({ ...create, frontmatter: { ...create.frontmatter, aliases: [" schtasks "] }, synonyms: [["排程", "launchd", "Launchd"]] }),
    ).toMatchObject({
      frontmatter: { aliases: ["schtasks"] },
      synonyms: [["排程", "launchd"]],
    });
    expect(safePath("reference/sub/a.md")).toBe("reference/sub/a.md");
  });

  it("finds the JSON in a fence, in prose, or in claude's json result", () => {
    expect(extractJson('Sure!\n```json\n{"action":"skip","reason":"r"}\n```')).toEqual({ action: "skip", reason: "r" });
    expect(extractJson('I decided: {"action":"skip","reason":"r"} done')).toEqual({ action: "skip", reason: "r" });
    expect(extractJson(JSON.stringify({ type: "result", result: '{"action":"skip","reason":"r"}' }))).toEqual({ action: "skip", reason: "r" });
    expect(() => extractJson("no json here")).toThrow(/no JSON/);
  });
});

describe("schedule", () => {
  const at = (s: string) => new Date(s);
  it("finds the last scheduled time", () => {
    expect(lastScheduled(at("2026-11-30T10:00:00"), "03:00").toString()).toBe(at("2026-11-30T03:00:00").toString());
    expect(lastScheduled(at("2026-11-30T02:00:00"), "03:00").toString()).toBe(at("2026-11-29T03:00:00").toString());
  });

  it("catches up on a night missed while Obsidian was closed", () => {
    // Last ran two nights ago; Obsidian opens at 9 in the morning: due.
    expect(isDue(at("2026-11-30T09:00:00"), "03:00", at("2026-11-28T03:05:00").toISOString())).toBe(true);
    // Ran this morning at 3: not due again until tomorrow.
    expect(isDue(at("2026-11-30T09:00:00"), "03:00", at("2026-11-30T03:01:00").toISOString())).toBe(false);
    expect(isDue(at("2026-11-30T09:00:00"), "03:00", undefined)).toBe(true);
  });
});

describe("git snapshot", () => {
  function repo(files: number): string {
    const dir = tempDir();
    const g = (...a: string[]) => spawnSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...a], { encoding: "utf8" });
    g("init", "-q");
    mkdirSync(join(dir, "cards"));
    for (let i = 0; i < files; i++) writeFileSync(join(dir, "cards", `c${i}.md`), `card ${i}\n`);
    g("add", "-A");
    g("commit", "-qm", "start");
    return dir;
  }

  it("refuses, and unstages, a commit that would delete more than 30 files", () => {
    const dir = repo(40);
    for (let i = 0; i <= MAX_DELETIONS; i++) unlinkSync(join(dir, "cards", `c${i}.md`));
    expect(commitVault(dir, "digest")).toEqual({ status: "refused", deletions: 31 });
    expect(spawnSync("git", ["-C", dir, "diff", "--cached", "--name-only"], { encoding: "utf8" }).stdout).toBe("");
    expect(spawnSync("git", ["-C", dir, "log", "--oneline"], { encoding: "utf8" }).stdout.trim().split("\n")).toHaveLength(1);
  });

  it("commits a change with a few deletions, and leaves the hidden folder out", () => {
    const dir = repo(10);
    unlinkSync(join(dir, "cards", "c0.md"));
    writeFileSync(join(dir, "cards", "new.md"), "new\n");
    mkdirSync(join(dir, ".vault-memory"));
    writeFileSync(join(dir, ".vault-memory", "snapshot.jsonl"), "{}\n");
    expect(commitVault(dir, "digest")).toEqual({ status: "committed", files: 2 });
    expect(commitVault(dir, "digest")).toEqual({ status: "nothing-to-commit" });
    expect(commitVault(tempDir(), "digest")).toEqual({ status: "not-a-repo" });
  });
});
