// @vitest-environment happy-dom
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type VaultMemoryPlugin from "../../src/plugin/main";
import { App, Notice, TFile } from "../fakes/obsidian";
import { vaultWith } from "../helpers";
import { until } from "../wait";
import { startPlugin } from "./start-plugin";

let plugin: VaultMemoryPlugin | undefined;
afterEach(() => plugin?.unload());

const CARD = "---\nname: Old deploy\ndescription: How deploys went before Argo\ntype: reference\ntags: [deploy]\n---\nJenkins job deploy-prod.\n";
const ARCHIVED = CARD.replace(
  "tags: [deploy]\n",
  'tags: [deploy]\nstatus: archived\narchived: "2026-12-06"\narchived-reason: not recalled, read or linked in 90 days\n',
);

describe("Restore archived card", () => {
  it("is offered for an archived card only, and gives it back with its properties as they were", async () => {
    const vault = vaultWith({ "reference/old-deploy.md": ARCHIVED, "reference/live.md": CARD.replace("Old deploy", "Live") });
    const app = new App(vault);
    plugin = await startPlugin(app);
    const command = app.commands.get("vault-memory:restore-archived-card")!;
    const open = (path: string) => (app.workspace.activeFile = app.vault.getAbstractFileByPath(path) as TFile);
    open("reference/live.md");
    expect(command.checkCallback?.(true)).toBe(false);
    open("reference/old-deploy.md");
    expect(command.checkCallback?.(true)).toBe(true);
    command.checkCallback?.(false);
    await until(() => Notice.shown.some((n) => n.message === "Restored reference/old-deploy.md: recall shows it again."));
    expect(readFileSync(join(vault, "reference/old-deploy.md"), "utf8")).not.toMatch(/status|archived/);
    expect(readFileSync(join(vault, "reference/old-deploy.md"), "utf8")).toContain("Jenkins job deploy-prod.");
  });
});
