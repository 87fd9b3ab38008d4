import { describe, expect, it } from "vitest";
import { closesFence, opensFence, readBody } from "../../../src/core/card/markdown";

describe("code fences, as CommonMark and Obsidian read them", () => {
  it("opens a block on three backticks or tildes, indented at most three spaces", () => {
    expect(opensFence("```")).toBe("```");
    expect(opensFence("   ~~~~ yaml")).toBe("~~~~");
    expect(opensFence("    ```")).toBe("");
    expect(opensFence("``")).toBe("");
  });

  it("opens a block on a fence followed by inline code, as Obsidian does", () => {
    expect(opensFence("```Stack1``` and the rest")).toBe("```");
  });

  it("closes a block only on a bare fence of its character, at least as long", () => {
    expect(closesFence("```", "```")).toBe(true);
    expect(closesFence("`````  ", "````")).toBe(true);
    expect(closesFence("```yaml", "```")).toBe(false);
    expect(closesFence("```", "````")).toBe(false);
    expect(closesFence("~~~", "```")).toBe(false);
  });

  it("finds no heading inside code, and the ones after it", () => {
    const body = ["```", "```yaml", "## Inside", "```", "## After", "```x``` text", "## Swallowed"].join("\n");
    expect(readBody(body).headings.map((h) => h.text)).toEqual(["After"]);
  });
});
