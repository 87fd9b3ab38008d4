import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { defaultConfig } from "../../../src/core/config";
import { DEFAULT_INDEX_OPTIONS, parseSynonyms } from "../../../src/core/index/index-options";
import { MemoryIndex } from "../../../src/core/index/memory-index";
import { scoreGroups } from "../../../src/core/index/scorer";
import { buildQuery, requiredMatches } from "../../../src/core/recall/query";
import { effectiveMinScore, recall } from "../../../src/core/recall/recall";
import { DEFAULT_SIGNALS, projectTier, recencyWeight, typeWeight } from "../../../src/core/recall/signals";
import { isAcknowledgement } from "../../../src/core/text/chitchat";
import { tokenize } from "../../../src/core/text/tokenizer";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 30);

function card(fm: Record<string, string>, body: string): string {
  const lines = Object.entries(fm).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n${body}\n`;
}

function indexOf(cards: Record<string, string>, synonyms: string[][] = []): MemoryIndex {
  const cfg = defaultConfig();
  const index = new MemoryIndex(cfg.recall.scoring, { ...DEFAULT_INDEX_OPTIONS, synonyms });
  for (const [path, text] of Object.entries(cards)) index.upsert(parseCard(path, text));
  // Filler so that IDF and the vault-size scaling behave as in a real vault.
  for (let i = 0; i < 40; i++) index.upsert(parseCard(`filler/${i}.md`, `filler note number ${i} about gardening and cooking`));
  return index;
}

const rules = (): ReturnType<typeof defaultConfig>["recall"] => defaultConfig().recall;
const paths = (r: { cards: { path: string }[] }): string[] => r.cards.map((c) => c.path);

describe("type weight", () => {
  it("puts decision and debugging cards above plain notes with the same text", () => {
    const body = "the deploy pipeline fails on the staging cluster because the token expired";
    const index = indexOf({
      "a-note.md": card({ name: "pipeline staging", description: "x" }, body),
      "b-debug.md": card({ name: "pipeline staging", description: "x", type: "debugging" }, body),
    });
    expect(paths(recall("deploy pipeline fails on staging cluster", index, rules(), "/v", { now: NOW }))[0]).toBe("b-debug.md");
    const r = rules();
    r.signals.typeWeights = { note: 2 };
    expect(typeWeight({ path: "", description: "", type: "debugging", updated: 0, project: "", links: [] }, r.signals)).toBe(1);
  });
});

describe("recency", () => {
  it("is a gentle prior with a 30-day half-life, never a cut-off", () => {
    const doc = (ageDays: number) => ({ path: "", description: "", type: "", updated: NOW - ageDays * DAY, project: "", links: [] });
    expect(recencyWeight(doc(0), NOW, DEFAULT_SIGNALS)).toBeCloseTo(1.15, 5);
    expect(recencyWeight(doc(30), NOW, DEFAULT_SIGNALS)).toBeCloseTo(1.075, 5);
    expect(recencyWeight(doc(365), NOW, DEFAULT_SIGNALS)).toBeGreaterThan(1);
    expect(recencyWeight(doc(3650), NOW, DEFAULT_SIGNALS)).toBeGreaterThanOrEqual(1);
    expect(recencyWeight({ ...doc(0), updated: 0 }, NOW, DEFAULT_SIGNALS)).toBe(1);
  });

  it("breaks a tie between equal cards in favour of the newer one", () => {
    const body = "sqlite busy timeout wal mode for parallel hooks writing";
    const index = indexOf({
      "old.md": card({ name: "sqlite locking", description: "x", updated: "2025-01-01" }, body),
      "new.md": card({ name: "sqlite locking", description: "x", updated: "2026-11-20" }, body),
    });
    expect(paths(recall("sqlite busy timeout with parallel hooks", index, rules(), "/v", { now: NOW }))).toEqual(["new.md", "old.md"]);
  });
});

describe("project", () => {
  it("ranks the current project's cards first, then global cards, and shows another project's only when the prompt names it", () => {
    const body = "release checklist run tests bump version tag and push";
    const index = indexOf({
      "other.md": card({ name: "release checklist", description: "x", project: "other", updated: "2026-11-29" }, body + " extra release checklist"),
      "global.md": card({ name: "release checklist", description: "x" }, body),
      "mine.md": card({ name: "release checklist", description: "x", project: "Mine" }, body),
    });
    expect(paths(recall("release checklist tag push", index, rules(), "/v", { project: "mine", now: NOW }))).toEqual(["mine.md", "global.md"]);
    // Named, by its project or its file name; and everywhere when asked to look in every project.
    expect(paths(recall("release checklist tag push for other", index, rules(), "/v", { project: "mine", now: NOW }))).toContain("other.md");
    expect(paths(recall("release checklist tag push", index, rules(), "/v", { project: "mine", now: NOW, allProjects: true }))).toEqual([
      "mine.md",
      "global.md",
      "other.md",
    ]);
    // Named as a word of its own: project "other" is not named by "otherwise".
    expect(paths(recall("release checklist tag push otherwise", index, rules(), "/v", { project: "mine", now: NOW }))).not.toContain("other.md");
    // Outside any project nothing is left out.
    expect(paths(recall("release checklist tag push", index, rules(), "/v", { now: NOW }))).toHaveLength(3);
    expect(projectTier({ path: "", description: "", type: "", updated: 0, project: "", links: [] }, "mine")).toBe(1);
  });
});

describe("status and links", () => {
  it("never injects archived or superseded cards", () => {
    const body = "kubernetes ingress certificate renewal with cert manager";
    const index = indexOf({
      "live.md": card({ name: "ingress certificates", description: "x" }, body),
      "old.md": card({ name: "ingress certificates", description: "x", status: "archived" }, body),
      "merged.md": card({ name: "ingress certificates", description: "x", status: "superseded" }, body),
    });
    expect(paths(recall("ingress certificate renewal cert manager", index, rules(), "/v", { now: NOW }))).toEqual(["live.md"]);
  });

  it("gives a small boost to cards the top hit links to", () => {
    const index = indexOf({
      "top.md": card({ name: "redis eviction policy", description: "x" }, "redis eviction policy allkeys lru maxmemory [[b-linked]]"),
      "a-plain.md": card({ name: "redis memory", description: "x" }, "redis maxmemory eviction"),
      "b-linked.md": card({ name: "redis memory", description: "x" }, "redis maxmemory eviction"),
    });
    // Without the boost, a-plain would win the tie on its lower id. Ordering only: no relative floor.
    const r = rules();
    r.thresholds.relativeToTop = 0;
    expect(paths(recall("redis eviction policy maxmemory", index, r, "/v", { now: NOW })).slice(0, 2)).toEqual(["top.md", "b-linked.md"]);
  });

  it("never lifts a linked card past the card that links to it", () => {
    // Nearly equal texts (the linked card is a little longer): a 10% boost alone would put it first.
    const index = indexOf({
      "top.md": card({ name: "redis eviction", description: "x" }, "redis eviction policy maxmemory [[linked]]"),
      "linked.md": card({ name: "redis eviction", description: "x" }, "redis eviction policy maxmemory lru cache"),
    });
    const r = rules();
    const [first, second] = recall("redis eviction policy maxmemory", index, r, "/v", { now: NOW }).cards;
    expect([first.path, second.path]).toEqual(["top.md", "linked.md"]);
    expect(second.score).toBeLessThan(first.score);
    r.signals.linkBoost = 1;
    expect(recall("redis eviction policy maxmemory", index, r, "/v", { now: NOW }).cards[1].score).toBeLessThan(second.score);
  });
});

describe("once per session", () => {
  it("lets the next-best card take an injected card's slot", () => {
    const body = "terraform state lock dynamodb table stuck after a crash";
    const index = indexOf({
      "a.md": card({ name: "terraform state lock", description: "x" }, body + " terraform state lock"),
      "b.md": card({ name: "terraform state lock", description: "x" }, body),
    });
    const r = rules();
    r.thresholds.maxCards = 1;
    const first = paths(recall("terraform state lock stuck", index, r, "/v", { now: NOW }));
    const second = paths(recall("terraform state lock stuck", index, r, "/v", { now: NOW, seen: new Set(first) }));
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(second).not.toEqual(first);
  });
});

describe("language handling", () => {
  it("folds traditional into simplified Chinese", () => {
    expect(tokenize("定時任務")).toEqual(tokenize("定时任务"));
    const index = indexOf({ "zh.md": card({ name: "部署网域", description: "x" }, "部署到自定义网域时的基础路径设置") });
    expect(paths(recall("vite 部署到自訂網域 base 路徑", index, rules(), "/v", { now: NOW }))).toEqual(["zh.md"]);
  });

  it.each([
    ["點連結就跳轉", ["链接"]],
    ["外掛的設定檔案", ["插件", "设置", "文件"]],
    ["乙太網路", ["以太", "太网"]],
    ["作業系統的伺服器", ["操作", "作系", "系统", "服务", "务器"]],
  ])("adds the mainland's words beside the Taiwan and Hong Kong ones in %s", (regional, mainland) => {
    expect(tokenize(regional)).toEqual(expect.arrayContaining(mainland));
  });

  it("makes the mainland word an alternative in the prompt, so a card using both counts once", () => {
    const groups = buildQuery("外掛檔案", DEFAULT_INDEX_OPTIONS, []);
    expect(groups.map((g) => g.term)).toEqual(["外挂", "挂档", "档案"]);
    expect(groups[0].alternatives.map(([t]) => t)).toEqual(["外挂", "插件"]);
    expect(groups[2].alternatives.map(([t]) => t)).toEqual(["档案", "文件"]);
    // The card is indexed under both words; the prompt's score is the same as with one of them.
    const both = indexOf({ "tw.md": card({ name: "x", description: "x" }, "外掛檔案") });
    const one = indexOf({ "cn.md": card({ name: "x", description: "x" }, "外挂档案") });
    const score = (index: MemoryIndex, path: string) => scoreGroups(groups, index).find((s) => index.doc(s.doc)?.path === path)?.matched;
    expect(score(both, "tw.md")).toBe(3);
    expect(score(one, "cn.md")).toBe(3);
  });

  it("gives a regional word repeated many times one alternative, not one per repeat", () => {
    const groups = buildQuery("檔案 ".repeat(5000), DEFAULT_INDEX_OPTIONS, []);
    expect(groups.map((g) => g.alternatives.map(([t]) => t))).toEqual([["档案", "文件"]]);
  });

  it("lets a synonym written one way find a card written the other", () => {
    const card1 = { "cn.md": card({ name: "x", description: "x" }, "部署到服务器之前先跑测试") };
    expect(paths(recall("backend 之前先跑测试", indexOf(card1, parseSynonyms("- 伺服器, backend")), rules(), "/v", { now: NOW }))).toEqual(["cn.md"]);
    const card2 = { "en.md": card({ name: "x", description: "x" }, "deploy the backend after the tests pass") };
    expect(paths(recall("伺服器 deploy tests", indexOf(card2, parseSynonyms("- 服务器, backend")), rules(), "/v", { now: NOW }))).toEqual(["en.md"]);
  });

  it("keeps the words really there when a regional word straddles two of them", () => {
    // 运行程序 holds 行程, Taiwan's 进程: the mainland text must still say 运行 and 程序.
    expect(tokenize("运行程序")).toEqual(expect.arrayContaining(["运行", "行程", "程序"]));
    expect(tokenize("数字元素")).toEqual(expect.arrayContaining(["数字", "字元", "元素"]));
  });

  it("finds a mainland card from a Taiwan prompt", () => {
    const index = indexOf({ "plugins.md": card({ name: "社区插件", description: "x" }, "安装社区插件之前先检查插件的设置文件") });
    expect(paths(recall("社群外掛的設定檔案放在哪", index, rules(), "/v", { now: NOW }))).toEqual(["plugins.md"]);
    // Only whole words fold: 掛 alone is still the character it was.
    expect(tokenize("掛號")).toEqual(["挂号"]);
  });

  it("stems English and matches long words by prefix", () => {
    const index = indexOf({
      "cfg.md": card({ name: "Configuration of deleted notes", description: "x" }, "the configuration of deleted notes and their backups"),
    });
    const groups = buildQuery("configuring deleting a note", index.indexOptions, []);
    expect(groups.map((g) => g.term)).toEqual(["configur", "delet", "note"]);
    expect(groups[0].alternatives.map(([t]) => t)).toEqual(["configur", "confi*"]);
    expect(paths(recall("configuring deleting a note", index, rules(), "/v", { now: NOW }))).toEqual(["cfg.md"]);
  });

  it("expands the prompt with the vault's synonyms note, read at index time", () => {
    const synonyms = parseSynonyms("---\ntags: [meta]\n---\n# Synonyms\n- 排程, 定时任务, cron, launchd, scheduler\nsingle phrase line\n");
    expect(synonyms).toEqual([["排程", "定时任务", "cron", "launchd", "scheduler"]]);
    const index = indexOf(
      { "launchd.md": card({ name: "launchd PATH is short", description: "x" }, "launchd jobs get a minimal PATH so claude is not found") },
      synonyms,
    );
    expect(paths(recall("为什么排程跑不起来, claude not found", index, rules(), "/v", { now: NOW }))).toEqual(["launchd.md"]);
  });

  it("lets a short precise prompt match on one word", () => {
    expect(requiredMatches(1, 2)).toBe(1);
    expect(requiredMatches(2, 2)).toBe(1);
    expect(requiredMatches(5, 2)).toBe(2);
  });

  it.each([
    "ok continue",
    "Great, that worked — go ahead",
    "好的继续",
    "收到，繼續吧",
    "thanks!",
    "never mind, I renamed the file",
    "Got it.",
    "おはよう！今日もよろしく",
    "なるほど、了解です",
  ])("treats %j as an acknowledgement", (p) => {
    expect(isAcknowledgement(p)).toBe(true);
  });

  it.each(["how do I embed a pdf", "为什么排程跑不起来", "okra recipes", "never syncs my notes", "got itunes files in my vault"])(
    "does not treat %j as one",
    (p) => {
      expect(isAcknowledgement(p)).toBe(false);
    },
  );

  it("scales the minimum score with the vault's size and doubles it for acknowledgements", () => {
    const r = rules();
    expect(effectiveMinScore(r, 258, "how")).toBeCloseTo(15, 5);
    expect(effectiveMinScore(r, 15, "how")).toBeLessThan(10);
    expect(effectiveMinScore(r, 6300, "how")).toBeGreaterThan(20);
    expect(effectiveMinScore(r, 258, "ok then")).toBeCloseTo(30, 5);
    r.thresholds.scaleWithVault = 0;
    expect(effectiveMinScore(r, 15, "how")).toBe(15);
  });
});
