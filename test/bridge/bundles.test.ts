import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRIDGE_FILES } from "../../src/core/install/hook-commands";
import { parseCard } from "../../src/core/card/card";
import { ROOT } from "../helpers";

// What runs code from a string: a note's frontmatter reaching either would be a note that runs.
const RUNS_STRINGS = /new Function\b|(?<![\w.$])eval\(/;

describe("the built bundles", () => {
  it("hold no eval and no new Function: the plugin and the hook bridge", () => {
    for (const file of ["main.js", ...BRIDGE_FILES.map((f) => join("hook-bridge", "dist", f))]) {
      const text = readFileSync(join(ROOT, file), "utf8");
      expect(RUNS_STRINGS.exec(text)?.[0], file).toBeUndefined();
    }
  });

  it("still read YAML frontmatter, and still refuse JavaScript frontmatter", () => {
    expect(parseCard("a.md", "---\nname: A\ntags: [x, y]\n---\nBody\n").frontmatter).toMatchObject({ name: "A", tags: ["x", "y"] });
    expect(parseCard("b.md", "---js\n{ name: (() => { throw new Error('ran') })() }\n---\nBody\n").frontmatterError).toMatch(/not run/);
    expect(parseCard("c.md", "---\nf: !!js/function 'function () { return 1 }'\n---\nBody\n").frontmatterError).not.toBe("");
  });
});
