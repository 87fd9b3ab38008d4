import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig, loadConfig, mergeConfig } from "../../src/core/config";
import { tempDir } from "../helpers";

describe("settings", () => {
  it("are the defaults for a missing file, and defaults plus a problem for a broken one", () => {
    expect(loadConfig(join(tempDir(), "none.json"))).toEqual(defaultConfig());
    const bad = join(tempDir(), "config.json");
    writeFileSync(bad, "{ not json");
    const problems: string[] = [];
    expect(loadConfig(bad, problems)).toEqual(defaultConfig());
    expect(problems[0]).toMatch(/is not valid JSON/);
  });

  it("take what has the right type and report the rest, one problem each", () => {
    const problems: string[] = [];
    const cfg = mergeConfig(
      {
        memoryFolder: 3,
        recall: { thresholds: { minScore: "high", maxCards: 3 }, signals: { typeWeights: { Decision: 2, bad: -1 } } },
        index: { stem: "yes", prefixLength: 4, hintsProperty: "my faq" },
        digest: { time: "25:00", model: "opus" },
        queue: { excludeProjects: ["client-*", 4] },
      },
      problems,
    );
    expect(cfg.recall.thresholds.maxCards).toBe(3);
    expect(cfg.recall.thresholds.minScore).toBe(defaultConfig().recall.thresholds.minScore);
    // A person's weight table replaces the defaults whole; keys are matched in lower case.
    expect({ ...cfg.recall.signals.typeWeights }).toEqual({ decision: 2 });
    expect(cfg.index.prefixLength).toBe(4);
    expect(cfg.index.hintsProperty).toBe("questions");
    expect(cfg.digest.time).toBe("03:00");
    expect(cfg.digest.model).toBe("opus");
    expect(cfg.queue.excludeProjects).toEqual([]);
    expect(problems.sort()).toEqual(
      [
        "memoryFolder must be a string",
        "recall.thresholds.minScore must be a non-negative number",
        "recall.signals.typeWeights.bad must be a non-negative number",
        "index.stem must be true or false",
        "index.hintsProperty must be a property name of letters, digits, - or _",
        "digest.time must look like 03:00",
        "queue.excludeProjects must be a list of strings",
      ].sort(),
    );
  });

  it("accept a hints property and a time of day written as people write them", () => {
    const cfg = mergeConfig({ index: { hintsProperty: "faq" }, digest: { time: " 7:05 " } });
    expect(cfg.index.hintsProperty).toBe("faq");
    expect(cfg.digest.time).toBe("7:05");
  });

  it("never share lists with the defaults, so editing one config leaves the next alone", () => {
    const a = defaultConfig();
    a.queue.excludeProjects.push("x");
    a.digest.command.push("--extra");
    expect(defaultConfig().queue.excludeProjects).toEqual([]);
    expect(defaultConfig().digest.command).not.toContain("--extra");
  });
});

describe("cards.relatedHeading", () => {
  it("defaults to following the vault", () => {
    expect(defaultConfig().cards).toEqual({ relatedHeading: "" });
  });

  it("takes one level-two heading and reports anything else", () => {
    expect(mergeConfig({ cards: { relatedHeading: " ## 相關 " } }).cards.relatedHeading).toBe("## 相關");
    const problems: string[] = [];
    expect(mergeConfig({ cards: { relatedHeading: "Related\n## x" } }, problems).cards.relatedHeading).toBe("");
    expect(mergeConfig({ cards: { relatedHeading: 2 } }, problems).cards.relatedHeading).toBe("");
    expect(problems).toEqual([
      'cards.relatedHeading must be "" (follow the vault) or one heading such as "## Related"',
      'cards.relatedHeading must be "" (follow the vault) or one heading such as "## Related"',
    ]);
  });
});
