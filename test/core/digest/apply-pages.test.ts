import { existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { withHints } from "../../../src/core/card/hint-fields";
import { hintsOf, hintState } from "../../../src/core/card/hints";
import { applyAction } from "../../../src/core/digest/apply";
import { defaultConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { recall } from "../../../src/core/recall/recall";
import { memoryIndex, overviewPages } from "../../../src/core/digest/pages";
import { vaultWith } from "../../helpers";

describe("applyAction", () => {
  it("refuses to append to a card the person edited since it was suggested, and leaves it alone", () => {
    const v = vaultWith({ "reference/a.md": "---\nname: a\n---\nMine.\n" });
    const offered = new Map([["reference/a.md", 1000]]);
    utimesSync(join(v, "reference/a.md"), new Date(5000), new Date(5000));
    const ctx = { vault: v, cards: ["reference/a.md"], offered, sessionId: "s", date: "2026-11-30", dryRun: false, synonymsNote: "" };
    expect(() => applyAction({ action: "append", target: "reference/a.md", section: "more", related: [] }, ctx)).toThrow(/edited since it was suggested/);
    expect(() => applyAction({ action: "append", target: "reference/b.md", section: "more", related: [] }, ctx)).toThrow(/not one of the cards offered/);
    expect(readFileSync(join(v, "reference/a.md"), "utf8")).toBe("---\nname: a\n---\nMine.\n");
  });

  it("never overwrites an existing card when creating one with the same name", () => {
    const v = vaultWith({ "debugging/x.md": "keep me\n", "reference/r.md": "---\nname: r\n---\nR.\n" });
    const out = applyAction(
      {
        action: "create",
        folder: "debugging",
        fileName: "x",
        frontmatter: { name: "X", description: "d", type: "debugging", tags: ["t"] },
        body: "new",
        related: ["r"],
      },
      { vault: v, cards: ["debugging/x.md", "reference/r.md"], offered: new Map(), sessionId: "s", date: "2026-11-30", dryRun: false, synonymsNote: "" },
    );
    expect(out.path).toBe("debugging/x-2.md");
    expect(readFileSync(join(v, "debugging/x.md"), "utf8")).toBe("keep me\n");
    expect(readFileSync(join(v, "reference/r.md"), "utf8")).toContain("[[x-2]]");
  });
});

describe("index pages", () => {
  const cards = [
    parseCard("reference/rare.md", "---\nname: Rare\ndescription: seldom recalled\nupdated: 2026-11-01\n---\n", 0),
    parseCard("debugging/hot.md", "---\nname: Hot\ndescription: recalled a lot\nupdated: 2026-01-01\nproject: p\n---\nWe decided to use X.", 0),
    parseCard("reference/old.md", "---\nname: Old\ndescription: archived\nstatus: archived\n---\n", 0),
  ];

  it("puts the most recalled cards first in MEMORY.md and leaves archived ones out", () => {
    const text = memoryIndex(
      cards,
      new Map([
        ["debugging/hot.md", 12],
        ["reference/rare.md", 1],
      ]),
    );
    const lines = text.split("\n").filter((l) => l.startsWith("- "));
    expect(lines).toEqual(["- [Hot](debugging/hot.md) — recalled a lot", "- [Rare](reference/rare.md) — seldom recalled"]);
  });

  it("writes overview pages with valid frontmatter and a decision log per project", () => {
    const pages = overviewPages(cards, "2026-11-30");
    expect(Object.keys(pages).sort()).toEqual(["moc/decision-log-p.md", "moc/knowledge-overview.md", "moc/projects-overview.md", "moc/timeline.md"]);
    for (const [path, text] of Object.entries(pages)) expect(parseCard(path, text).frontmatterError).toBe("");
    expect(pages["moc/decision-log-p.md"]).toContain("[[hot|Hot]]");
  });
});

describe("synonyms from the digest", () => {
  const SYNONYMS = "---\ntags: [meta, recall]\n---\n# Synonyms\n\n- 部署, deploy\n\n## Related\n- [[about]]\n";
  const scheduler = {
    action: "create" as const,
    folder: "debugging",
    fileName: "task-scheduler-path",
    frontmatter: {
      name: "Task Scheduler PATH",
      description: "the nightly job cannot find claude",
      type: "debugging",
      tags: ["windows"],
      aliases: ["schtasks"],
    },
    body: "Task Scheduler starts the nightly job with a short PATH, so claude is not found.",
    related: [],
    synonyms: [
      ["任务计划程序", "Task Scheduler"],
      ["DEPLOY", "部署"],
    ],
  };
  const ctx = (v: string, dryRun = false, synonymsNote = "meta/synonyms.md") => ({
    vault: v,
    cards: [],
    offered: new Map<string, number>(),
    sessionId: "s",
    date: "2026-11-30",
    dryRun,
    synonymsNote,
  });
  const prompt = "任务计划程序里的 claude 找不到";
  const found = (v: string): string[] => {
    const { index } = buildIndexFromDisk(v, defaultConfig());
    return recall(prompt, index, defaultConfig().recall, v).cards.map((c) => c.path);
  };

  it("adds the person's words to the synonyms note, so the next prompt worded that way finds the card", () => {
    const v = vaultWith({ "meta/synonyms.md": SYNONYMS, "debugging/launchd.md": "---\nname: launchd\n---\nlaunchd jobs run with a short PATH on macOS.\n" });
    applyAction({ ...scheduler, synonyms: [] }, ctx(v));
    expect(found(v)).not.toContain("debugging/task-scheduler-path.md");

    const out = applyAction({ ...scheduler, fileName: "task-scheduler-path-2" }, ctx(v));
    // The deploy group is already there, whatever its case: only the new one is added.
    expect(out.synonyms).toEqual([["任务计划程序", "Task Scheduler"]]);
    expect(readFileSync(join(v, "meta/synonyms.md"), "utf8")).toBe(
      "---\ntags: [meta, recall]\n---\n# Synonyms\n\n- 部署, deploy\n- 任务计划程序, Task Scheduler\n\n## Related\n- [[about]]\n",
    );
    expect(found(v)[0]).toMatch(/^debugging\/task-scheduler-path/);
    expect(parseCard("x.md", readFileSync(join(v, "debugging/task-scheduler-path-2.md"), "utf8")).aliases).toEqual(["schtasks"]);
    expect(applyAction({ ...scheduler, fileName: "again" }, ctx(v)).synonyms).toEqual([]);
  });

  it("creates the note when it is missing, and writes nothing on a dry run", () => {
    const v = vaultWith({});
    expect(applyAction(scheduler, ctx(v, true)).synonyms).toHaveLength(2);
    expect(existsSync(join(v, "meta/synonyms.md"))).toBe(false);
    applyAction(scheduler, ctx(v));
    const note = readFileSync(join(v, "meta/synonyms.md"), "utf8");
    expect(parseCard("meta/synonyms.md", note).type).toBe("meta");
    expect(note.endsWith("- 任务计划程序, Task Scheduler\n- DEPLOY, 部署\n\n## Related\n- [[card-writing-rules]]\n")).toBe(true);
    // A later night adds above the related section, not below it.
    applyAction({ ...scheduler, fileName: "later", synonyms: [["cron", "crontab"]] }, ctx(v));
    expect(readFileSync(join(v, "meta/synonyms.md"), "utf8")).toContain("- DEPLOY, 部署\n- cron, crontab\n\n## Related");
  });

  it("keeps a Windows note's line endings and its related links where they were", () => {
    const crlf = "---\r\ntags: [meta, recall]\r\n---\r\n# Synonyms\r\n\r\n- 部署, deploy\r\n\r\n## Related\r\n- [[a]], [[b]]\r\n";
    const v = vaultWith({ "meta/synonyms.md": crlf });
    applyAction(scheduler, ctx(v));
    expect(readFileSync(join(v, "meta/synonyms.md"), "utf8")).toBe(crlf.replace("- 部署, deploy\r\n", "- 部署, deploy\r\n- 任务计划程序, Task Scheduler\r\n"));
  });

  it("refuses a synonyms setting outside the vault before writing the card", () => {
    const v = vaultWith({});
    expect(() => applyAction(scheduler, ctx(v, false, "../outside.md"))).toThrow(/synonymsNote setting/);
    expect(existsSync(join(v, "debugging/task-scheduler-path.md"))).toBe(false);
    // No synonyms note configured: the card is written and the groups are dropped.
    expect(applyAction(scheduler, ctx(v, false, "")).synonyms).toEqual([]);
  });
});

describe("recall hints from the digest", () => {
  const ctx = (v: string, cards: string[], offered = new Map<string, number>()) => ({
    vault: v,
    cards,
    offered,
    sessionId: "s",
    date: "2026-11-30",
    dryRun: false,
    synonymsNote: "",
  });
  const stateOf = (v: string, p: string) => hintState(parseCard(p, readFileSync(join(v, p), "utf8")), "questions");
  const hints = (v: string, p: string) => hintsOf(parseCard(p, readFileSync(join(v, p), "utf8")), "questions");

  it("writes a created card's questions with their version, so enrich finds it current", () => {
    const v = vaultWith({ "reference/r.md": "---\nname: r\n---\nR.\n" });
    const out = applyAction(
      {
        action: "create",
        folder: "debugging",
        fileName: "x",
        frontmatter: { name: "X", description: "d", type: "debugging", tags: ["t"] },
        body: "new",
        related: ["r"],
        questions: ["why does x fail?", "null"],
      },
      ctx(v, ["reference/r.md"]),
    );
    expect(hints(v, out.path)).toEqual(["why does x fail?", "null"]);
    expect(stateOf(v, out.path)).toBe("current");
    // The card that links back changed: its own hints (none here) are enrich's to write.
    expect(readFileSync(join(v, "reference/r.md"), "utf8")).not.toContain("questions");
  });

  it("adds an extended card's new questions before those written for it, and keeps the person's own", () => {
    const mine = "---\nname: a\nquestions:\n  - my own question\n---\nMine.\n";
    const ours = withHints("reference/b.md", "---\nname: b\n---\nOurs.\n", "questions", ["old question"]);
    const v = vaultWith({ "reference/a.md": mine, "reference/b.md": ours });
    const offered = new Map(["reference/a.md", "reference/b.md"].map((p) => [p, statSync(join(v, p)).mtimeMs]));
    applyAction(
      { action: "append", target: "reference/a.md", section: "more", related: [], questions: ["new question"] },
      ctx(v, [...offered.keys()], offered),
    );
    applyAction(
      { action: "append", target: "reference/b.md", section: "more", related: [], questions: ["new question"] },
      ctx(v, [...offered.keys()], offered),
    );
    expect(hints(v, "reference/a.md")).toEqual(["my own question"]);
    expect(readFileSync(join(v, "reference/a.md"), "utf8")).toMatch(/^---\nname: a\nquestions:\n {2}- my own question\n---\nMine\.\n/);
    expect(hints(v, "reference/b.md")).toEqual(["new question", "old question"]);
    expect(stateOf(v, "reference/b.md")).toBe("current");
  });
});
