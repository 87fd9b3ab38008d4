import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../../src/core/config";

describe("enrich settings", () => {
  it("default to 20 a night, 6 cards a call, 6 questions, no second language", () => {
    expect(defaultConfig().enrich).toEqual({ perNight: 20, batchSize: 6, questionsPerCard: 6, alsoLanguage: "" });
  });

  it("take values of the right type and range, and report the rest", () => {
    expect(mergeConfig({ enrich: { perNight: 3, batchSize: 2, questionsPerCard: 8, alsoLanguage: "en" } }).enrich).toEqual({ perNight: 3, batchSize: 2, questionsPerCard: 8, alsoLanguage: "en" });
    const problems: string[] = [];
    const c = mergeConfig({ enrich: { perNight: "many", batchSize: 0, questionsPerCard: 9, alsoLanguage: "English please" } }, problems);
    expect(c.enrich).toEqual(defaultConfig().enrich);
    expect(problems).toEqual([
      "enrich.perNight must be a non-negative number",
      "enrich.batchSize must be a whole number from 1 to 20",
      "enrich.questionsPerCard must be a whole number from 1 to 8",
      'enrich.alsoLanguage must be a language tag such as "en" or "zh-TW", or ""',
    ]);
  });
});
