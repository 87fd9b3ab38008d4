import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { listPending } from "../../src/core/queue/queue-store";
import { vaultFiles } from "../../src/core/paths";
import { jsonl, line } from "../fixtures/transcript";
import { copyVault, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";

const LONG = "A reply long enough to count as real work in this conversation, with details.";

/** A copy of the sample vault with `n` conversations waiting. */
function vaultWithQueue(n: number): string {
  const vault = copyVault(SAMPLE_VAULT);
  const dir = tempDir();
  for (let i = 0; i < n; i++) {
    const path = join(dir, `s${i}.jsonl`);
    writeFileSync(path, jsonl([line.prompt(`question one of session ${i}`), line.reply(LONG), line.prompt(`question two of session ${i}`), line.reply(LONG)]));
    captureSession(vault, { sessionId: `s${i}`, transcriptPath: path, cwd: "/work/project", stopHookActive: false }, DEFAULT_QUEUE_RULES);
  }
  expect(listPending(vault)).toHaveLength(n);
  return vault;
}

// A PATH with a shell and nothing else, so no claude is found on it or on the login shell's.
const NO_CLAUDE = { PATH: "/usr/bin:/bin", SHELL: "/bin/sh", HOME: tempDir() };

describe("digest from a terminal, when it cannot start", () => {
  it("exits 1 and says so when the binary set in the settings does not exist", () => {
    const vault = vaultWithQueue(4);
    mkdirSync(vaultFiles.dir(vault), { recursive: true });
    writeFileSync(vaultFiles.config(vault), JSON.stringify({ digest: { binary: "/nonexistent/bin/claude" } }));
    const r = runBridge(["digest", "--vault", vault], "", NO_CLAUDE);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the LLM binary "/nonexistent/bin/claude" set in the digest settings does not exist or is not executable');
    expect(r.stderr).toContain("4 conversations wait in the queue");
    expect(listPending(vault)).toHaveLength(4);
  });

  it("does not report an empty queue on a dry run without claude", () => {
    const vault = vaultWithQueue(4);
    const r = runBridge(["digest", "--vault", vault, "--dry-run"], "", NO_CLAUDE);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toMatch(/0 left in the queue|would have created 0/);
    expect(r.stderr).toMatch(/digest stopped: cannot find "claude".*; 4 conversations wait in the queue/);
  });
});
