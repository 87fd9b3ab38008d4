/** The one project resolver, shared by capture and recall: which project a hook's `cwd` belongs to. */

import { statSync } from "node:fs";
import { readTextFile } from "./io/read-file";

// `.git` files and HEAD are a line each; the hooks read them in any project folder Claude Code runs in.
const GIT_FILE = { maxBytes: 4096 };
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/**
 * The base name of the git top-level above `cwd`, else of `cwd` itself. It looks for `.git` on
 * disk instead of running git: hooks must not spawn processes, and a stat per folder is cheap.
 * A `.git` file (worktrees, submodules) counts as well as a folder.
 */
export function resolveProject(cwd: string): string {
  if (!cwd) return "";
  const top = gitTopLevel(cwd);
  return basename((top && mainWorktree(top)) ?? top ?? resolve(cwd));
}

/**
 * For a linked worktree (its `.git` a file naming `<repo>/.git/worktrees/<name>`), the main
 * repository's folder: a worktree of vault-memory is vault-memory, whatever its own folder is
 * called. Undefined for anything else.
 */
function mainWorktree(top: string): string | undefined {
  try {
    const dotGit = join(top, ".git");
    if (!statSync(dotGit).isFile()) return undefined;
    const to = /^gitdir:\s*(.+)$/m.exec(readTextFile(dotGit, GIT_FILE))?.[1]?.trim();
    if (!to) return undefined;
    const gitDir = isAbsolute(to) ? to : join(top, to);
    const parts = gitDir.split(/[\\/]/);
    const at = parts.lastIndexOf("worktrees");
    return at >= 2 && parts[at - 1] === ".git" ? parts.slice(0, at - 1).join("/") || "/" : undefined;
  } catch {
    return undefined;
  }
}

/** The nearest folder at or above `cwd` that holds a `.git` folder or file, if any. */
export function gitTopLevel(cwd: string): string | undefined {
  if (!cwd) return undefined;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    try {
      statSync(join(dir, ".git"));
      return dir;
    } catch {
      /* not here */
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The checked-out branch (or the start of a detached commit) of the repository above `cwd`,
 * read from `HEAD` rather than asked of git; "" outside a repository. A `.git` file points at the
 * real git folder (worktrees, submodules).
 */
export function gitBranchOf(cwd: string): string {
  const top = gitTopLevel(cwd);
  if (!top) return "";
  try {
    let gitDir = join(top, ".git");
    if (statSync(gitDir).isFile()) {
      const to = /^gitdir:\s*(.+)$/m.exec(readTextFile(gitDir, GIT_FILE))?.[1]?.trim();
      if (!to) return "";
      gitDir = isAbsolute(to) ? to : join(top, to);
    }
    const head = readTextFile(join(gitDir, "HEAD"), GIT_FILE).trim();
    return head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : head.slice(0, 12);
  } catch {
    return "";
  }
}
