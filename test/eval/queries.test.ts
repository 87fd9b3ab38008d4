// The evaluation's question sets: a wrong expected path would count as a miss for ever, and a
// question asked twice would count twice, so both are checked against the real vaults.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CORPUS, HAS_CORPUS, NO_CORPUS, ROOT, SAMPLE_VAULT } from "../helpers";

interface Question {
  q: string;
  expect: string[];
}

const read = (name: string): unknown => JSON.parse(readFileSync(join(ROOT, "eval", "queries", name), "utf8"));

const SETS: [file: string, vault: string][] = [
  ["sample.json", SAMPLE_VAULT],
  ["en.json", join(CORPUS, "en")],
  ["en-heldout.json", join(CORPUS, "en")],
  ["zh.json", join(CORPUS, "zh")],
  ["zh-heldout.json", join(CORPUS, "zh")],
  ["zh-TW-heldout.json", join(CORPUS, "zh-TW")],
  ["ja.json", join(CORPUS, "ja")],
  ["ja-heldout.json", join(CORPUS, "ja")],
];

describe("evaluation question sets", () => {
  it.for(SETS)("%s names notes that exist, one to three per question", ([file, vault], ctx) => {
    if (vault !== SAMPLE_VAULT && !HAS_CORPUS) return ctx.skip(NO_CORPUS);
    const questions = read(file) as Question[];
    for (const { q, expect: paths } of questions) {
      expect(typeof q).toBe("string");
      expect(paths.length, q).toBeGreaterThanOrEqual(1);
      expect(paths.length, q).toBeLessThanOrEqual(3);
      for (const p of paths) expect(existsSync(join(vault, p)), `${file}: ${p}`).toBe(true);
    }
  });

  it("has at least 60 questions per language and 20 chit-chat prompts, none asked twice", () => {
    const all = SETS.flatMap(([file]) => (read(file) as Question[]).map((x) => x.q));
    expect(new Set(all).size).toBe(all.length);
    const count = (lang: string): number => (read(`${lang}.json`) as Question[]).length + (read(`${lang}-heldout.json`) as Question[]).length;
    expect(count("en")).toBeGreaterThanOrEqual(60);
    expect(count("zh")).toBeGreaterThanOrEqual(60);
    const chitchat = ["chitchat.json", "chitchat-heldout.json", "chitchat-ja.json", "chitchat-ja-heldout.json"].flatMap((f) => read(f) as string[]);
    expect(chitchat.length).toBeGreaterThanOrEqual(20);
    expect(new Set(chitchat).size).toBe(chitchat.length);
  });
});

interface WorkPrompt {
  q: string;
  expect: string[];
  cwd: string;
  kind: string;
}

describe("work prompt sets", () => {
  it.for(["en", "zh", "zh-TW", "ja"])("work-%s: 40 answered by one card that exists, 20 none answers, 10 chit-chat, each from one of the vault's projects", (lang) => {
    const vault = join(ROOT, "eval", "vaults", `${lang}-work`);
    const set = read(`work-${lang}.json`) as { origin: string; prompts: WorkPrompt[] };
    expect(set.origin).toMatch(/blind/i);
    const projects = new Set(
      readdirSync(join(vault, "projects")).map((f) => /^project:\s*(\S+)/m.exec(readFileSync(join(vault, "projects", f), "utf8"))?.[1]),
    );
    const kinds = { answered: 0, unanswered: 0, chitchat: 0 } as Record<string, number>;
    for (const p of set.prompts) {
      kinds[p.kind]++;
      expect(projects.has(p.cwd.split("/").pop()), `${p.q}: ${p.cwd}`).toBe(true);
      if (p.kind === "answered") {
        expect(p.expect).toHaveLength(1);
        expect(existsSync(join(vault, p.expect[0])), p.expect[0]).toBe(true);
      } else expect(p.expect).toEqual([]);
    }
    expect(kinds).toEqual({ answered: 40, unanswered: 20, chitchat: 10 });
    expect(new Set(set.prompts.map((p) => p.q)).size).toBe(set.prompts.length);
  });
});
