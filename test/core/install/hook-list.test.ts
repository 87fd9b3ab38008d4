/**
 * The hooks Vault Memory installs are listed once (OUR_HOOKS): the terminal's install and
 * Obsidian's Connect write them from it, and the Claude Code plugin's hooks.json must say the same,
 * or one route would lose a hook (a compaction's brief, say) the others have.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OUR_HOOKS } from "../../../src/core/install/hook-commands";
import { ROOT } from "../../helpers";

interface Entry {
  matcher?: string;
  hooks: { type: string; command: string; timeout: number }[];
}

describe("the plugin's hooks.json", () => {
  it("registers exactly OUR_HOOKS: each event, command, timeout and matcher", () => {
    const json = JSON.parse(readFileSync(join(ROOT, "claude-plugin", "hooks", "hooks.json"), "utf8")) as { hooks: Record<string, Entry[]> };
    const listed = Object.entries(json.hooks).flatMap(([event, entries]) =>
      entries.flatMap((e) =>
        e.hooks.map((h) => ({ event, command: /vault-memory\.cjs" (\w+)$/.exec(h.command)?.[1], timeout: h.timeout, matcher: e.matcher })),
      ),
    );
    const expected = OUR_HOOKS.map((h) => ({ event: h.event, command: h.command, timeout: h.timeout, matcher: h.matcher }));
    const key = (x: { event: string }): string => x.event;
    expect(listed.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(expected.sort((a, b) => key(a).localeCompare(key(b))));
  });
});
