import { describe, expect, it } from "vitest";
import { defaultConfig, mergeConfig } from "../../../src/core/config";

describe("enrich settings", () => {
  it("default to 20 a night, 6 cards a call, 6 questions, no second language", () => {
    expect(defaultConfig().enrich).toEqual({ perNight: 20, batchSize: 6, questionsPerCard: 6, alsoLanguage: "" });
  });

  it("take values of the right type and range, and report the rest", () => {
    expect(mergeConfig({ enrich: { perNight: 3, batchSize: 2, questionsPerCard: 8, alsoLanguage: "en" } }).enrich).toEqual({
      perNight: 3,
      batchSize: 2,
      questionsPerCard: 8,
      alsoLanguage: "en",
    });
    const problems: string[] = [];
    const c = mergeConfig({ enrich: { perNight: "many", batchSize: 0, questionsPerCard: 9, alsoLanguage: "English please" } }, problems);
    expect(c.enrich).toEqual(defaultConfig().enrich);
    expect(problems).toEqual([
      'enrich.perNight: expected a non-negative number, got "many"; using 20',
      "enrich.batchSize: expected a whole number from 1 to 20, got 0; using 6",
      "enrich.questionsPerCard: expected a whole number from 1 to 8, got 9; using 6",
      'enrich.alsoLanguage: expected a language tag such as "en" or "zh-TW", or "", got "English please"; using ""',
    ]);
  });
});
