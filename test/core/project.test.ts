import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitBranchOf, resolveProject } from "../../src/core/project";
import { tempDir } from "../helpers";

describe("project", () => {
  it("resolves the git top-level of the cwd, else the cwd's name", () => {
    const root = join(tempDir(), "my-repo");
    mkdirSync(join(root, ".git"), { recursive: true });
    mkdirSync(join(root, "src", "deep"), { recursive: true });
    expect(resolveProject(join(root, "src", "deep"))).toBe("my-repo");
    const worktree = join(tempDir(), "wt");
    mkdirSync(worktree);
    writeFileSync(join(worktree, ".git"), "gitdir: /elsewhere\n");
    expect(resolveProject(worktree)).toBe("wt");
    const plain = join(tempDir(), "plain folder");
    mkdirSync(plain);
    expect(resolveProject(plain)).toBe("plain folder");
    expect(resolveProject("")).toBe("");
  });

  it("names a linked worktree after its main repository, as Claude Code's worktrees are", () => {
    const main = join(tempDir(), "vault-memory");
    mkdirSync(join(main, ".git", "worktrees", "fix-x"), { recursive: true });
    const wt = join(main, ".claude", "worktrees", "fix-x");
    mkdirSync(wt, { recursive: true });
    writeFileSync(join(wt, ".git"), `gitdir: ${join(main, ".git", "worktrees", "fix-x")}\n`);
    expect(resolveProject(join(wt))).toBe("vault-memory");
  });

  it("reads the branch from HEAD, through a worktree's .git file too", () => {
    const root = join(tempDir(), "repo");
    mkdirSync(join(root, ".git"), { recursive: true });
    writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/feature/x\n");
    mkdirSync(join(root, "src"));
    expect(gitBranchOf(join(root, "src"))).toBe("feature/x");
    const real = join(tempDir(), "real-git-dir");
    mkdirSync(real);
    writeFileSync(join(real, "HEAD"), "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f\n");
    const wt = join(tempDir(), "wt");
    mkdirSync(wt);
    writeFileSync(join(wt, ".git"), `gitdir: ${real}\n`);
    expect(gitBranchOf(wt)).toBe("3f2a9c1d8e7b");
    expect(gitBranchOf(join(tempDir(), "none"))).toBe("");
  });
});
