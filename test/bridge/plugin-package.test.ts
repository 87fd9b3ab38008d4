/** The Claude Code plugin package: what an install copies must be the current build, and pass the CLI's own validation. */

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers";
import { BRIDGE_FILE, BRIDGE_FILES, OUR_HOOKS } from "../../src/core/install/hook-commands";
import { CLAUDE, claudeAvailable } from "../e2e/claude-driver";

const PLUGIN = join(ROOT, "claude-plugin");
const inGit = spawnSync("git", ["-C", ROOT, "rev-parse", "HEAD"]).status === 0;

describe("the plugin package", () => {
  it.each([...BRIDGE_FILES, "vault-memory-mcp.cjs"])("carries the bridge's build as scripts/%s", (name) => {
    expect(readFileSync(join(PLUGIN, "scripts", name)).equals(readFileSync(join(ROOT, "hook-bridge", "dist", name)))).toBe(true);
  });

  it("is built as the files a bridge copy is made of, and its hooks run the entry", () => {
    const built = readdirSync(join(ROOT, "hook-bridge", "dist")).filter((f) => !f.startsWith("."));
    expect(built.sort()).toEqual([...BRIDGE_FILES, "vault-memory-mcp.cjs"].sort());
    const hooks = readFileSync(join(PLUGIN, "hooks", "hooks.json"), "utf8");
    expect(hooks.match(/scripts\/[\w.-]+/g)).toEqual(Array(OUR_HOOKS.length).fill(`scripts/${BRIDGE_FILE}`));
  });

  // An installed plugin is a copy of the repository and runs no build, so what is committed is what
  // people run. `npm run build` rewrites the scripts; staged or committed, they must not differ.
  it.skipIf(!inGit)("has its built scripts committed as the build makes them", () => {
    const r = spawnSync("git", ["-C", ROOT, "diff", "--stat", "--", "claude-plugin/scripts"], { encoding: "utf8" });
    expect(r.stdout, "claude-plugin/scripts differs from the build: run `npm run build` and commit claude-plugin/scripts").toBe("");
    const tracked = spawnSync("git", ["-C", ROOT, "ls-files", "claude-plugin/scripts"], { encoding: "utf8" }).stdout.trim().split("\n");
    expect(tracked.sort()).toEqual([...BRIDGE_FILES, "vault-memory-mcp.cjs"].map((f) => `claude-plugin/scripts/${f}`).sort());
  });

  it("asks for the vault at install, and hooks read it from their environment", () => {
    const manifest = JSON.parse(readFileSync(join(PLUGIN, ".claude-plugin", "plugin.json"), "utf8")) as {
      userConfig: Record<string, { type: string; required?: boolean }>;
    };
    expect(manifest.userConfig.vault).toMatchObject({ type: "directory", required: true });
    // Claude Code refuses ${user_config.*} in shell-form hook commands; the option arrives as CLAUDE_PLUGIN_OPTION_VAULT.
    expect(readFileSync(join(PLUGIN, "hooks", "hooks.json"), "utf8")).not.toContain("user_config");
    const mcp = JSON.parse(readFileSync(join(PLUGIN, ".mcp.json"), "utf8")) as { mcpServers: Record<string, { args: string[]; env: Record<string, string> }> };
    expect(mcp.mcpServers["vault-memory"].args[0]).toBe("${CLAUDE_PLUGIN_ROOT}/scripts/vault-memory-mcp.cjs");
    expect(mcp.mcpServers["vault-memory"].env.VAULT_MEMORY_VAULT).toBe("${user_config.vault}");
  });

  it.skipIf(!claudeAvailable).each([["claude-plugin"], ["."]])("passes `claude plugin validate --strict %s` with no warning", (dir) => {
    const r = spawnSync(CLAUDE, ["plugin", "validate", "--strict", "--json", dir], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      success: boolean;
      manifest: { errors: unknown[]; warnings: unknown[] };
      directory?: { warnings?: unknown[]; findings?: unknown[] };
    };
    expect(report.success).toBe(true);
    expect(report.manifest.errors).toEqual([]);
    expect(report.manifest.warnings).toEqual([]);
    const human = spawnSync(CLAUDE, ["plugin", "validate", dir], { cwd: ROOT, encoding: "utf8" }).stdout;
    expect(human).not.toMatch(/warning/i);
  });
});
