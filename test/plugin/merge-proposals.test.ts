// @vitest-environment happy-dom
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type VaultMemoryPlugin from "../../src/plugin/main";
import { QUEUE_VIEW_TYPE, QueueReviewView } from "../../src/plugin/queue-view";
import { consolidateVault } from "../../src/core/digest/consolidate-run";
import { listProposals } from "../../src/core/digest/consolidate";
import { parseCard } from "../../src/core/card/card";
import { defaultConfig } from "../../src/core/config";
import { App, Notice } from "../fakes/obsidian";
import { tempDir, vaultWith } from "../helpers";
import { canScreenshot, NO_PROBLEMS, problems, renderView, shownHtml } from "../screenshot";
import { startPlugin } from "./start-plugin";

let plugin: VaultMemoryPlugin | undefined;
afterEach(() => plugin?.unload());

const card = (name: string, body: string) =>
  `---\nname: ${name}\ndescription: ${name}\ntype: reference\ntags: [db]\nproject: billing-api\nsource: session s1\nupdated: 2026-05-01\n---\n${body}\n`;

/** A stand-in LLM that merges by keeping every line of every card once. */
function mergingCommand(): string[] {
  const script = join(tempDir(), "merge.cjs");
  writeFileSync(
    script,
    `let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const bodies = [...s.matchAll(/<card path="[^"]*">\\n---[\\s\\S]*?\\n---\\n([\\s\\S]*?)\\n<\\/card>/g)].map((m) => m[1].trim());
  const body = [...new Set(bodies.flatMap((b) => b.split("\\n")))].join("\\n\\n");
  process.stdout.write(JSON.stringify({ action: "merge", name: "PgBouncer for billing-api", description: "How PgBouncer is set up for billing-api", tags: ["db"], body }));
});
`,
  );
  return [process.execPath, script];
}

describe("merge proposals in the queue sidebar", () => {
  it("lists what each would merge into what, and Merge makes it", async () => {
    const vault = vaultWith({
      "reference/pgbouncer-mode.md": card(
        "PgBouncer mode",
        "PgBouncer runs in transaction mode in front of Postgres for billing-api; pool `default_pool_size=20`.",
      ),
      "reference/pgbouncer-prisma.md": card(
        "PgBouncer and Prisma",
        "PgBouncer runs in transaction mode in front of Postgres for billing-api; Prisma needs `pgbouncer=true`.",
      ),
    });
    const config = defaultConfig();
    config.digest.command = mergingCommand();
    await consolidateVault({ vault, config, propose: true });
    expect(listProposals(vault)).toHaveLength(1);
    const app = new App(vault);
    plugin = await startPlugin(app);
    await plugin.openQueue();
    const view = app.workspace.getLeavesOfType(QUEUE_VIEW_TYPE)[0]?.view;
    if (!(view instanceof QueueReviewView)) throw new Error("no queue view");
    const part = view.contentEl.querySelector<HTMLElement>(".vault-memory-proposals")!;
    expect(part.textContent).toContain("1 merge proposed");
    expect(part.textContent).toContain("PgBouncer for billing-api");
    expect(part.textContent).toMatch(/Into .*pgbouncer-.*, from .*pgbouncer-/);
    if (canScreenshot) expect(problems(renderView("queue-merge-proposal", shownHtml(view.contentEl)))).toEqual(NO_PROBLEMS);
    const from = Notice.shown.length;
    [...part.querySelectorAll("button")].find((b) => b.textContent === "Merge")!.click();
    expect(Notice.shown.slice(from).map((n) => n.message)).toEqual([
      expect.stringMatching(/^Merged 1 card into reference\/pgbouncer-.*; they stay, marked merged, linking to it\.$/),
    ]);
    expect(listProposals(vault)).toEqual([]);
    expect(view.contentEl.querySelector(".vault-memory-proposals")).toBeNull();
    const statuses = ["reference/pgbouncer-mode.md", "reference/pgbouncer-prisma.md"]
      .map((p) => parseCard(p, readFileSync(join(vault, p), "utf8")).status)
      .sort();
    expect(statuses).toEqual(["", "merged"]);
  });
});
