/**
 * Git as sync runs it: never waiting on a prompt for a password, every call bounded in time, and
 * nothing of a remote's credentials in what is said. Credentials are the person's own git set-up
 * (an ssh agent, a credential helper); the product stores none.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface GitResult {
  code: number | null;
  out: string;
  err: string;
}

/** Local commands; a network command gets its own, longer bound (see SyncOptions.networkTimeoutMs). */
const LOCAL_TIMEOUT_MS = 60_000;

export function runGit(dir: string, args: readonly string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; input?: string } = {}): GitResult {
  const base = opts.env ?? process.env;
  const r = spawnSync("git", ["-C", dir, ...args], {
    encoding: "utf8",
    input: opts.input,
    timeout: opts.timeoutMs ?? LOCAL_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 2 ** 20,
    env: {
      ...base,
      // A run nobody watches must fail rather than wait for a password: a scheduler's night, or
      // a session start's pull in the background.
      GIT_TERMINAL_PROMPT: "0",
      GIT_SSH_COMMAND: base.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes",
      GIT_MERGE_AUTOEDIT: "no",
      // Messages are read by this code, in English, whatever the person's language.
      LC_ALL: "C",
    },
  });
  const timedOut = r.error !== undefined && /ETIMEDOUT/.test(String(r.error));
  const err = (r.stderr ?? "") + (timedOut ? `no answer within ${Math.round((opts.timeoutMs ?? LOCAL_TIMEOUT_MS) / 1000)} s` : r.error ? String(r.error) : "");
  return { code: r.status, out: r.stdout ?? "", err };
}

/** `git ...` that must succeed; its first line of complaint, credentials taken out, otherwise. */
export function mustGit(dir: string, args: readonly string[], opts: Parameters<typeof runGit>[2] = {}): string {
  const r = runGit(dir, args, opts);
  if (r.code !== 0) throw new GitFailed(`git ${args[0]}: ${firstLine(r.err || r.out)}`);
  return r.out;
}

export class GitFailed extends Error {}

/** The first line worth reading of git's complaint, with any credentials in a URL taken out. */
export function firstLine(text: string): string {
  const line =
    text
      .split("\n")
      .map((l) => l.replace(/^(fatal|error): /, "").trim())
      .find((l) => l !== "" && !l.startsWith("hint:")) ?? "failed";
  return withoutCredentials(line);
}

/** A remote's URL as it may be shown: `https://user:token@host/x` becomes `https://host/x`. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, "$1");
}

/**
 * Git's three-way merge of texts, as it merges a file: the merged text when the two sides'
 * changes do not touch, undefined when they do. The texts go through files of a private
 * temporary folder, removed at once.
 */
export function mergeTexts(base: string, ours: string, theirs: string): string | undefined {
  if (ours === theirs) return ours;
  if (base === ours) return theirs;
  if (base === theirs) return ours;
  const dir = mkdtempSync(join(tmpdir(), "vm-merge-"));
  try {
    const [o, b, t] = ["ours", "base", "theirs"].map((name, i) => {
      const path = join(dir, name);
      writeFileSync(path, [ours, base, theirs][i], { mode: 0o600 });
      return path;
    });
    const r = runGit(dir, ["merge-file", "-p", "--quiet", o, b, t]);
    return r.code === 0 ? r.out : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
