/** Commits the vault after a digest, if it is a git repository, refusing a commit that deletes too much. */

import { spawnSync } from "node:child_process";
import { HIDDEN_DIR } from "../paths";

export const MAX_DELETIONS = 30;

export type GitOutcome =
  | { status: "not-a-repo" }
  | { status: "nothing-to-commit" }
  | { status: "committed"; files: number }
  | { status: "refused"; deletions: number }
  | { status: "failed"; error: string };

function git(vault: string, args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync("git", ["-C", vault, ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout ?? "", err: (r.stderr ?? "") + (r.error ? String(r.error) : "") };
}

/**
 * Stages everything but our hidden folder and commits with `message`. A change that would delete
 * more than MAX_DELETIONS files is unstaged and refused: a wrong path once nearly pushed the
 * deletion of a whole vault.
 */
export function commitVault(vault: string, message: string): GitOutcome {
  if (git(vault, ["rev-parse", "--is-inside-work-tree"]).out.trim() !== "true") return { status: "not-a-repo" };
  const add = git(vault, ["add", "-A", "--", ".", `:(exclude)${HIDDEN_DIR}`]);
  if (add.code !== 0) return { status: "failed", error: add.err.trim() };
  const staged = git(vault, ["diff", "--cached", "--name-status"]).out.split("\n").filter(Boolean);
  if (staged.length === 0) return { status: "nothing-to-commit" };
  const deletions = staged.filter((l) => l.startsWith("D")).length;
  if (deletions > MAX_DELETIONS) {
    git(vault, ["reset", "-q"]);
    return { status: "refused", deletions };
  }
  const c = git(vault, ["-c", "user.name=Vault Memory", "-c", "user.email=vault-memory@localhost", "commit", "-q", "-m", message]);
  return c.code === 0 ? { status: "committed", files: staged.length } : { status: "failed", error: c.err.trim() };
}
