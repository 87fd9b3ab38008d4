/** The digest's command runner: a deadline that neither detached children nor open pipes outlive. */

import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { runCommand } from "../../../src/core/llm/run-command";
import { runDigest } from "../../../src/core/digest/run";
import { SAMPLE_VAULT, alive, copyVault, tempDir } from "../../helpers";
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

/** Processes alive with `name=value` in their environment, which every process a command starts inherits (Linux). */
function carrying(name: string, value: string): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "latin1").includes(`${name}=${value}\0`) && alive(pid);
      } catch {
        return false;
      }
    });
}

// A deadline no test reaches: the tests stop the command themselves, once its processes run, by
// the path its deadline takes; the deadline's own timer is tested once, on a command with no children.
const NEVER_MS = 3_600_000;

/** Starts a run and stops it once `ready` holds; one that ends first by itself is returned as it ended, for the test to find. */
async function stopOnce<T>(ready: () => boolean, start: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  let ended = false;
  const run = start(stop.signal).finally(() => (ended = true));
  await until(() => ended || ready());
  stop.abort();
  return run;
}

describe.skipIf(!posix)("runCommand", () => {
  it("returns at its deadline, and kills what it ran", async () => {
    const tag = randomUUID();
    // Nothing to set up before the deadline may fall, so it can be a few milliseconds.
    const r = await runCommand(["sleep", "3600"], "", { timeoutMs: 20, env: { ...process.env, VM_TEST_TAG: tag } });
    expect(r).toMatchObject({ code: null, timedOut: true, stopped: false });
    // Whatever had started by then carries the tag; one left running would sleep past the test's timeout.
    if (process.platform === "linux") await until(() => carrying("VM_TEST_TAG", tag).length === 0);
  });

  it("returns when stopped though a detached child holds its output open, and kills that child", async () => {
    const p = pidFile();
    // Were the call to wait for the detached child's output to close, it would wait an hour.
    const r = await stopOnce(
      () => pids(p.path).length >= 2,
      (signal) => runCommand(["/bin/sh", "-c", `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 3600' & sleep 3600`], "", { timeoutMs: NEVER_MS, signal }),
    );
    expect(r).toMatchObject({ timedOut: false, stopped: true });
    await allEnded(p.path, 2);
  });

  it("returns as soon as the command exits, with its answer, though a detached child still holds its output", async () => {
    const p = pidFile();
    // The timeout and the child's sleep lie far beyond the test's own timeout: waiting for either fails it.
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 3600' & ${p.waitFor(2)}; echo answer`], "", {
      timeoutMs: NEVER_MS,
    });
    expect(r).toMatchObject({ code: 0, stdout: "answer\n", timedOut: false, stopped: false });
    await allEnded(p.path, 2);
  });

  it("kills the whole process tree when stopped, without an external timeout command", async () => {
    const p = pidFile();
    // A grandchild in the command's own process group, as a shell's `&` makes.
    const r = await stopOnce(
      () => pids(p.path).length >= 2,
      (signal) => runCommand(["/bin/sh", "-c", `${p.note}; ( /bin/sh -c '${p.note}; exec sleep 3600' ) & sleep 3600`], "", { timeoutMs: NEVER_MS, signal }),
    );
    expect(r.stopped).toBe(true);
    await allEnded(p.path, 2);
  });

  it.skipIf(process.platform !== "linux")("kills a child that left the session and lost its parent, even with its output closed", async () => {
    const p = pidFile();
    // The subshell exits at once, so the sleeper is orphaned: neither the group nor the parent chain leads to it.
    const r = await stopOnce(
      () => pids(p.path).length >= 2,
      (signal) =>
        runCommand(["/bin/sh", "-c", `${p.note}; ( setsid /bin/sh -c '${p.note}; exec sleep 3600' </dev/null >/dev/null 2>&1 & ); sleep 3600`], "", {
          timeoutMs: NEVER_MS,
          signal,
        }),
    );
    expect(r.stopped).toBe(true);
    await allEnded(p.path, 2);
  });

  it("starts nothing for a caller that has already stopped", async () => {
    const p = pidFile();
    const r = await runCommand(["/bin/sh", "-c", p.note], "", { timeoutMs: NEVER_MS, signal: AbortSignal.abort() });
    expect(r).toMatchObject({ code: null, stopped: true });
    expect(pids(p.path)).toEqual([]);
  });

  it("keeps characters whole when the pipe splits them between two reads", async () => {
    // 1.5 MB of 3-byte characters, twenty times what a pipe holds: it arrives in a few dozen
    // reads, each ending where the writer's and the pipe's sizes (powers of two) put it, so about
    // two in three split a character. Many splits, and no pause for a clock to make one.
    const r = await runCommand(["/bin/sh", "-c", "yes 排程 | head -n 250000 | tr -d '\\n'"], "", { timeoutMs: NEVER_MS });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(500_000);
    expect(r.stdout.replaceAll("排程", "")).toBe("");
  });

  it("runs the LLM and the report command under the digest's timeout", async () => {
    const vault = copyVault(SAMPLE_VAULT, "Deadline vault");
    const config = defaultConfig();
    // Neither ends by itself, and neither starts anything to be waited for: the deadline can be short.
    config.digest.command = ["/bin/sh", "-c", "sleep 3600"];
    config.digest.timeoutSec = 0.02;
    config.digest.reportCommand = "sleep 3600";
    const r = await runDigest({ vault, config });
    expect(r.error).toBe("enrich stopped: no answer within 0.02 s");
    expect(r.notify).toBe("report command: no end within 0.02 s, stopped");
  });

  it("stops the report command with the night, and kills what it started", async () => {
    const p = pidFile();
    const vault = copyVault(SAMPLE_VAULT, "Report vault");
    const config = defaultConfig();
    config.digest.command = ["/bin/cat"];
    config.digest.timeoutSec = NEVER_MS / 1000;
    config.digest.reportCommand = `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 3600' & sleep 3600; cat`;
    const r = await stopOnce(
      () => pids(p.path).length >= 2,
      (signal) => runDigest({ vault, config, signal }),
    );
    expect(r.ok).toBe(true);
    expect(r.notify).toBe("report command: stopped with the night");
    await allEnded(p.path, 2);
  });
});
