// @vitest-environment happy-dom
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyFix } from "../../src/plugin/lint-fixes";
import { parseCard } from "../../src/core/card/card";
import { restoredText } from "../../src/core/digest/retire";
import { App } from "../fakes/obsidian";
import { vaultWith } from "../helpers";

const CARD = "---\nname: Old deploy\ndescription: How deploys went before Argo\ntype: reference\ntags: [deploy]\n---\nJenkins job deploy-prod.\n";

describe("the lint report's archive fix", () => {
  it("archives as the night and archive_card do: the status, the day and why, all of which restore takes out", async () => {
    const vault = vaultWith({ "reference/old-deploy.md": CARD });
    const app = new App(vault);
    const said = await applyFix(app as never, {
      rule: "unused-card",
      severity: "info",
      file: "reference/old-deploy.md",
      line: 1,
      message: "not recalled",
      fix: { kind: "archive", reason: "not recalled, read or linked in 90 days" },
    });
    expect(said).toBe("Archived reference/old-deploy.md: it stays in the vault and is no longer recalled.");
    const text = readFileSync(join(vault, "reference/old-deploy.md"), "utf8");
    const fm = parseCard("reference/old-deploy.md", text).frontmatter;
    expect(fm).toMatchObject({ status: "archived", "archived-reason": "not recalled, read or linked in 90 days (archived from the lint report)" });
    expect(String(fm.archived)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Restoring takes out all that archiving put in.
    const restored = parseCard("reference/old-deploy.md", restoredText("reference/old-deploy.md", text));
    expect(Object.keys(restored.frontmatter)).toEqual(["name", "description", "type", "tags"]);
    expect(restored.body).toContain("Jenkins job deploy-prod.");
  });
});
