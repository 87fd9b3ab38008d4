/**
 * Where a program Vault Memory runs may live. It runs as the person, every night: a file that a
 * vault's other writers (a sync, a teammate, git pull) or another account can change would let
 * them run anything as the person. So a program, and every file a command line names, must be
 * outside the vault, and on POSIX the program and each folder above it must be the person's (or
 * root's) and writable by no one else (a sticky folder such as /tmp excepted).
 */

import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { homeDir } from "./home";

/** Whether `path` is `root` or inside it, both real (links resolved). */
function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The real path of `path`, or of the nearest folder above it that exists, with the rest joined on. */
export function realPathOrParent(path: string): string {
  const rest: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const up = dirname(at);
      if (up === at) return resolve(path);
      rest.push(at.slice(up.length).replace(/^[\\/]+/, ""));
      at = up;
    }
  }
}

/** Why `file` is inside the vault (through links too), or "". */
export function insideVaultProblem(file: string, vault: string): string {
  return within(realPathOrParent(file), realPathOrParent(vault)) ? `${file} is inside the vault ${vault}` : "";
}

/**
 * Why the program at the absolute path `program` must not be run for this vault, or "" when it
 * may: inside the vault, or a file or folder above it that another account owns or may write.
 */
export function programProblem(program: string, vault: string): string {
  const inVault = insideVaultProblem(program, vault);
  if (inVault) return `${inVault}, where whoever can write the vault could change it`;
  if (process.platform === "win32" || typeof process.getuid !== "function") return "";
  const uid = process.getuid();
  let at = realPathOrParent(program);
  for (;;) {
    let st;
    try {
      st = statSync(at);
    } catch {
      return "";
    }
    if (st.uid !== uid && st.uid !== 0) return `${at} belongs to another user, who could change the program`;
    if (st.mode & 0o022 && !(st.isDirectory() && st.mode & 0o1000))
      return `${at} can be written by other users (mode ${(st.mode & 0o777).toString(8)}), who could change the program`;
    const up = dirname(at);
    if (up === at) return "";
    at = up;
  }
}

/**
 * Why a command line must not be run for this vault: its program (an absolute path, as found)
 * fails programProblem, or another word of it names an existing file inside the vault (a script
 * handed to an interpreter, `sh ~/Notes/mail.sh`). "" when it may run.
 */
export function commandProblem(words: readonly string[], vault: string, env: NodeJS.ProcessEnv = process.env): string {
  const [program, ...args] = words;
  if (program && isAbsolute(program)) {
    const why = programProblem(program, vault);
    if (why) return why;
  }
  for (const word of args) {
    for (const candidate of pathsIn(word, env)) {
      if (existsSync(candidate)) {
        const why = insideVaultProblem(candidate, vault);
        if (why) return `${why}, where whoever can write the vault could change it`;
      }
    }
  }
  return "";
}

/** The paths a word of a command line may name: itself, a `~/` path, or the value after `=`. */
function pathsIn(word: string, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const w of [word, word.slice(word.indexOf("=") + 1)]) {
    const t = w.replace(/^["']|["']$/g, "");
    if (t.startsWith("~/")) out.push(join(homeDir(env), t.slice(2)));
    else if (isAbsolute(t)) out.push(t);
  }
  return out;
}

/** The words of a shell command line, roughly: split on blanks, quotes taken off. Enough to find the paths it names. */
export function shellWords(command: string): string[] {
  return (command.match(/"[^"]*"|'[^']*'|[^\s;|&<>()]+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ""));
}
