import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { contentHash, formatHintVersion, hintsHash, hintsOf, hintState } from "../../../src/core/card/hints";

const card = (frontmatter: string, body = "Body text.") => parseCard("reference/x.md", `---\nname: X\ndescription: D\n${frontmatter}---\n${body}\n`);

describe("hints in a card's frontmatter", () => {
  it("reads a list or one string, trimmed, under the property the settings name", () => {
    expect(hintsOf(card("questions:\n  - how do I back up?\n  - '  where is  it '\n"), "questions")).toEqual(["how do I back up?", "where is it"]);
    expect(hintsOf(card("faq: just one\n"), "faq")).toEqual(["just one"]);
    expect(hintsOf(card("questions: [1, {a: b}, ok]\n"), "questions")).toEqual(["ok"]);
    expect(hintsOf(card(""), "questions")).toEqual([]);
  });

  it("tells missing, current, stale and the person's own hints apart", () => {
    expect(hintState(card(""), "questions")).toBe("missing");
    expect(hintState(card("questions: [written by hand]\n"), "questions")).toBe("person's");
    const base = card("");
    const hints = ["how do I back up?"];
    const version = formatHintVersion({ content: contentHash(base), hints: hintsHash(hints) });
    const fm = `questions: ["how do I back up?"]\nquestions-for: "${version}"\n`;
    expect(hintState(card(fm), "questions")).toBe("current");
    expect(hintState(card(fm, "Body text, now changed."), "questions")).toBe("stale");
    expect(hintState(card(fm.replace("back up", "restore"), "Body text, now changed."), "questions")).toBe("person's");
    // Emptied by the person: never written again.
    expect(hintState(card(`questions: []\nquestions-for: "${version}"\n`, "Body text, now changed."), "questions")).toBe("person's");
    expect(hintState(card("questions: []\n"), "questions")).toBe("person's");
  });
});
