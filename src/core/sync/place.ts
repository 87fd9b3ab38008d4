/**
 * The working tree brought from one commit to another after sync merged in git's store, file by
 * file, never over a person's save. `git merge` writes the files itself and checks nothing between
 * its look at a file and its write; Obsidian saves a note whole at any moment. So sync merges
 * without touching the files (sync.ts) and each file is then replaced only while it still holds
 * what the commit before held, byte for byte. A file the person changed meanwhile stays as they
 * saved it, and what the other computer sent goes beside it as a conflict copy.
 */

import { linkSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ChangedSince, noHardLinks, replaceBytesOrGiveBack, writeFileExclusive } from "../io/atomic";
import { readRegularFile } from "../io/read-file";
import { GitFailed, gitBytes, mustGit } from "./git";

/** A file one commit holds differently from the other (`git diff --raw`). */
export interface TreeChange {
  path: string;
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
}

const ABSENT = "000000";
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
export function placeTree(vault: string, from: string, to: string, copyName: (path: string) => string, env?: NodeJS.ProcessEnv): Placed {
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

function placeEach(
  vault: string,
  changes: readonly TreeChange[],
  olds: string,
  news: string,
  copyName: (path: string) => string,
  env: NodeJS.ProcessEnv | undefined,
): Placed {
  const placed: Placed = { conflicts: [], kept: [] };
  for (const c of changes) {
    const abs = join(vault, c.path);
    const aside = (): string => copyIn(vault, copyName(c.path));
    // A file that differs from the checkout's bytes and is still what was committed, as git sees
    // it: Obsidian writes a note with LF where git checks it out with CRLF (core.autocrlf on
    // Windows), and that is no save of the person's since the commit.
    const committed = (bytes: Buffer): boolean =>
      gitBytes(vault, ["hash-object", "--stdin", `--path=${c.path}`], { env, input: bytes, maxBytes: 1 << 16 })
        .toString("utf8")
        .trim() === c.oldOid;
    const was: Content | undefined = c.oldMode === ABSENT ? undefined : { ...readAside(olds, c.path), committed };
    const next = c.newMode === ABSENT ? undefined : readAside(news, c.path);
    if (next === undefined) {
      if (was && !removeIfUnchanged(abs, was, aside)) placed.kept.push(c.path);
      continue;
    }
    if (was === undefined) {
      if (!create(abs, next) && !holds(abs, next)) placed.conflicts.push([c.path, copyAside(vault, copyName(c.path), next)]);
      continue;
    }
    if (replaced(abs, was, next, aside) || holds(abs, next)) continue;
    placed.conflicts.push([c.path, copyAside(vault, copyName(c.path), next)]);
  }
  return placed;
}

interface Content {
  link: boolean;
  bytes: Buffer;
  /** Whether other bytes are this content as git sees it (its filters, line endings). */
  committed?: (bytes: Buffer) => boolean;
}

/** Whether the path holds `c` now: the same bytes in a regular file, or a link to the same place. */
function holds(abs: string, c: Content): boolean {
  try {
    if (c.link) return lstatSync(abs).isSymbolicLink() && readlinkSync(abs) === c.bytes.toString("utf8");
    const bytes = readRegularFile(abs, { maxBytes: MAX_PLACED_BYTES, noFollow: true });
    return bytes.equals(c.bytes) || (c.committed?.(bytes) ?? false);
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
    // The checkout's bytes first; then the file's own, when git sees them as what was committed.
    let expected = was.bytes;
    for (let tries = 0; tries < 2; tries++) {
      try {
        replaceBytesOrGiveBack(abs, expected, next.bytes, { maxBytes: MAX_PLACED_BYTES });
        return true;
      } catch (err) {
        if (!(err instanceof ChangedSince)) {
          // Removed since the commit: the new version takes the free place.
          if (!exists(abs)) return create(abs, next);
          throw err;
        }
        const now = bytesAt(abs);
        if (tries > 0 || now === undefined || now.equals(expected) || !was.committed?.(now)) return false;
        expected = now;
      }
    }
    return false;
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

/** The other computer's version beside the person's, under a free conflict copy name; that name. */
function copyAside(vault: string, copy: string, c: Content): string {
  const abs = copyIn(vault, copy);
  if (!create(abs, c)) throw new GitFailed(`${copy} appeared while sync was writing it`);
  return copy;
}

function copyIn(vault: string, copy: string): string {
  const abs = join(vault, copy);
  mkdirSync(dirname(abs), { recursive: true });
  return abs;
}
