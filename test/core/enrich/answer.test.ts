import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { withHints } from "../../../src/core/card/hint-fields";
import { hintsOf, hintState } from "../../../src/core/card/hints";
import { validateAnswer } from "../../../src/core/digest/answer";
import { validateQuestions } from "../../../src/core/enrich/answer";
import { AnswerError } from "../../../src/core/llm/answer";
import { validateEnrichAnswer } from "../../../src/core/enrich/answer";

const CREATE = {
  action: "create",
  folder: "reference",
  fileName: "x",
  frontmatter: { name: "X", description: "D", type: "reference", tags: ["t"] },
  body: "Body.",
  related: [],
};

describe("recall hints from an LLM answer", () => {
  it("keeps one-line strings, whitespace collapsed as recall reads them, without repeats", () => {
    expect(validateQuestions(["  how do I  back up? ", "How do I back up?", "", "where is 配置"])).toEqual(["how do I back up?", "where is 配置"]);
  });

  it("refuses hostile lists whole", () => {
    const refused: [unknown, RegExp][] = [
      ['"]\n---\nx: y', /list of strings/],
      [['"]\n---\nx: y'], /several lines/],
      [["a\r"], /several lines/],
      [["x".repeat(10_000)], /longer than 200/],
      [Array.from({ length: 200 }, (_, i) => `q ${i}`), /200 entries, more than 8/],
      [["bell\u0007"], /control or invisible/],
      [["tab\there"], /control or invisible/],
      [["nul\u0000"], /control or invisible/],
      [["line\u2028sep"], /control or invisible/],
      [["rtl \u202e override"], /control or invisible/],
      [["lone \ud800 surrogate"], /control or invisible/],
      [[1, 2], /list of strings/],
      [[{ q: "x" }], /list of strings/],
      [[null], /list of strings/],
      [{ 0: "a" }, /list of strings/],
      [["my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"], /secret/],
    ];
    for (const [value, reason] of refused) expect(() => validateQuestions(value), JSON.stringify(value).slice(0, 60)).toThrow(reason);
  });

  it("writes what YAML would misread as plain strings that read back, so the card is current", () => {
    const questions = validateQuestions(['"] --- x: y', "null", "- not an item", "#hash", "key: value", "{a: b}", "2026-01-01", "yes"]);
    const text = withHints("reference/x.md", "---\nname: X\n---\nBody\n", "questions", questions);
    const card = parseCard("reference/x.md", text);
    expect(hintsOf(card, "questions")).toEqual(questions);
    expect(hintState(card, "questions")).toBe("current");
  });

  it("is part of the digest's answer schema, optional, and guarded the same way", () => {
    expect(validateAnswer({ ...CREATE, questions: ["how do I x?"] })).toMatchObject({ questions: ["how do I x?"] });
    expect(validateAnswer(CREATE)).toMatchObject({ questions: [] });
    expect(() => validateAnswer({ ...CREATE, questions: ["a\nb"] })).toThrow(AnswerError);
    expect(() => validateAnswer({ action: "append", target: "reference/x.md", section: "S", questions: "one" })).toThrow(/list of strings/);
  });

  it("takes an enrich answer card by card: only this batch's paths, each checked on its own", () => {
    const batch = ["a.md", "b.md", "c.md", "d.md"];
    const r = validateEnrichAnswer(
      {
        cards: [
          { path: "a.md", questions: ["qa"] },
          { path: "b.md", questions: ["bad\nline"] },
          { path: "../outside.md", questions: ["q"] },
          { path: "a.md", questions: ["again"] },
          { path: "c.md", questions: [] },
          { questions: ["no path"] },
          "not an object",
        ],
      },
      batch,
    );
    expect([...r.cards]).toEqual([["a.md", ["qa"]]]);
    expect(r.rejected.map((x) => `${x.path}: ${x.reason}`)).toEqual([
      "b.md: a question spans several lines",
      '"../outside.md": not a card of this batch',
      "a.md: answered twice; the first answer is kept",
      "c.md: no questions",
      "?: an entry has no path",
      "?: an entry has no path",
    ]);
    expect(() => validateEnrichAnswer({ cards: "x" }, batch)).toThrow(/no "cards" list/);
    expect(() => validateEnrichAnswer([], batch)).toThrow(/not a JSON object/);
    expect(() => validateEnrichAnswer({ cards: Array.from({ length: 200 }, () => ({})) }, batch)).toThrow(/200 entries/);
  });
});
