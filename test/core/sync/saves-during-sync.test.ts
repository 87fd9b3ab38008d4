/**
 * A person's saves while sync runs, over a real git remote (git daemon on loopback): whatever the
 * moment, the save stays in the vault and what the other computer sent is there too, beside it
 * as a conflict copy the report names. Each save is made from inside sync, at an exact step
 * (the git call that starts placing the merge, or node:fs's linkSync inside a replace), so the
 * timing is the test's, not the machine's. Found by a review that lost each of these saves.
 */

import * as fs from "node:fs";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../../git-remote";
import { card, put, read, sync } from "./two-computers";

const hook = vi.hoisted(() => ({
  /** Called before each git sync runs, with its arguments (an identity's `-c` pairs left out). */
  git: undefined as undefined | ((args: string[]) => void),
  /** Called before each hard link, with its source path. */
  link: undefined as undefined | ((from: string) => void),
  /** Called before each file is opened, with its path. */
  open: undefined as undefined | ((path: string) => void),
}));
vi.mock("../../../src/core/sync/git", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/core/sync/git")>();
  const verb = (args: readonly string[]): string[] => {
    const a = [...args];
    while (a[0] === "-c") a.splice(0, 2);
    return a;
  };
  const runGit: typeof real.runGit = (dir, args, opts) => {
    hook.git?.(verb(args));
    return real.runGit(dir, args, opts);
  };
  const mustGit: typeof real.mustGit = (dir, args, opts = {}) => {
    const r = runGit(dir, args, opts);
    if (r.code !== 0) throw new real.GitFailed(`git ${args[0]}: ${real.firstLine(r.err || r.out)}`);
    return r.out;
  };
  return { ...real, runGit, mustGit };
});
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const linkSync: typeof real.linkSync = (from, to) => {
    hook.link?.(String(from));
    real.linkSync(from, to);
  };
  const openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    hook.open?.(String(path));
    return (real.openSync as (...a: unknown[]) => number)(path, ...rest);
  }) as typeof real.openSync;
  return { ...real, linkSync, openSync, default: { ...real, linkSync, openSync } };
});

/** Every note's text in the vault (git's and sync's own folders left out). */
function allText(c: Computer): string {
  return readdirSync(c.vault, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md") && !f.startsWith(".git") && !f.startsWith(".vault-memory"))
    .map((f) => read(c, f))
    .join("\n");
}
/** Runs `save` once, just before sync starts bringing the files to the merge. */
function saveWhenPlacing(save: () => void): () => boolean {
  let done = false;
  hook.git = (args) => {
    if (args[0] === "diff" && args.includes("--raw")) {
      hook.git = undefined;
      save();
      done = true;
    }
  };
  return () => done;
}

describe.skipIf(!gitAvailable)("a person's save while sync merges", () => {
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
    hook.link = undefined;
    hook.open = undefined;
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it("keeps a save to a note both changed, made after the merge and before the files are placed", () => {
    put(desk, "reference/vite.md", card("vite", "Line one.\n\nLine two."));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    put(desk, "reference/vite.md", card("vite", "Line one.\n\nLine two.").replace("tags: [x]", "tags: [x, desk]"));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    put(laptop, "reference/vite.md", card("vite", "Line one.\n\nLine two.").replace("tags: [x]", "tags: [x, laptop]"));
    const saved = saveWhenPlacing(() => put(laptop, "reference/vite.md", card("vite", "Line one.\n\nLine two.\n\nTyped while sync merged.")));
    const r = sync(laptop);
    expect(saved()).toBe(true);
    expect(r.ok, r.error).toBe(true);
    // The save in place; the merge of the two computers' tags beside it, named in the report.
    expect(read(laptop, "reference/vite.md")).toContain("Typed while sync merged.");
    expect(r.conflicts).toHaveLength(1);
    expect(r.conflicts[0].path).toBe("reference/vite.md");
    expect(read(laptop, r.conflicts[0].copy)).toMatch(/- desk\n/);
    expect(read(laptop, r.conflicts[0].copy)).toMatch(/- laptop\n/);
    // The next sync carries both to the desk.
    expect(sync(laptop)).toMatchObject({ ok: true });
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(allText(desk)).toContain("Typed while sync merged.");
  });

  it("keeps a save to a note only the other computer changed, and one to a note it deleted", () => {
    put(desk, "reference/one-side.md", card("one side", "Before."));
    put(desk, "reference/gone.md", card("gone", "Before."));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    put(desk, "reference/one-side.md", card("one side", "Changed on the desk."));
    fs.rmSync(join(desk.vault, "reference", "gone.md"));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    // The laptop has nothing to commit; the person types into both notes as sync merges.
    saveWhenPlacing(() => {
      put(laptop, "reference/one-side.md", card("one side", "Typed on the laptop meanwhile."));
      put(laptop, "reference/gone.md", card("gone", "Typed into a note the desk deleted."));
    });
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    expect(read(laptop, "reference/one-side.md")).toContain("Typed on the laptop meanwhile.");
    expect(read(laptop, r.conflicts.find((c) => c.path === "reference/one-side.md")!.copy)).toContain("Changed on the desk.");
    expect(read(laptop, "reference/gone.md")).toContain("Typed into a note the desk deleted.");
    expect(r.kept).toContain("reference/gone.md");
  });

  it("keeps a save that lands inside the replace, and a second one as the first is given back", () => {
    put(desk, "reference/race.md", card("race", "Before."));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    put(desk, "reference/race.md", card("race", "Changed on the desk."));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    const target = join(laptop.vault, "reference", "race.md");
    const saves = [card("race", "First save."), card("race", "Second save.")];
    // replaceIfUnchanged links the file it compared to a second name just before its rename: each
    // save lands there, after the comparison.
    hook.link = (from) => {
      if (from === target && saves.length > 0) writeFileSync(target, saves.shift()!);
    };
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    expect(saves).toHaveLength(0);
    expect(read(laptop, "reference/race.md")).toContain("Second save.");
    expect(read(laptop, r.conflicts.find((c) => c.path === "reference/race.md")!.copy)).toContain("Changed on the desk.");
  });

  it("never writes over a file git ignores here that the other computer adds", () => {
    put(laptop, ".gitignore", "drafts/\n");
    put(laptop, "drafts/idea.md", card("idea", "The laptop's draft, never committed."));
    expect(sync(laptop)).toMatchObject({ ok: true });
    // The desk stops ignoring drafts/ and commits a note at the same path.
    put(desk, "drafts/idea.md", card("idea", "The desk's note."));
    expect(sync(desk)).toMatchObject({ ok: true });
    put(desk, ".gitignore", read(desk, ".gitignore").replace("drafts/\n", ""));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    expect(read(laptop, "drafts/idea.md")).toContain("The laptop's draft, never committed.");
    expect(read(laptop, r.conflicts.find((c) => c.path === "drafts/idea.md")!.copy)).toContain("The desk's note.");
  });

  it("keeps both sides of a note that only quotes the generated mark, and a page the person took over", () => {
    const quoting = (line: string): string => card("marks", `Pages made by the digest carry \`generated: vault-memory\`.\n\n${line}`);
    put(desk, "reference/marks.md", quoting("A."));
    const page = (who: string, mark: boolean): string => `---\ntitle: Debugging\n${mark ? "generated: vault-memory\n" : ""}---\n# Debugging\n\n${who}\n`;
    put(desk, "moc/debugging.md", page("Made by the digest.", true));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    put(desk, "reference/marks.md", quoting("A, from the desk."));
    put(desk, "moc/debugging.md", page("The person's own page now, written on the desk.", false));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    put(laptop, "reference/marks.md", quoting("A, from the laptop."));
    put(laptop, "moc/debugging.md", page("Made by the laptop's digest.", true));
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    // Both changed the same line: the laptop's stays in place, the desk's beside it.
    expect(read(laptop, "reference/marks.md")).toContain("A, from the laptop.");
    expect(read(laptop, r.conflicts.find((c) => c.path === "reference/marks.md")!.copy)).toContain("A, from the desk.");
    // The desk's page is no longer generated: its text is not dropped for the laptop's.
    expect(allText(laptop)).toContain("The person's own page now, written on the desk.");
  });

  it("places pictures byte for byte, and keeps a note too large to merge as a conflict copy", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x0d, 0x0a, 0x80, 0x7f]);
    const huge = (who: string): string => card("huge", `${who}\n${"x".repeat(80)}\n`.repeat(110_000));
    put(desk, "attachments/shot.png", png);
    put(desk, "reference/huge.md", huge("base"));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(laptop)).toMatchObject({ ok: true });
    expect(readFileSync(join(laptop.vault, "attachments", "shot.png")).equals(png)).toBe(true);
    put(desk, "attachments/shot.png", Buffer.concat([png, png]));
    put(desk, "reference/huge.md", huge("desk"));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    put(laptop, "reference/huge.md", huge("laptop"));
    const r = sync(laptop);
    expect(r.ok, r.error).toBe(true);
    expect(readFileSync(join(laptop.vault, "attachments", "shot.png")).equals(Buffer.concat([png, png]))).toBe(true);
    expect(read(laptop, "reference/huge.md")).toContain("laptop\n");
    expect(read(laptop, r.conflicts.find((c) => c.path === "reference/huge.md")!.copy)).toContain("desk\n");
  });

  it("takes a note Obsidian saved with LF, where git checks out CRLF, for what was committed", () => {
    const c = computer(remote.url, "windows");
    c.git("config", "core.autocrlf", "true");
    put(desk, "reference/crlf.md", card("crlf", "Line one.\nLine two."));
    expect(sync(desk)).toMatchObject({ ok: true });
    expect(sync(c)).toMatchObject({ ok: true });
    expect(read(c, "reference/crlf.md")).toContain("\r\n");
    // Obsidian saves the note with LF: the same text to git, other bytes on disk.
    put(c, "reference/crlf.md", read(c, "reference/crlf.md").replace(/\r\n/g, "\n"));
    put(desk, "reference/crlf.md", card("crlf", "Line one.\nLine two, changed on the desk."));
    expect(sync(desk)).toMatchObject({ ok: true, pushed: true });
    const r = sync(c);
    expect(r.ok, r.error).toBe(true);
    expect(r.conflicts).toEqual([]);
    expect(read(c, "reference/crlf.md")).toContain("Line two, changed on the desk.");
  });

  it("keeps a line the person adds to .gitignore while sync adds its own", () => {
    const c = computer(remote.url, "third");
    const path = join(c.vault, ".gitignore");
    put(c, ".gitignore", "*.tmp\n");
    // The rewrite writes its text beside the file first: the person's save lands then.
    let saved = false;
    hook.open = (p) => {
      if (!saved && p.startsWith(`${path}.`)) {
        saved = true;
        writeFileSync(path, "*.tmp\nprivate/\n");
      }
    };
    expect(sync(c)).toMatchObject({ ok: true });
    expect(saved).toBe(true);
    expect(read(c, ".gitignore")).toContain("private/");
    expect(read(c, ".gitignore")).toContain(".vault-memory/");
  });
});
