import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers";

// recall imports embed (its types, and similar-meaning its client): embed never imports recall,
// so the two rooms do not lean on each other (docs/architecture.md, "Rooms").
describe("the embed room", () => {
  it("imports nothing of recall", () => {
    const dir = join(ROOT, "src", "core", "embed");
    const leaning = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .filter((f) => /from\s+["']\.\.\/recall\//.test(readFileSync(join(dir, f), "utf8")));
    expect(leaning).toEqual([]);
  });
});
