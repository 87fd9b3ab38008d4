/** The digest's command runner: a deadline that neither detached children nor open pipes outlive. */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { runCommand } from "../../../src/core/llm/run-command";
import { runDigest } from "../../../src/core/digest/run";
import { SAMPLE_VAULT, copyVault, tempDir } from "../../helpers";
import { until } from "../../wait";

// The fake commands detach the way a daemonising child does: a new session, out of the process group.
const posix = process.platform !== "win32" && spawnSync("/bin/sh", ["-c", "command -v setsid"]).status === 0;

/** A file the fake command's processes append their pids to, and the shell line that does it. */
function pidFile(): { path: string; note: string; waitFor: (n: number) => string } {
  const path = join(tempDir(), "pids");
  const quoted = JSON.stringify(path);
  // A shell loop until n processes have noted themselves: the command answers only once its
  // detached child is running, however slowly the machine starts it.
  const waitFor = (n: number) => `until [ "$(cat ${quoted} 2>/dev/null | wc -l)" -ge ${n} ]; do sleep 0.05; done`;
  return { path, note: `echo $$ >> ${quoted}`, waitFor };
}

function pids(path: string): number[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).map(Number) : [];
}

/** Alive and not a zombie: a container's init may never reap what it inherits. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return process.platform === "linux" ? false : true;
  }
}

/**
 * Waits until every process the fake command started is gone. SIGKILL is delivered at once but
 * the kernel takes a moment to tear a process down; one that was never killed sleeps far longer
 * than the test may run, so it fails the test at its timeout.
 */
async function allEnded(path: string, expected: number): Promise<void> {
  const all = pids(path);
  expect(all, "the fake command did not start all its processes").toHaveLength(expected);
  await until(() => !all.some(alive));
}

// The deadline under test must not fall before the fake command has started its processes (a
// few milliseconds); this leaves a thousandfold margin for a busy machine.
const SETUP_MARGIN_MS = 5000;

describe.skipIf(!posix)("runCommand", () => {
  it("returns at the timeout when a detached child holds its output open, and kills that child", async () => {
    const p = pidFile();
    // Were the call to wait for the detached child's output to close, it would wait an hour.
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 3600' & ${p.waitFor(2)}; sleep 3600`], "", { timeoutMs: SETUP_MARGIN_MS });
    expect(r.timedOut).toBe(true);
    await allEnded(p.path, 2);
  });

  it("returns as soon as the command exits, with its answer, though a detached child still holds its output", async () => {
    const p = pidFile();
    // The timeout and the child's sleep lie far beyond the test's own timeout: waiting for either fails it.
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 3600' & ${p.waitFor(2)}; echo answer`], "", { timeoutMs: 3_600_000 });
    expect(r).toMatchObject({ code: 0, stdout: "answer\n", timedOut: false });
    await allEnded(p.path, 2);
  });

  it("kills the whole process tree at the timeout, without an external timeout command", async () => {
    const p = pidFile();
    // A grandchild in the command's own process group, as a shell's `&` makes.
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; ( /bin/sh -c '${p.note}; exec sleep 3600' ) & ${p.waitFor(2)}; sleep 3600`], "", { timeoutMs: SETUP_MARGIN_MS });
    expect(r.timedOut).toBe(true);
    await allEnded(p.path, 2);
  });

  it.skipIf(process.platform !== "linux")("kills a child that left the session and lost its parent, even with its output closed", async () => {
    const p = pidFile();
    // The subshell exits at once, so the sleeper is orphaned: neither the group nor the parent chain leads to it.
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; ( setsid /bin/sh -c '${p.note}; exec sleep 3600' </dev/null >/dev/null 2>&1 & ); ${p.waitFor(2)}; sleep 3600`], "", { timeoutMs: SETUP_MARGIN_MS });
    expect(r.timedOut).toBe(true);
    await allEnded(p.path, 2);
  });

  it("keeps a character whole when the pipe splits it between two reads", async () => {
    const r = await runCommand(["/bin/sh", "-c", "printf '\\346'; sleep 0.2; printf '\\216\\222\\347\\250\\213'"], "", { timeoutMs: 3_600_000 });
    expect(r).toMatchObject({ code: 0, stdout: "排程" });
  });

  it("runs the report command under the digest's timeout, and kills what it started", async () => {
    const p = pidFile();
    const vault = copyVault(SAMPLE_VAULT, "Report vault");
    const config = defaultConfig();
    config.digest.command = ["/bin/cat"];
    config.digest.timeoutSec = 1;
    config.digest.reportCommand = `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 3600' & sleep 3600; cat`;
    const r = await runDigest({ vault, config });
    expect(r.ok).toBe(true);
    expect(r.notify).toMatch(/report command: no end within 1 s/);
    await allEnded(p.path, 2);
  });
});
