/** The one project resolver, shared by capture and recall: which project a hook's `cwd` belongs to. */

import { statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";

/**
 * The base name of the git top-level above `cwd`, else of `cwd` itself. It looks for `.git` on
 * disk instead of running git: hooks must not spawn processes, and a stat per folder is cheap.
 * A `.git` file (worktrees, submodules) counts as well as a folder.
 */
export function resolveProject(cwd: string): string {
  if (!cwd) return "";
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      statSync(`${dir}/.git`);
      return basename(dir);
    } catch {
      /* not here */
    }
    if (dirname(dir) === dir) break;
  }
  return basename(start);
}
