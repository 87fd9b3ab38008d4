/**
 * How sync brings the files to a merge (src/core/sync/place.ts), over a real git remote: what
 * the other computer changed arrives as it was made (a folder turned into a file, a script's
 * executable bit, a folder emptied), and a sync stopped half-way leaves nothing that the next one
 * commits by mistake or makes twice. Found by a review of the placement that broke each.
 */

import { chmodSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { vaultFiles } from "../../../src/core/paths";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../../git-remote";
import { card, put, read, sync } from "./two-computers";

const hook = vi.hoisted(() => ({ git: undefined as undefined | ((args: string[]) => void) }));
vi.mock("../../../src/core/sync/git", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/core/sync/git")>();
  const runGit: typeof real.runGit = (dir, args, opts) => {
    const a = [...args];
    while (a[0] === "-c") a.splice(0, 2);
    hook.git?.(a);
    return real.runGit(dir, args, opts);
  };
  const mustGit: typeof real.mustGit = (dir, args, opts = {}) => {
    const r = runGit(dir, args, opts);
    if (r.code !== 0) throw new real.GitFailed(`git ${args[0]}: ${real.firstLine(r.err || r.out)}`);
    return r.out;
  };
  return { ...real, runGit, mustGit };
});

/** Every file git would commit or has, less what it ignores. */
const files = (c: Computer): string[] => c.git("ls-files", "-co", "--exclude-standard").split("\n").filter(Boolean).sort();
/** A process id of this computer that has ended. */
const gone = (): number => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);

describe.skipIf(!gitAvailable)("sync placing the other computer's changes", () => {
  let remote: Remote;
  let desk: Computer;
  let laptop: Computer;
  beforeAll(async () => {
    remote = await startRemote();
    desk = computer(remote.url, "desk", { seed: { "reference/seed.md": card("seed", "Seeded.") } });
    laptop = computer(remote.url, "laptop");
  });
  afterEach(() => {
    hook.git = undefined;
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it("turns a folder into the file of the same name, and removes the folders a deletion empties", () => {
    put(desk, "project/note.md", card("note", "In a folder."));
    put(desk, "old/topic/only.md", card("only", "The folder's only note."));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    rmSync(join(desk.vault, "project"), { recursive: true });
    put(desk, "project", "now a file\n");
    rmSync(join(desk.vault, "old"), { recursive: true });
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    put(laptop, "reference/laptop.md", card("laptop", "The laptop's own."));
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    expect(r.conflicts).toEqual([]);
    expect(read(laptop, "project")).toBe("now a file\n");
    expect(existsSync(join(laptop.vault, "old"))).toBe(false);
  });

  it("keeps a script's executable bit, added or changed on the other computer", () => {
    put(desk, "scripts/run.sh", "#!/bin/sh\necho run\n");
    put(desk, "scripts/flip.sh", "#!/bin/sh\necho flip\n");
    chmodSync(join(desk.vault, "scripts/run.sh"), 0o755);
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    expect(statSync(join(laptop.vault, "scripts/run.sh")).mode & 0o111).not.toBe(0);
    chmodSync(join(desk.vault, "scripts/flip.sh"), 0o755);
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    put(laptop, "reference/laptop-2.md", card("laptop 2", "Another of the laptop's."));
    expect(sync(laptop)).toMatchObject({ ok: true });
    expect(statSync(join(laptop.vault, "scripts/flip.sh")).mode & 0o111).not.toBe(0);
    expect(laptop.git("status", "--porcelain")).toBe("");
  });

  it("makes a conflict copy once when a sync stopped after placing it is done again", () => {
    put(desk, "reference/both.md", card("both", "Before."));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    put(desk, "reference/both.md", card("both", "The desk's line."));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    put(laptop, "reference/both.md", card("both", "The laptop's line."));
    // Stopped once its files are placed, before its branch moves.
    hook.git = (args) => {
      if (args[0] === "update-ref") {
        hook.git = undefined;
        throw new Error("stopped");
      }
    };
    expect(sync(laptop)).toMatchObject({ ok: false, error: "stopped" });
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    const copies = readdirSync(join(laptop.vault, "reference")).filter((f) => f.startsWith("both (conflicted copy"));
    expect(copies).toHaveLength(1);
    expect(read(laptop, `reference/${copies[0]}`)).toContain("The desk's line.");
    expect(read(laptop, "reference/both.md")).toContain("The laptop's line.");
  });

  it("puts back what a stopped sync left beside the files, and commits none of it", () => {
    expect(sync(laptop)).toMatchObject({ ok: true });
    put(laptop, "reference/kept.md", card("kept", "The note as it is now."));
    put(laptop, "reference/moved.md", card("moved", "Committed."));
    expect(sync(laptop)).toMatchObject({ ok: true });
    const pid = gone();
    // A sync killed in placement: its state file, a note moved aside to be compared (the person's
    // text, its place empty now), a second name for a note that holds a save, and a temporary file.
    writeFileSync(join(vaultFiles.dir(laptop.vault), "sync-state.json"), JSON.stringify({ pid, started: new Date().toISOString() }));
    rmSync(join(laptop.vault, "reference", "moved.md"));
    put(laptop, `reference/.moved.md.vm-sync-${pid}-abc123`, card("moved", "The person's text, moved aside."));
    put(laptop, `reference/kept.md.${pid}.0.m1abc.tmp.held`, card("kept", "A save that came in by rename."));
    put(laptop, `reference/other.md.${pid}.1.m1abc.tmp`, card("other", "Sync's own text."));
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    expect(r.recovered).toBe(true);
    expect(read(laptop, "reference/moved.md")).toContain("The person's text, moved aside.");
    const names = readdirSync(join(laptop.vault, "reference"));
    const copy = names.find((f) => f.startsWith("kept (conflicted copy"));
    expect(copy && read(laptop, `reference/${copy}`)).toContain("A save that came in by rename.");
    expect(names.filter((f) => f.includes(String(pid)))).toEqual([]);
    expect(files(laptop).filter((f) => /\.tmp|vm-sync/.test(f))).toEqual([]);
  });
});
