import { describe, expect, it } from "vitest";
import { closesFence, opensFence, readBody, unlinkUnresolved } from "../../../src/core/card/markdown";

describe("code fences, as CommonMark and Obsidian read them", () => {
  it("opens a block on three backticks or tildes, indented at most three spaces", () => {
    expect(opensFence("```")).toBe("```");
    expect(opensFence("   ~~~~ yaml")).toBe("~~~~");
    expect(opensFence("    ```")).toBe("");
    // A list's code block, indented with a tab as Obsidian indents lists.
    expect(opensFence("\t```bash")).toBe("```");
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

  it("leaves code in a list's tab-indented block as it is: no heading, no link", () => {
    const body = ["- Install:", "\t```bash", "\t# install deps", '\tif [[ -f "$CFG" ]]; then npm ci; fi', "\t```", "## Next"].join("\n");
    expect(readBody(body).headings.map((h) => h.text)).toEqual(["Next"]);
    expect(unlinkUnresolved(body, () => false).text).toBe(body);
  });
});
