/**
 * The working tree brought from one commit to another after sync merged in git's store, file by
 * file, never over a person's save. `git merge` writes the files itself and checks nothing between
 * its look at a file and its write; Obsidian saves a note whole at any moment. So sync merges
 * without touching the files (sync.ts) and each file is then replaced only while it still holds
 * what the commit before held, byte for byte. A file the person changed meanwhile stays as they
 * saved it, and what the other computer sent goes beside it as a conflict copy.
 */

import { chmodSync, linkSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ChangedSince, ended, noHardLinks, replaceBytesOrGiveBack, writeFileExclusive } from "../io/atomic";
import { readRegularFile } from "../io/read-file";
import { GitFailed, mustGit, runGit } from "./git";

/** A file one commit holds differently from the other (`git diff --raw`). */
export interface TreeChange {
  path: string;
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
}

const ABSENT = "000000";
const EXECUTABLE = "100755";
const SUBMODULE = "160000";
/** A file larger than this is not placed: sync fails, saying which, before it changes anything. */
export const MAX_PLACED_BYTES = 256 << 20;

/** What changes between two commits, each path once (renames as a deletion and an addition). */
export function treeChanges(vault: string, from: string, to: string, env?: NodeJS.ProcessEnv): TreeChange[] {
  const parts = mustGit(vault, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", from, to], { env }).split("\0");
  const out: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) [A-Z]/.exec(parts[i]);
    if (!m) break;
    out.push({ path: parts[i + 1], oldMode: m[1], newMode: m[2], oldOid: m[3], newOid: m[4] });
  }
  return out;
}

/**
 * The files of `treeish` at `paths` as a checkout writes them (git's filters and line endings for
 * each path applied), written by git under a folder of sync's own in the git folder, out of the
 * vault: one `git checkout-index` for them all. The folder; the caller removes it.
 */
function checkOutAside(vault: string, gitDir: string, treeish: string, paths: readonly string[], tag: string, env?: NodeJS.ProcessEnv): string {
  const dir = join(gitDir, `${PLACE_DIR}${process.pid}-${tag}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (paths.length === 0) return dir;
  const odd = paths.find((p) => p.includes("\0"));
  if (odd) throw new GitFailed(`${JSON.stringify(odd)} cannot be placed`);
  const index = `${dir}.index`;
  const withIndex = { ...(env ?? process.env), GIT_INDEX_FILE: index };
  try {
    mustGit(vault, ["read-tree", treeish], { env: withIndex });
    mustGit(vault, ["checkout-index", "-f", `--prefix=${dir}/`, "-z", "--stdin"], { env: withIndex, input: paths.join("\0") + "\0" });
  } finally {
    rmSync(index, { force: true });
  }
  return dir;
}

/** The start of the names of sync's own folders in the git folder; those a stopped sync left are removed. */
export const PLACE_DIR = "vault-memory-sync-place-";

/** A file as checked out aside: a link's target, or a file's bytes. */
function readAside(dir: string, path: string): Content {
  const abs = join(dir, path);
  if (lstatSync(abs).isSymbolicLink()) return { link: true, bytes: Buffer.from(readlinkSync(abs), "utf8") };
  return { link: false, bytes: readRegularFile(abs, { maxBytes: MAX_PLACED_BYTES, noFollow: true }) };
}

export interface Placed {
  /** Paths whose new version went beside the person's, as a conflict copy: [path, copy]. */
  conflicts: Array<[string, string]>;
  /** Paths the other computer deleted that the person changed: kept. */
  kept: string[];
}

/**
 * Brings the working tree from `from` to `to` (commits or trees), each file only while it holds
 * what `from` held. `copyName` names a conflict copy of a path that is free.
 */
export function placeTree(vault: string, from: string, to: string, copyName: CopyName, env?: NodeJS.ProcessEnv): Placed {
  const changes = treeChanges(vault, from, to, env).filter((c) => c.oldMode !== SUBMODULE && c.newMode !== SUBMODULE);
  // No file is placed unless every file fits: sizes as git stores them, asked all at once.
  const oids = changes.filter((c) => c.newMode !== ABSENT).map((c) => c.newOid);
  const sizes =
    oids.length === 0 ? [] : mustGit(vault, ["cat-file", "--batch-check=%(objectsize)"], { env, input: oids.map((o) => `${o}\n`).join("") }).split("\n");
  const big = changes.filter((c) => c.newMode !== ABSENT).find((_, i) => !(Number(sizes[i]) <= MAX_PLACED_BYTES));
  if (big) throw new GitFailed(`${big.path} is over ${MAX_PLACED_BYTES >> 20} MB: sync does not place it; move it out of the vault`);
  const gitDir = mustGit(vault, ["rev-parse", "--absolute-git-dir"], { env }).trim();
  const olds = checkOutAside(
    vault,
    gitDir,
    from,
    changes.filter((c) => c.oldMode !== ABSENT).map((c) => c.path),
    "was",
    env,
  );
  try {
    const news = checkOutAside(
      vault,
      gitDir,
      to,
      changes.filter((c) => c.newMode !== ABSENT).map((c) => c.path),
      "next",
      env,
    );
    try {
      return placeEach(vault, changes, olds, news, copyName, env);
    } finally {
      rmSync(news, { recursive: true, force: true });
    }
  } finally {
    rmSync(olds, { recursive: true, force: true });
  }
}

function placeEach(vault: string, all: readonly TreeChange[], olds: string, news: string, copyName: CopyName, env: NodeJS.ProcessEnv | undefined): Placed {
  const placed: Placed = { conflicts: [], kept: [] };
  // Removals first: a note renamed only in case ("note.md" to "Note.md"), or a folder that becomes
  // a file, is then added where nothing is, not found already there (a disk that folds case sees
  // one file) and removed after.
  const changes = [...all.filter((c) => c.newMode === ABSENT), ...all.filter((c) => c.newMode !== ABSENT)];
  const was = new Map<string, Content>();
  for (const c of changes) if (c.oldMode !== ABSENT) was.set(c.path, readAside(olds, c.path));
  // A file whose bytes are not the checkout's may still be what was committed, as git sees it:
  // Obsidian writes a note with LF where git checks it out with CRLF (core.autocrlf on Windows).
  // Those are hashed by git in one call, and the bytes hashed become what the file must hold.
  const other = [...was].filter(([path, w]) => !w.link && !(bytesAt(join(vault, path))?.equals(w.bytes) ?? true));
  if (other.length > 0) {
    const seen = other.map(([path]) => ({ path, bytes: bytesAt(join(vault, path)) }));
    const oids = mustGit(vault, ["hash-object", "--stdin-paths"], { env, input: seen.map((x) => `${x.path}\n`).join("") }).split("\n");
    const oldOid = new Map(changes.map((c) => [c.path, c.oldOid]));
    seen.forEach((x, i) => {
      if (x.bytes !== undefined && oids[i]?.trim() === oldOid.get(x.path)) was.get(x.path)!.also = x.bytes;
    });
  }
  for (const c of changes) {
    const abs = join(vault, c.path);
    const before = was.get(c.path);
    const next = c.newMode === ABSENT ? undefined : readAside(news, c.path);
    // Where the person's version goes when something new took its place while it was set aside.
    const aside = (): string => copyIn(vault, copyName(c.path, NONE_SAME));
    if (next === undefined) {
      if (before && !removeIfUnchanged(abs, before, aside)) placed.kept.push(c.path);
      else removeEmptyFolders(vault, dirname(abs));
      continue;
    }
    const done = before === undefined ? create(abs, next) : replaced(abs, before, next, aside);
    if (done) setMode(abs, c);
    else if (!holds(abs, next)) placed.conflicts.push([c.path, copyAside(vault, c.path, copyName, next)]);
  }
  return placed;
}

const NONE_SAME = (): boolean => false;

/**
 * A free name for a conflict copy of `path`; or the name of one already there that `same` says
 * holds the same version (a sync stopped half-way placed it), so that it is not made twice.
 */
export type CopyName = (path: string, same: (abs: string) => boolean) => string;

/** Git's executable bit on a file placed (checkout-index sets it on the file checked out aside). */
function setMode(abs: string, c: TreeChange): void {
  if (c.newMode === EXECUTABLE) chmodSync(abs, 0o755);
  else if (c.oldMode === EXECUTABLE && c.newMode === "100644") chmodSync(abs, 0o644);
}

/** Removes the folders a removal left empty, up to the vault's own, never one holding anything. */
function removeEmptyFolders(vault: string, dir: string): void {
  for (let d = dir; d.length > vault.length && d.startsWith(vault); d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
  }
}

interface Content {
  link: boolean;
  bytes: Buffer;
  /** Other bytes that are this content as git sees it (its filters, line endings): the file's own. */
  also?: Buffer;
}

/** Whether the path holds `c` now: the same bytes in a regular file, or a link to the same place. */
function holds(abs: string, c: Content): boolean {
  try {
    if (c.link) return lstatSync(abs).isSymbolicLink() && readlinkSync(abs) === c.bytes.toString("utf8");
    const bytes = readRegularFile(abs, { maxBytes: MAX_PLACED_BYTES, noFollow: true });
    return bytes.equals(c.bytes) || (c.also?.equals(bytes) ?? false);
  } catch {
    return false;
  }
}

/** The bytes of the regular file at the path, or undefined when there is none or it cannot be read. */
function bytesAt(abs: string): Buffer | undefined {
  try {
    return readRegularFile(abs, { maxBytes: MAX_PLACED_BYTES, noFollow: true });
  } catch {
    return undefined;
  }
}

/** Puts `c` where nothing is; false when something is there. */
function create(abs: string, c: Content): boolean {
  mkdirSync(dirname(abs), { recursive: true });
  if (!c.link) return writeFileExclusive(abs, c.bytes);
  try {
    symlinkSync(c.bytes.toString("utf8"), abs);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/** Replaces `was` by `next` at the path while it holds `was`; false when it does not (a save came in). */
function replaced(abs: string, was: Content, next: Content, aside: () => string): boolean {
  if (!was.link && !next.link) {
    try {
      replaceBytesOrGiveBack(abs, was.also ?? was.bytes, next.bytes, { maxBytes: MAX_PLACED_BYTES });
      return true;
    } catch (err) {
      if (err instanceof ChangedSince) return false;
      // Removed since the commit: the new version takes the free place.
      if (!exists(abs)) return create(abs, next);
      throw err;
    }
  }
  // A link on either side: taken away while it still is what was committed, then made anew.
  return removeIfUnchanged(abs, was, aside) && create(abs, next);
}

/**
 * Takes the file at `abs` away while it holds `was`: moved aside first, so that a save landing
 * meanwhile is not lost; compared; removed, or put back. True when it was removed or was gone.
 * What cannot be put back (something new took its place) goes to `aside()`.
 */
function removeIfUnchanged(abs: string, was: Content, aside: () => string): boolean {
  const away = join(dirname(abs), `.${basename(abs)}.vm-sync-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    renameSync(abs, away);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw err;
  }
  if (holds(away, was)) {
    unlinkSync(away);
    return true;
  }
  // The person changed it: back in its place, never over something that came there since.
  try {
    linkSync(away, abs);
    unlinkSync(away);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") renameSync(away, aside());
    else if (noHardLinks(err) && !exists(abs)) renameSync(away, abs);
    else renameSync(away, aside());
  }
  return false;
}

function exists(abs: string): boolean {
  try {
    lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

/** The other computer's version beside the person's, as a conflict copy (one placed already is not made again); its name. */
function copyAside(vault: string, path: string, copyName: CopyName, c: Content): string {
  for (let tries = 0; tries < 8; tries++) {
    const copy = copyName(path, (abs) => holds(abs, c));
    const abs = copyIn(vault, copy);
    if (holds(abs, c) || create(abs, c)) return copy;
  }
  throw new GitFailed(`no free name for a conflict copy of ${path}`);
}

function copyIn(vault: string, copy: string): string {
  const abs = join(vault, copy);
  mkdirSync(dirname(abs), { recursive: true });
  return abs;
}

// What a writer killed in the middle of a replace leaves beside a file: its text, written whole
// first (tempPathFor: `name.<pid>.<n>.<time>.tmp`); a second name for what was there when it
// compared (`….tmp.held`); and what placement had moved aside to compare (`.name.vm-sync-<pid>-…`).
const LEFT_TEMP = /^(.+)\.(\d+)\.\d+\.[0-9a-z]+\.tmp$/;
const LEFT_HELD = /^(.+)\.(\d+)\.\d+\.[0-9a-z]+\.tmp\.held$/;
const LEFT_ASIDE = /^\.(.+)\.vm-sync-(\d+)-[0-9a-z]+$/;

/**
 * After a sync that was stopped half-way: what its writers left in the vault, of processes that
 * have ended, never committed and never lost. A temporary file holds only the writer's own text
 * (the commit has it) and goes; a file held or moved aside goes back to its name when that is
 * free, goes when the file there or the last commit holds the same, and becomes a conflict copy
 * otherwise. The names of those left.
 */
export function recoverLeftovers(vault: string, skip: readonly string[], copyName: CopyName, env?: NodeJS.ProcessEnv): string[] {
  const copies: string[] = [];
  const committed = (path: string, abs: string): boolean => {
    const head = runGit(vault, ["rev-parse", "-q", "--verify", `HEAD:${path}`], { env });
    return head.code === 0 && runGit(vault, ["hash-object", `--path=${path}`, "--", abs], { env }).out.trim() === head.out.trim();
  };
  const walk = (rel: string): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(join(vault, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!skip.includes(path)) walk(path);
        continue;
      }
      const abs = join(vault, path);
      const temp = LEFT_TEMP.exec(e.name);
      if (temp && ended(Number(temp[2]))) {
        rmSync(abs, { force: true });
        continue;
      }
      const kept = LEFT_HELD.exec(e.name) ?? LEFT_ASIDE.exec(e.name);
      if (!kept || !ended(Number(kept[2]))) continue;
      const name = rel === "" ? kept[1] : `${rel}/${kept[1]}`;
      const target = join(vault, name);
      const bytes = bytesAt(abs);
      if (bytes === undefined) continue;
      if (!exists(target)) {
        renameSync(abs, target);
        continue;
      }
      if (bytesAt(target)?.equals(bytes) || committed(name, abs)) {
        unlinkSync(abs);
        continue;
      }
      const copy = copyName(name, (other) => bytesAt(other)?.equals(bytes) ?? false);
      if (exists(join(vault, copy))) unlinkSync(abs);
      else renameSync(abs, copyIn(vault, copy));
      copies.push(copy);
    }
  };
  walk("");
  return copies;
}
