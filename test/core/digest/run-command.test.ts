/** The digest's command runner: a deadline that neither detached children nor open pipes outlive. */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { runCommand } from "../../../src/core/digest/run-command";
import { runDigest } from "../../../src/core/digest/run";
import { SAMPLE_VAULT, copyVault, tempDir } from "../../helpers";

// The fake commands detach the way a daemonising child does: a new session, out of the process group.
const posix = process.platform !== "win32" && spawnSync("/bin/sh", ["-c", "command -v setsid"]).status === 0;

/** A file the fake command's processes append their pids to, and the shell line that does it. */
function pidFile(): { path: string; note: string } {
  const path = join(tempDir(), "pids");
  return { path, note: `echo $$ >> ${JSON.stringify(path)}` };
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

async function survivors(path: string, expected: number): Promise<number[]> {
  const all = pids(path);
  expect(all, "the fake command did not start all its processes").toHaveLength(expected);
  // SIGKILL is delivered at once but the kernel takes a moment to tear a process down.
  for (let i = 0; i < 20 && all.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  return all.filter(alive);
}

describe.skipIf(!posix)("runCommand", () => {
  it("returns at the timeout when a detached child holds its output open, and kills that child", async () => {
    const p = pidFile();
    const started = Date.now();
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 45' & sleep 30`], "", { timeoutMs: 700 });
    expect(r.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(700 + 1500);
    expect(await survivors(p.path, 2)).toEqual([]);
  }, 15_000);

  it("returns as soon as the command exits, with its answer, though a detached child still holds its output", async () => {
    const p = pidFile();
    const started = Date.now();
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 45' & sleep 0.3; echo answer`], "", { timeoutMs: 20_000 });
    expect(r).toMatchObject({ code: 0, stdout: "answer\n", timedOut: false });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await survivors(p.path, 2)).toEqual([]);
  }, 15_000);

  it.skipIf(process.platform !== "linux")("kills a child that left the session and lost its parent, even with its output closed", async () => {
    const p = pidFile();
    // The subshell exits at once, so the sleeper is orphaned: neither the group nor the parent chain leads to it.
    const r = await runCommand(["/bin/sh", "-c", `${p.note}; ( setsid /bin/sh -c '${p.note}; exec sleep 45' </dev/null >/dev/null 2>&1 & ); sleep 30`], "", { timeoutMs: 700 });
    expect(r.timedOut).toBe(true);
    expect(await survivors(p.path, 2)).toEqual([]);
  }, 15_000);

  it("keeps a character whole when the pipe splits it between two reads", async () => {
    const r = await runCommand(["/bin/sh", "-c", "printf '\\346'; sleep 0.2; printf '\\216\\222\\347\\250\\213'"], "", { timeoutMs: 10_000 });
    expect(r).toMatchObject({ code: 0, stdout: "排程" });
  });

  it("runs the report command under the digest's timeout, and kills what it started", async () => {
    const p = pidFile();
    const vault = copyVault(SAMPLE_VAULT, "Report vault");
    const config = defaultConfig();
    config.digest.command = ["/bin/cat"];
    config.digest.timeoutSec = 1;
    config.digest.reportCommand = `${p.note}; setsid /bin/sh -c '${p.note}; exec sleep 97' & sleep 97; cat`;
    const started = Date.now();
    const r = await runDigest({ vault, config });
    expect(Date.now() - started).toBeLessThan(1000 + 4000);
    expect(r.ok).toBe(true);
    expect(r.notify).toMatch(/report command: no end within 1 s/);
    expect(await survivors(p.path, 2)).toEqual([]);
  }, 30_000);
});
