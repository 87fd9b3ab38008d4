/** The LLM command line: the flags claude always gets, and the person's flags that would undo them. */

import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { llmCommand } from "../../../src/core/llm/llm";
import { runDigest } from "../../../src/core/digest/run";
import { SAMPLE_VAULT, copyVault } from "../../helpers";

describe("llmCommand", () => {
  it("gives Claude Code, by any path or name, no tools, MCP servers, project settings or hooks", () => {
    for (const [binary, command] of [
      ["/usr/local/bin/claude", ["claude", "-p", "--output-format", "json"]],
      ["C:\\Users\\me\\.local\\bin\\claude.exe", ["claude", "-p"]],
      ["/opt/wrappers/my-llm", ["claude", "-p"]],
    ] as const) {
      const line = llmCommand(binary, command, "sonnet");
      expect(line.slice(0, command.length)).toEqual([binary, ...command.slice(1)]);
      expect(line.join(" ")).toContain("--model sonnet");
      expect(line.slice(line.indexOf("--tools"), line.indexOf("--tools") + 2)).toEqual(["--tools", ""]);
      expect(line).toContain("--strict-mcp-config");
      expect(line.slice(line.indexOf("--setting-sources"), line.indexOf("--setting-sources") + 2)).toEqual(["--setting-sources", "user"]);
      expect(line.slice(line.indexOf("--settings"), line.indexOf("--settings") + 2)).toEqual(["--settings", '{"disableAllHooks":true}']);
      expect(line.slice(line.indexOf("--permission-mode"), line.indexOf("--permission-mode") + 2)).toEqual(["--permission-mode", "dontAsk"]);
    }
  });

  it("runs a custom command that is not claude as configured", () => {
    expect(llmCommand("/usr/bin/llm", ["llm", "-m", "local"], "")).toEqual(["/usr/bin/llm", "-m", "local"]);
  });

  it.each(["--tools", "--allowedTools=Bash", "--mcp-config", "--dangerously-skip-permissions", "--permission-mode", "--settings", "--plugin-dir"])(
    "refuses a claude command that sets %s",
    (flag) => {
      expect(() => llmCommand("/usr/local/bin/claude", ["claude", "-p", flag, "x"], "")).toThrow(
        new RegExp(`must not set ${flag.split("=")[0]}: the digest runs claude without tools`),
      );
    },
  );

  it("stops the night with that reason rather than running claude with tools", async () => {
    const config = defaultConfig();
    config.digest.command = ["/bin/claude-not-here/claude", "-p", "--dangerously-skip-permissions"];
    config.digest.binary = "/bin/sh";
    const r = await runDigest({ vault: copyVault(SAMPLE_VAULT), config, dryRun: true });
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/must not set --dangerously-skip-permissions/) as string });
  });
});
