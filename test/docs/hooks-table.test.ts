/**
 * docs/prompt-hook.md's table of hooks says which Claude Code event runs which command, and from
 * which file: it must list exactly the hooks install registers (OUR_HOOKS), each with a source
 * file that exists, or a reader is sent to the wrong code.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OUR_HOOKS } from "../../src/core/install/hook-commands";
import { ROOT } from "../helpers";

/** The rows of the table whose first column is a Claude Code event, as [event, command, source]. */
function hookRows(): string[][] {
  const text = readFileSync(join(ROOT, "docs", "prompt-hook.md"), "utf8");
  const section = text.slice(text.indexOf("## Which hook runs what"), text.indexOf("\n## ", text.indexOf("## Which hook runs what") + 1));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/`/g, "")),
    )
    .map(([event, command, , source]) => [event, command, source]);
}

describe("docs/prompt-hook.md's table of hooks", () => {
  it("lists exactly the hooks install registers", () => {
    expect(
      hookRows()
        .map(([event, command]) => `${event} ${command}`)
        .sort(),
    ).toEqual(OUR_HOOKS.map((h) => `${h.event} ${h.command}`).sort());
  });

  it("names a source that exists for each", () => {
    for (const [, , source] of hookRows()) expect(existsSync(join(ROOT, source)), source).toBe(true);
  });
});
