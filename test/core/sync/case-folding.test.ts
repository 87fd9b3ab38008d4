/**
 * A note renamed only in case on the other computer ("note.md" to "Note.md"), placed on a disk
 * that folds case, as macOS's and Windows's do by default. The machines that run these tests have
 * none, so node:fs is wrapped to find every path under the vault by its name in any case. The
 * placement once added the new name first, found the old file there, and then removed it: the
 * note was gone, and the next sync took that to both computers.
 */

import * as fs from "node:fs";
import { readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../../git-remote";
import { card, put, sync } from "./two-computers";

const folding = vi.hoisted(() => ({ root: undefined as string | undefined }));
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  // Each part of a path under the vault (git's folder aside) as the folder names it, whatever its case.
  const fold = (p: unknown): unknown => {
    const root = folding.root;
    if (typeof p !== "string" || !root || !p.startsWith(root + "/") || p.startsWith(join(root, ".git") + "/")) return p;
    let at = root;
    for (const part of p.slice(root.length + 1).split("/")) {
      let name = part;
      try {
        const names = real.readdirSync(at);
        if (!names.includes(part)) name = names.find((e) => e.toLowerCase() === part.toLowerCase()) ?? part;
      } catch {
        /* not a folder */
      }
      at = join(at, name);
    }
    return at;
  };
  type AnyFn = (...a: unknown[]) => unknown;
  const one = <F>(f: F): F => ((p: unknown, ...rest: unknown[]) => (f as AnyFn)(fold(p), ...rest)) as F;
  const two = <F>(f: F): F => ((p: unknown, q: unknown, ...rest: unknown[]) => (f as AnyFn)(fold(p), fold(q), ...rest)) as F;
  const over = {
    openSync: one(real.openSync),
    lstatSync: one(real.lstatSync),
    statSync: one(real.statSync),
    existsSync: one(real.existsSync),
    unlinkSync: one(real.unlinkSync),
    readlinkSync: one(real.readlinkSync),
    mkdirSync: one(real.mkdirSync),
    readFileSync: one(real.readFileSync),
    rmdirSync: one(real.rmdirSync),
    linkSync: two(real.linkSync),
    renameSync: two(real.renameSync),
  };
  return { ...real, ...over, default: { ...real, ...over } };
});

describe.skipIf(!gitAvailable)("a rename in case only, on a disk that folds case", () => {
  let remote: Remote;
  let desk: Computer;
  let laptop: Computer;
  beforeAll(async () => {
    remote = await startRemote();
    desk = computer(remote.url, "desk", { seed: { "reference/seed.md": card("seed", "Seeded."), "reference/note.md": card("note", "The note's only text.") } });
    laptop = computer(remote.url, "laptop");
  });
  afterAll(async () => {
    folding.root = undefined;
    await remote?.stop();
  });

  it("keeps the note under its new name", () => {
    renameSync(join(desk.vault, "reference", "note.md"), join(desk.vault, "reference", "Note.md"));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    put(laptop, "reference/laptop.md", card("laptop", "The laptop's own."));
    folding.root = laptop.vault;
    try {
      const r = sync(laptop);
      expect(r.ok, r.error).toBe(true);
    } finally {
      folding.root = undefined;
    }
    const names = readdirSync(join(laptop.vault, "reference")).filter((n) => n.toLowerCase() === "note.md");
    expect(names).toEqual(["Note.md"]);
    expect(fs.readFileSync(join(laptop.vault, "reference", "Note.md"), "utf8")).toContain("The note's only text.");
  });
});
