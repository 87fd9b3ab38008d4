/**
 * A failing command with the real Claude Code CLI: the stand-in model runs a Bash command that
 * fails with an error a card explains, and the card reaches the model's next request as the
 * PostToolUseFailure hook's context.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_VAULT, copyVault, runBridge } from "../helpers";
import { claudeAvailable as available, claudeRig, type ClaudeRig } from "./claude-driver";

describe.skipIf(!available)("recall when a command fails, with the real Claude Code CLI", () => {
  let rig: ClaudeRig;
  beforeAll(async () => {
    const vault = copyVault(SAMPLE_VAULT, "Failure vault");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    rig = await claudeRig(vault);
  });
  afterAll(async () => {
    await rig?.close();
  });

  it("brings the card that explains the error into the model's next request", async () => {
    let n = 0;
    const command = "printf 'nightly.sh: line 4: claude: command not found\\nthe nightly digest failed under launchd\\n' >&2; exit 127";
    rig.stub.reply = () => (n++ === 0 ? [{ name: "Bash", input: { command, description: "run the nightly job" } }] : "Done.");
    const r = await rig.run(["-p", "go ahead and run it", "--allowedTools", "Bash", "--output-format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const afterFailure = rig.stub.requests.find((b) => b.includes('"is_error":true')) ?? "";
    expect(afterFailure).toMatch(/PostToolUseFailure:Bash hook additional context: <vault-memory-notes>[^]*launchd-cron-path\.md/);
  }, 120_000);
});
