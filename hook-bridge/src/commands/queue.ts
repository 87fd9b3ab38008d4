/** `queue`: the Stop hook. Queues the session when it is worth keeping; prints nothing, exits 0. */

import type { Args } from "../args";
import { readHookInput, str } from "../hook-input";
import { findVault } from "../vault";
import { logWithoutVault } from "../no-vault";
import { vaultConfig } from "../settings";
import { appendLog } from "../../../src/core/io/log";
import { vaultFiles } from "../../../src/core/paths";
import { captureSession } from "../../../src/core/queue/capture";

/** `wanted` is the "remember this" path: queue now, whatever the thresholds say. */
export function queueCommand(args: Args, wanted = false): number {
  let logPath = "";
  const name = wanted ? "remember" : "queue";
  try {
    const found = findVault(args);
    if ("problem" in found) {
      logWithoutVault(name, found);
      return 0;
    }
    const vault = found.vault;
    logPath = vaultFiles.log(vault);
    const input = readHookInput();
    if (!input) {
      appendLog(logPath, name, "stdin is not a hook payload");
      return 0;
    }
    const config = vaultConfig(vault, (p) => appendLog(logPath, name, `config: ${p}`));
    // Given a prompt hook's payload, the prompt is not in the transcript yet: it goes in from the
    // payload, and the turn's Stop hook adds the reply.
    const prompt = wanted && typeof input.prompt === "string" ? input.prompt : undefined;
    const result = captureSession(
      vault,
      {
        sessionId: str(input, "session_id"),
        transcriptPath: str(input, "transcript_path"),
        cwd: str(input, "cwd"),
        stopHookActive: input.stop_hook_active === true,
        lastReply: str(input, "last_assistant_message"),
      },
      config.queue,
      { wanted, prompt, midTurn: prompt !== undefined },
    );
    // Every turn that ends without queuing says why: a silent hook is indistinguishable from a broken one.
    if (!result.queued) appendLog(logPath, name, `not queued: ${result.reason}`);
    else if (result.unread) appendLog(logPath, name, `queued from the hook's payload alone: ${result.unread}`);
    return 0;
  } catch (err) {
    if (logPath) appendLog(logPath, name, err instanceof Error ? err.message : String(err));
    return 0;
  }
}
