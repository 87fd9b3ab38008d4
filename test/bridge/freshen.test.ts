/** Cards written outside Obsidian are recalled from the next session on: the session start brings the snapshot up to date. */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { overlayPathOf } from "../../src/core/snapshot/format";
import { SnapshotReader } from "../../src/core/snapshot/read";
import { ROOT, SAMPLE_VAULT, copyVault, hookJson, runBridge } from "../helpers";
import { until } from "../wait";

const start = (vault: string) =>
  runBridge(["remind", "--vault", vault], JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "startup", cwd: "" }));
const recall = (vault: string, prompt: string) => runBridge(["recall", "--vault", vault], hookJson(prompt)).stdout;

function card(vault: string, rel: string, text: string): void {
  mkdirSync(join(vault, rel, ".."), { recursive: true });
  writeFileSync(join(vault, rel), text);
}

describe("a session start after cards were written by plain file I/O", () => {
  it("recalls the new card at the first prompt, with no index run", () => {
    const vault = copyVault(SAMPLE_VAULT, "Fresh vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    card(
      vault,
      "debugging/zeppelin-mast.md",
      "---\nname: Zeppelin mast\ndescription: the zeppelin moors at the mast before the hangar opens\ntype: debugging\ntags: [airship]\n---\nMoor the zeppelin at the mast, then open the hangar doors.\n",
    );
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
    for (let i = 0; i < 60; i++)
      card(vault, `reference/bulk-${i}.md`, `---\ndescription: bulk card ${i} about the weather station ${i}\n---\nweather station ${i} readings\n`);
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

describe("index --changed", () => {
  it("brings in only what changed, says when nothing did, and indexes everything when much did", () => {
    const vault = copyVault(SAMPLE_VAULT, "Changed only");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    card(vault, "debugging/zeppelin-mast.md", "---\ndescription: the zeppelin moors at the mast\n---\nzeppelin mast\n");
    const r = runBridge(["index", "--vault", vault, "--changed"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^brought the snapshot up to date: \d+ card files? changed/);
    // Run detached by a session start, its output unread: the log is where a person finds it.
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/ index brought the snapshot up to date: 1 card file changed/);
    expect(runBridge(["index", "--vault", vault, "--changed"]).stdout).toMatch(/^the snapshot is current/);
    for (let i = 0; i < 210; i++) card(vault, `reference/bulk-${i}.md`, `bulk card ${i}`);
    const many = runBridge(["index", "--vault", vault, "--changed"]);
    expect(many.stderr).toMatch(/\d+ card files changed since the snapshot, more than 200; indexing everything/);
    expect(many.stdout).toMatch(/^indexed 226 cards/);
  });

  it("is what a session start in a large vault leaves to a process of its own, never waiting on it", async () => {
    const vault = copyVault(SAMPLE_VAULT, "Large enough");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    card(
      vault,
      "debugging/zeppelin-mast.md",
      "---\ndescription: the zeppelin moors at the mast before the hangar opens\n---\nMoor the zeppelin at the mast before the hangar opens.\n",
    );
    const { freshen } = await import("../../hook-bridge/src/freshen");
    const { defaultConfig } = await import("../../src/core/config");
    const said: string[] = [];
    // As if the vault were past the cards a session start lists itself.
    const r = freshen(vault, defaultConfig(), (m) => said.push(m), join(ROOT, "hook-bridge", "dist", "vault-memory.cjs"), undefined, 10);
    expect(r.notice).toBe("");
    expect(said).toEqual(["looking for changed card files in the background (a large vault)"]);
    await until(() => existsSync(overlayPathOf(vaultFiles.snapshot(vault))));
    await until(() => recall(vault, "where does the zeppelin moor before the hangar").includes("zeppelin-mast.md"));
  });
});
