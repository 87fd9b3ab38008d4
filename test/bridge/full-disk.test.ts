/**
 * A vault on a full disk: "remember this" is told it was not kept, no empty lock is left for the
 * next hook to wait on, and once there is room again the same prompt is kept at once. The disk is
 * a small tmpfs of its own, which only an account allowed to mount one can make; elsewhere the
 * test says so and is skipped.
 */

import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonl, line } from "../fixtures/transcript";
import { runBridge, SAMPLE_VAULT, tempDir } from "../helpers";
import { withSessionLock } from "../../src/core/queue/queue-store";

// Mounted when the tests run, never when the file is only collected, and unmounted after them.
let disk = "";
let mounted = false;

/** Fills what is left of the disk, a block at a time until it refuses, in a folder to remove after. */
function fill(name: string): string {
  const filler = join(disk, name);
  mkdirSync(filler);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(filler, String(i)), Buffer.alloc(64 * 1024));
    } catch {
      return filler;
    }
  }
}

describe("a vault on a full disk", () => {
  beforeAll(() => {
    disk = tempDir("vm-full-disk-");
    mounted = process.platform === "linux" && spawnSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", disk]).status === 0;
    if (!mounted) console.log(`skipped: cannot mount a small tmpfs at ${disk} (needs root on Linux) to fill a disk`);
  });
  afterAll(() => {
    if (mounted) spawnSync("umount", [disk]);
    rmSync(disk, { recursive: true, force: true });
  });

  it("tells Claude the keep failed, leaves no lock behind, and keeps it once there is room", (ctx) => {
    if (!mounted) return ctx.skip();
    const vault = join(disk, "vault");
    cpSync(SAMPLE_VAULT, vault, { recursive: true });
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const transcript = join(tempDir(), "t.jsonl");
    const reply = "A long reply about the build pipeline with enough detail to count as real work here.";
    writeFileSync(
      transcript,
      jsonl([line.prompt("question one about the build"), line.reply(reply), line.prompt("question two about the build"), line.reply(reply)]),
    );
    const payload = JSON.stringify({ session_id: "full-1", transcript_path: transcript, cwd: tempDir(), prompt: "remember this: the build uses pnpm" });
    // The queue's folders are there already, as in any vault that has queued before.
    const pending = join(vault, ".vault-memory", "queue", "pending");
    mkdirSync(pending, { recursive: true });
    const filler = fill("filler");
    const full = runBridge(["recall", "--vault", vault], payload);
    expect(full.status).toBe(0);
    expect(full.stdout).toMatch(/did not keep this conversation, nothing was queued: the queue could not be written \(ENOSPC/);
    expect(readdirSync(pending)).toEqual([]);
    rmSync(filler, { recursive: true });
    const again = runBridge(["recall", "--vault", vault], payload);
    expect(again.stdout).toContain("queued this conversation for the nightly digest");
    expect(readdirSync(pending)).toEqual(["full-1.json"]);
  });

  it("never leaves an empty lock that the next hook would wait on", (ctx) => {
    if (!mounted) return ctx.skip();
    const vault = join(disk, "locks");
    mkdirSync(join(vault, ".vault-memory", "queue", "pending"), { recursive: true });
    const filler = fill("filler2");
    expect(() => withSessionLock(vault, "s-1", () => "ran")).toThrow(/ENOSPC/);
    expect(readdirSync(join(vault, ".vault-memory", "queue", "pending"))).toEqual([]);
    rmSync(filler, { recursive: true });
    expect(withSessionLock(vault, "s-1", () => "ran")).toBe("ran");
  });
});
