/** Cards written outside Obsidian are recalled from the next session on: the session start brings the snapshot up to date. */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { overlayPathOf } from "../../src/core/snapshot/format";
import { SnapshotReader } from "../../src/core/snapshot/read";
import { SAMPLE_VAULT, copyVault, hookJson, runBridge } from "../helpers";
import { until } from "../wait";

const start = (vault: string) => runBridge(["remind", "--vault", vault], JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "startup", cwd: "" }));
const recall = (vault: string, prompt: string) => runBridge(["recall", "--vault", vault], hookJson(prompt)).stdout;

function card(vault: string, rel: string, text: string): void {
  mkdirSync(join(vault, rel, ".."), { recursive: true });
  writeFileSync(join(vault, rel), text);
}

describe("a session start after cards were written by plain file I/O", () => {
  it("recalls the new card at the first prompt, with no index run", () => {
    const vault = copyVault(SAMPLE_VAULT, "Fresh vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    card(vault, "debugging/zeppelin-mast.md", "---\nname: Zeppelin mast\ndescription: the zeppelin moors at the mast before the hangar opens\ntype: debugging\ntags: [airship]\n---\nMoor the zeppelin at the mast, then open the hangar doors.\n");
    expect(recall(vault, "where does the zeppelin moor before the hangar")).not.toContain("zeppelin-mast.md");
    const r = start(vault);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain("systemMessage");
    expect(existsSync(overlayPathOf(vaultFiles.snapshot(vault)))).toBe(true);
    expect(recall(vault, "where does the zeppelin moor before the hangar")).toContain("zeppelin-mast.md");
    // Files copied in just before the index may be read again too: how many is the clock's.
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/brought the snapshot up to date: \d+ card files? changed/);
  });

  it("hands a larger change to an index in the background, tells the person, and never waits for it", async () => {
    const vault = copyVault(SAMPLE_VAULT, "Many new cards");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    for (let i = 0; i < 60; i++) card(vault, `reference/bulk-${i}.md`, `---\ndescription: bulk card ${i} about the weather station ${i}\n---\nweather station ${i} readings\n`);
    const r = start(vault);
    expect(r.status).toBe(0);
    const said = (JSON.parse(r.stdout) as { systemMessage?: string }).systemMessage ?? "";
    expect(said).toMatch(/\d+ cards changed since the last index; it is being rebuilt in the background/);
    // The index the session start left running brings them in.
    const cards = () => {
      try {
        const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
        reader.close();
        return reader.docCount;
      } catch {
        return 0;
      }
    };
    await until(() => cards() === 75);
    expect(recall(vault, "weather station 42 readings")).toContain("bulk-42.md");
  });
});
