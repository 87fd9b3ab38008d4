/**
 * Sync between two computers through a real git remote (git daemon on loopback): what each
 * writes reaches the other, a note changed on both is merged or kept twice, never left with
 * conflict markers, and the deletion guard holds both ways.
 */

import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { INDEX_END, INDEX_START } from "../../../src/core/digest/pages";
import { withoutCredentials } from "../../../src/core/sync/git";
import { syncVault } from "../../../src/core/sync/sync";
import { copyShape } from "../../../src/core/vault/conflicts";
import { computer, gitAvailable, startRemote, type Computer, type Remote } from "../../git-remote";

const card = (name: string, tags: string[], body: string): string =>
  `---\nname: ${name}\ndescription: ${name} in a line\ntype: debugging\ntags: [${tags.join(", ")}]\n---\n${body}\n`;

const SEED: Record<string, string> = {
  "debugging/launchd-path.md": card("launchd path", ["launchd"], "The nightly job runs with a short PATH.\n\nCall claude by its absolute path."),
  "reference/vite-base.md": card("vite base", ["vite"], "Set base to / on a custom domain."),
};

function put(c: Computer, path: string, text: string): void {
  mkdirSync(dirname(join(c.vault, path)), { recursive: true });
  writeFileSync(join(c.vault, path), text);
}

const sync = (c: Computer, more: Partial<Parameters<typeof syncVault>[0]> = {}) => syncVault({ vault: c.vault, env: c.env, machine: "test", ...more });

function noMarkers(c: Computer): void {
  const files = readdirSync(c.vault, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md") && !f.startsWith(".git"));
  for (const f of files) expect(readFileSync(join(c.vault, f), "utf8"), f).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)( |$)/m);
}

describe.skipIf(!gitAvailable)("sync between two computers", () => {
  let remote: Remote;
  let a: Computer;
  let b: Computer;
  beforeAll(async () => {
    remote = await startRemote();
    a = computer(remote.url, "desk", { seed: SEED });
    b = computer(remote.url, "laptop", { identity: false });
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it("carries each computer's new card to the other, keeping this computer's state out of git", () => {
    writeFileSync(join(a.vault, "reference", "pnpm.md"), card("pnpm", ["node"], "Use pnpm."));
    // The bridge Obsidian's plugin keeps beside itself is this computer's own release.
    put(a, ".obsidian/plugins/vault-memory/vault-memory.cjs", "// the bridge\n");
    put(a, ".obsidian/plugins/vault-memory/data.json", "{}\n");
    const first = sync(a);
    expect(first, first.error).toMatchObject({ ok: true, committed: 3, pushed: true });
    expect(readFileSync(join(a.vault, ".gitignore"), "utf8")).toContain(".vault-memory/");
    const second = sync(b);
    expect(second, second.error).toMatchObject({ ok: true, received: 1 });
    expect(existsSync(join(b.vault, "reference", "pnpm.md"))).toBe(true);
    // The laptop has no git identity of its own: its commits are the product's.
    put(b, "user/hours.md", card("hours", ["me"], "I work mornings."));
    expect(sync(b)).toMatchObject({ ok: true, committed: 1, pushed: true });
    // The laptop's commits, its merge of the desk's among them.
    expect(sync(a).received).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(a.vault, "user", "hours.md"))).toBe(true);
    expect(a.git("ls-files")).not.toContain(".vault-memory");
    expect(a.git("ls-files")).not.toContain("vault-memory.cjs");
    expect(a.git("ls-files")).toContain(".obsidian/plugins/vault-memory/data.json");
  });

  it("merges a card both changed: tags as their union, the body by lines", () => {
    const path = "debugging/launchd-path.md";
    writeFileSync(
      join(a.vault, path),
      card("launchd path", ["launchd", "path"], "The nightly job runs with a short PATH, even for root.\n\nCall claude by its absolute path."),
    );
    writeFileSync(
      join(b.vault, path),
      card("launchd path", ["launchd", "cron"], "The nightly job runs with a short PATH.\n\nCall claude and node by their absolute paths."),
    );
    expect(sync(a)).toMatchObject({ ok: true, pushed: true });
    const r = sync(b);
    expect(r, r.error).toMatchObject({ ok: true, pushed: true, merged: [path], conflicts: [] });
    const merged = readFileSync(join(b.vault, path), "utf8");
    // What each added, the laptop's order first: nothing either wrote is lost.
    expect(parseCard(path, merged).tags).toEqual(["launchd", "cron", "path"]);
    expect(merged).toContain("even for root");
    expect(merged).toContain("claude and node by their absolute paths");
    expect(sync(a)).toMatchObject({ ok: true });
    expect(readFileSync(join(a.vault, path), "utf8")).toBe(merged);
    noMarkers(a);
    noMarkers(b);
  });

  it("keeps both versions of a line both changed: this computer's in place, the other's as a conflict copy lint knows", () => {
    const path = "reference/vite-base.md";
    writeFileSync(join(a.vault, path), card("vite base", ["vite"], "Set base to / on a custom domain, and hard-code absolute URLs."));
    writeFileSync(join(b.vault, path), card("vite base", ["vite"], "Set base to /repo/ unless the domain is custom."));
    expect(sync(a)).toMatchObject({ ok: true, pushed: true });
    const r = sync(b, { now: new Date("2026-12-06T12:00:00Z") });
    expect(r, r.error).toMatchObject({ ok: true, pushed: true });
    expect(r.conflicts).toHaveLength(1);
    const { copy } = r.conflicts[0];
    expect(copy).toMatch(/^reference\/vite-base \(conflicted copy 2026-12-06 [0-9a-f]{7}\)\.md$/);
    expect(copyShape(copy)?.key).toBe("reference/vite-base");
    expect(readFileSync(join(b.vault, path), "utf8")).toContain("/repo/ unless");
    expect(readFileSync(join(b.vault, copy), "utf8")).toContain("hard-code absolute URLs");
    expect(sync(a)).toMatchObject({ ok: true });
    expect(readFileSync(join(a.vault, copy), "utf8")).toContain("hard-code absolute URLs");
    noMarkers(a);
    noMarkers(b);
  });

  it("writes MEMORY.md's index again after both computers' digests changed it, keeping the person's own text from both", () => {
    const memory = (own: string, index: string): string => `# Memory\n\n${own}\n\n${INDEX_START}\n${index}\n${INDEX_END}\n`;
    put(a, "MEMORY.md", memory("Desk notes.", "- desk index"));
    expect(sync(a)).toMatchObject({ ok: true });
    expect(sync(b)).toMatchObject({ ok: true });
    put(a, "MEMORY.md", memory("Desk notes, and more.", "- desk index, night two"));
    put(b, "MEMORY.md", memory("Desk notes.\n\nLaptop notes.", "- laptop index, night two"));
    expect(sync(a)).toMatchObject({ ok: true, pushed: true });
    const regenerate = (): string[] => {
      const text = readFileSync(join(b.vault, "MEMORY.md"), "utf8");
      writeFileSync(
        join(b.vault, "MEMORY.md"),
        text.replace(/(<!-- vault-memory:index:start -->\n)[\s\S]*?(?=<!-- vault-memory:index:end -->)/, "$1- made again from the merged cards\n"),
      );
      return ["MEMORY.md"];
    };
    const r = sync(b, { regenerate });
    expect(r, r.error).toMatchObject({ ok: true, pushed: true, conflicts: [], regenerated: ["MEMORY.md"] });
    const text = readFileSync(join(b.vault, "MEMORY.md"), "utf8");
    expect(text).toContain("Desk notes, and more.");
    expect(text).toContain("Laptop notes.");
    expect(text).toContain("- made again from the merged cards");
    expect(text).not.toContain("night two");
    noMarkers(b);
  });

  it("keeps a card one computer deleted and the other changed", () => {
    const path = "user/hours.md";
    rmSync(join(a.vault, path));
    put(b, path, card("hours", ["me"], "I work mornings, and Fridays off."));
    expect(sync(a)).toMatchObject({ ok: true, pushed: true });
    const r = sync(b);
    expect(r, r.error).toMatchObject({ ok: true, kept: [path] });
    expect(sync(a)).toMatchObject({ ok: true });
    expect(readFileSync(join(a.vault, path), "utf8")).toContain("Fridays off");
  });

  it("refuses more than 30 deletions leaving this computer, and arriving, unless forced", () => {
    for (let i = 0; i < 31; i++) writeFileSync(join(a.vault, "reference", `bulk-${i}.md`), card(`bulk ${i}`, ["bulk"], `Bulk note ${i}.`));
    expect(sync(a)).toMatchObject({ ok: true, pushed: true });
    expect(sync(b)).toMatchObject({ ok: true });
    for (let i = 0; i < 31; i++) rmSync(join(a.vault, "reference", `bulk-${i}.md`));
    const out = sync(a);
    expect(out).toMatchObject({ ok: false, refused: { direction: "outgoing" }, pushed: false });
    expect(out.refused?.deletions).toHaveLength(31);
    expect(out.error).toMatch(/delete 31 files, more than 30/);
    // Nothing was committed: the deletions wait in the working tree.
    expect(a.git("status", "--porcelain")).toMatch(/^ D reference\/bulk-0\.md$/m);
    expect(sync(a, { force: true })).toMatchObject({ ok: true, pushed: true });
    const into = sync(b);
    expect(into).toMatchObject({ ok: false, refused: { direction: "incoming" } });
    expect(existsSync(join(b.vault, "reference", "bulk-0.md"))).toBe(true);
    expect(sync(b, { force: true })).toMatchObject({ ok: true });
    expect(existsSync(join(b.vault, "reference", "bulk-0.md"))).toBe(false);
  });

  it("plans without writing on a dry run", () => {
    writeFileSync(join(b.vault, "reference", "dry.md"), card("dry", ["x"], "Dry."));
    const r = sync(b, { dryRun: true });
    expect(r).toMatchObject({ ok: true, committed: 0, pushed: false, planned: { outgoing: ["A reference/dry.md"] } });
    expect(b.git("status", "--porcelain")).toContain("?? reference/dry.md");
  });

  it("leaves a card at the root named like the folder beside it out of git, and says so", () => {
    writeFileSync(join(b.vault, "debugging.md"), card("debugging", ["old"], "An old card from before the folders."));
    const r = sync(b);
    expect(r, r.error).toMatchObject({ ok: true, skipped: ["debugging.md"] });
    expect(b.git("ls-files")).not.toContain("debugging.md\n");
  });

  it("keeps the commit here and says so in one line when the remote cannot be reached", async () => {
    writeFileSync(join(a.vault, "reference", "offline.md"), card("offline", ["x"], "Written offline."));
    await remote.stop();
    const r = sync(a, { networkTimeoutMs: 60_000 });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^cannot reach the remote origin: .*; this computer's changes are committed here and go with the next sync$/);
    expect(r.committed).toBe(1);
    expect(a.git("log", "-1", "--name-only", "--format=")).toContain("reference/offline.md");
  });
});

describe.skipIf(!gitAvailable)("setting up sync on two computers that each have a vault", () => {
  let remote: Remote;
  afterAll(async () => {
    await remote?.stop();
  });

  it("starts the remote from the first, merges the second's own vault into it, and brings both to the same cards", async () => {
    remote = await startRemote();
    const setUp = (name: string, files: Record<string, string>): Computer => {
      const c = computer(remote.url, name);
      // Not a clone: an existing vault, made a repository with the remote named, as docs/several-machines.md says.
      rmSync(join(c.vault, ".git"), { recursive: true, force: true });
      for (const [path, text] of Object.entries(files)) put(c, path, text);
      c.git("init", "-q", "-b", "main");
      c.git("remote", "add", "origin", remote.url);
      return c;
    };
    const desk = setUp("desk", { "debugging/a.md": card("a", ["x"], "A."), "MEMORY.md": "# Memory\n" });
    const laptop = setUp("laptop", { "reference/b.md": card("b", ["y"], "B."), "MEMORY.md": "# Memory\n" });
    const first = sync(desk);
    expect(first, first.error).toMatchObject({ ok: true, pushed: true, upstream: "origin/main" });
    const second = sync(laptop);
    expect(second, second.error).toMatchObject({ ok: true, pushed: true });
    expect(sync(desk)).toMatchObject({ ok: true });
    for (const c of [desk, laptop]) {
      expect(existsSync(join(c.vault, "debugging", "a.md"))).toBe(true);
      expect(existsSync(join(c.vault, "reference", "b.md"))).toBe(true);
      noMarkers(c);
    }
    expect(desk.git("rev-parse", "HEAD")).toBe(laptop.git("rev-parse", "HEAD"));
  });
});

describe.skipIf(!gitAvailable)("a remote's credentials", () => {
  it("never appear in what sync says, and sync fails rather than asks for a password", async () => {
    const remote = await startRemote();
    try {
      const c = computer(remote.url, "desk", { seed: { "reference/a.md": card("a", ["x"], "A.") } });
      // A token in the remote's address, as some hosts hand out, on a port where nothing answers.
      c.git("remote", "set-url", "origin", "http://me:hunter2-token@127.0.0.1:9/memory.git");
      put(c, "reference/b.md", card("b", ["y"], "B."));
      const r = sync(c);
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/^cannot reach the remote origin: /);
      expect(JSON.stringify(r)).not.toContain("hunter2");
    } finally {
      await remote.stop();
    }
  });
});

describe("withoutCredentials", () => {
  it("takes the user and token out of every address in a line, and leaves the rest", () => {
    expect(withoutCredentials("unable to access 'https://me:tok3n@git.example.com/m.git/': 403 from ssh://git@example.com/x")).toBe(
      "unable to access 'https://git.example.com/m.git/': 403 from ssh://example.com/x",
    );
    expect(withoutCredentials("git@example.com:me/memory.git rejected")).toBe("git@example.com:me/memory.git rejected");
  });
});
