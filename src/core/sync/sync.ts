/**
 * `sync`: one memory on several computers, through a git repository the person owns. This
 * computer's changes are committed, the other computers' fetched and merged (history that was
 * pushed is never rewritten), and the result pushed; when another computer pushed in between,
 * again, a bounded number of times. A note changed on both sides is merged when it can be (see
 * merge-note.ts); when it cannot, both versions are kept, the other computer's as a conflict copy
 * that lint already knows, and the report names it. No conflict marker is ever left in a note.
 */

import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join, posix } from "node:path";
import { writeFileAtomic } from "../io/atomic";
import { withFileLock } from "../io/file-lock";
import { readTextFile } from "../io/read-file";
import { HIDDEN_DIR, vaultFiles } from "../paths";
import { GENERATED_MARK } from "../card/schema";
import { MAX_NOTE_BYTES } from "../vault/scan";
import { INDEX_END, INDEX_START, MEMORY_INDEX } from "../digest/pages";
import { MAX_DELETIONS } from "../digest/git";
import { GitFailed, firstLine, mustGit, runGit, withoutCredentials } from "./git";
import { keepMachineStateOut } from "./gitignore";
import { mergeNote } from "./merge-note";
import { PLACE_DIR, placeTree, recoverLeftovers } from "./place";

export interface SyncOptions {
  vault: string;
  /** Sync though more than MAX_DELETIONS files would be deleted, here or by the merge. */
  force?: boolean;
  /** Say what would be committed and received; commit, merge and push nothing (a fetch updates only git's record of the remote). */
  dryRun?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Each fetch and push; a remote that does not answer in this time fails the sync. */
  networkTimeoutMs?: number;
  /** How many times to merge again when another computer pushed first. */
  retries?: number;
  now?: Date;
  /** This computer's name in commit messages. */
  machine?: string;
  /** Rewrites the generated pages (MEMORY.md's index, moc/) after a merge; the paths it wrote. */
  regenerate?: () => string[];
  onProgress?: (line: string) => void;
}

export interface SyncConflict {
  /** The note as this computer had it, kept in place. */
  path: string;
  /** The other computer's version, kept beside it. */
  copy: string;
}

export interface SyncReport {
  ok: boolean;
  error?: string;
  /** The remote branch, e.g. `origin/main`. */
  upstream?: string;
  /** Files this computer's commit held. */
  committed: number;
  /** Commits of other computers merged in. */
  received: number;
  /** Notes changed on both sides and merged. */
  merged: string[];
  conflicts: SyncConflict[];
  /** Notes one side deleted and the other changed: kept, changed. */
  kept: string[];
  regenerated: string[];
  pushed: boolean;
  /** More deletions than MAX_DELETIONS, refused without --force. */
  refused?: { direction: "outgoing" | "incoming"; deletions: string[] };
  /** Notes at the vault's root named like a folder beside them, never synced (see rootShadows). */
  skipped: string[];
  /** A dry run: what this computer would commit, and how many commits wait on the remote. */
  planned?: { outgoing: string[]; incoming: number };
  /** An earlier sync was stopped half-way (killed, the power lost); this one finished it. */
  recovered?: boolean;
}

const NETWORK_TIMEOUT_MS = 120_000;
const RETRIES = 3;
// Longer than any sync: network steps of two minutes, a few retries.
const LOCK = { staleMs: 30 * 60_000, waitMs: 60_000, what: "a sync of this vault" };
const IDENTITY = ["-c", "user.name=Vault Memory", "-c", "user.email=vault-memory@localhost"];

export function syncVault(opts: SyncOptions): SyncReport {
  const report: SyncReport = { ok: false, committed: 0, received: 0, merged: [], conflicts: [], kept: [], regenerated: [], pushed: false, skipped: [] };
  const { vault } = opts;
  try {
    const top = runGit(vault, ["rev-parse", "--show-toplevel"]);
    if (top.code !== 0)
      throw new GitFailed("the vault is not a git repository: `git init`, add a remote you own, and push once with `git push -u origin main`");
    if (!sameFolder(top.out.trim(), vault))
      throw new GitFailed(`the vault is inside the git repository ${top.out.trim()}; sync works on a vault that is a repository of its own`);
    mkdirSync(vaultFiles.dir(vault), { recursive: true });
    return noted(
      vault,
      withFileLock(syncLockPath(vault), () => locked(opts, report), LOCK),
      opts.dryRun,
    );
  } catch (err) {
    report.ok = false;
    report.error = withoutCredentials(err instanceof Error ? err.message : String(err));
    return noted(vault, report, opts.dryRun);
  }
}

export const syncLockPath = (vault: string): string => join(vaultFiles.dir(vault), "sync.lock");
const statusPath = (vault: string): string => join(vaultFiles.dir(vault), "sync-status.json");

/** When the last sync ended and how, for a session start deciding whether to sync again. */
export interface SyncStatus {
  finishedAt: string;
  ok: boolean;
  error?: string;
}

function noted(vault: string, report: SyncReport, dryRun?: boolean): SyncReport {
  if (dryRun || !existsSync(vaultFiles.dir(vault))) return report;
  try {
    writeFileAtomic(
      statusPath(vault),
      JSON.stringify({ finishedAt: new Date().toISOString(), ok: report.ok, ...(report.error ? { error: report.error } : {}) } satisfies SyncStatus),
    );
  } catch {
    /* the status is a convenience: a sync that did its work is not failed for it */
  }
  return report;
}

export function readSyncStatus(vault: string): SyncStatus | undefined {
  try {
    const s = JSON.parse(readTextFile(statusPath(vault), { maxBytes: 1 << 14 })) as Partial<SyncStatus>;
    return typeof s.finishedAt === "string" && typeof s.ok === "boolean" ? (s as SyncStatus) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a sync that runs by itself (a session start's, Obsidian's every few minutes) is due:
 * none ended in the last `everyMs`, and none is running (its lock is there and not stale).
 */
export function syncDue(vault: string, everyMs: number, now = Date.now()): boolean {
  const last = readSyncStatus(vault);
  if (last && now - Date.parse(last.finishedAt) < everyMs) return false;
  try {
    if (now - statSync(syncLockPath(vault)).mtimeMs < LOCK.staleMs) return false;
  } catch {
    /* no lock: none running */
  }
  return true;
}

function locked(opts: SyncOptions, report: SyncReport): SyncReport {
  const { vault } = opts;
  const git = (args: string[], network = false): string =>
    mustGit(vault, args, { env: opts.env, timeoutMs: network ? (opts.networkTimeoutMs ?? NETWORK_TIMEOUT_MS) : undefined });
  const gitDir = git(["rev-parse", "--absolute-git-dir"]).trim();
  const state = join(vaultFiles.dir(vault), "sync-state.json");
  report.recovered = recover(gitDir, state);
  if (report.recovered) {
    // What its writers left beside the files, so that this sync's commit holds none of it.
    const day = (opts.now ?? new Date()).toISOString().slice(0, 10);
    const copies = recoverLeftovers(vault, [".git", HIDDEN_DIR], (path, same) => freeCopyName(vault, path, day, "recovered", same), opts.env);
    for (const copy of copies) opts.onProgress?.(`kept ${copy}, left by the sync that was stopped`);
  }
  if (existsSync(join(gitDir, "MERGE_HEAD")) || existsSync(join(gitDir, "rebase-merge")) || existsSync(join(gitDir, "rebase-apply"))) {
    throw new GitFailed("a merge or rebase Vault Memory did not start is under way in the vault: finish or abort it first");
  }
  const branch = runGit(vault, ["symbolic-ref", "--short", "-q", "HEAD"], { env: opts.env }).out.trim();
  if (!branch) throw new GitFailed("the vault's repository is not on a branch (a detached HEAD): check out its branch first");
  let remote = runGit(vault, ["config", `branch.${branch}.remote`], { env: opts.env }).out.trim();
  let merge = runGit(vault, ["config", `branch.${branch}.merge`], { env: opts.env }).out.trim();
  if (!remote || !merge) {
    // A repository with one remote and no upstream yet: the first sync makes the branch of that
    // name on it the upstream, as `git push -u` would.
    const remotes = runGit(vault, ["remote"], { env: opts.env }).out.split("\n").filter(Boolean);
    if (remotes.length !== 1)
      throw new GitFailed(`the branch ${branch} has no remote to sync with: \`git remote add origin <a private repository of yours>\` first`);
    [remote, merge] = [remotes[0], `refs/heads/${branch}`];
    if (!opts.dryRun) {
      git(["config", `branch.${branch}.remote`, remote]);
      git(["config", `branch.${branch}.merge`, merge]);
    }
  }
  report.upstream = `${remote}/${merge.replace(/^refs\/heads\//, "")}`;
  writeFileAtomic(state, JSON.stringify({ pid: process.pid, started: new Date().toISOString() }));
  try {
    if (!opts.dryRun && keepMachineStateOut(vault)) opts.onProgress?.("added this computer's own files to .gitignore");
    if (!commitHere(opts, report, git)) return report;
    opts.onProgress?.(`fetching ${report.upstream}`);
    fetch(remote, git);
    if (runGit(vault, ["rev-parse", "--verify", "-q", `refs/remotes/${report.upstream}`], { env: opts.env }).code !== 0) {
      // The remote has no such branch yet: this computer's vault starts it.
      if (!opts.dryRun) {
        const push = runGit(vault, ["push", "--quiet", "-u", remote, `HEAD:${merge}`], {
          env: opts.env,
          timeoutMs: opts.networkTimeoutMs ?? NETWORK_TIMEOUT_MS,
        });
        if (push.code !== 0)
          throw new GitFailed(`the remote refused the push: ${firstLine(push.err)}; this computer's changes are committed here and go with the next sync`);
        report.pushed = true;
      } else if (report.planned) report.planned.incoming = 0;
      report.ok = true;
      return report;
    }
    for (let attempt = 0; ; attempt++) {
      if (!mergeThere(opts, report, git)) return report;
      if (opts.dryRun) break;
      const up = `refs/remotes/${report.upstream}`;
      const ahead = Number(git(["rev-list", "--count", `${up}..HEAD`]).trim());
      if (ahead === 0) break;
      const before = git(["rev-parse", up]).trim();
      const push = runGit(vault, ["push", "--quiet", remote, `HEAD:${merge}`], { env: opts.env, timeoutMs: opts.networkTimeoutMs ?? NETWORK_TIMEOUT_MS });
      if (push.code === 0) {
        report.pushed = true;
        break;
      }
      // Another computer pushed between our fetch and our push (git says "fetch first", or, when
      // the two pushes meet on the remote, "cannot lock ref"): merge theirs too, and try again.
      const refused = (): GitFailed =>
        new GitFailed(`the remote refused the push: ${firstLine(push.err)}; this computer's changes are committed here and go with the next sync`);
      if (attempt >= (opts.retries ?? RETRIES)) throw refused();
      fetch(remote, git);
      if (git(["rev-parse", up]).trim() === before) throw refused();
      opts.onProgress?.("another computer pushed first; merging its changes too");
    }
    report.ok = true;
    return report;
  } finally {
    rmSync(state, { force: true });
  }
}

/**
 * Finishes what a sync stopped half-way left (its state file is still there): git's index lock,
 * which a killed git leaves behind, and sync's own index are taken away. Sync merges in git's
 * store and moves the branch only once the files are placed, so nothing else is half done: the
 * files it had placed already are as the other computer has them, and this sync commits and
 * merges them as any change. The sync lock is held, so no other sync is running; a git run by
 * the person at this very moment would be the one case this misjudges.
 */
function recover(gitDir: string, state: string): boolean {
  if (!existsSync(state)) return false;
  rmSync(join(gitDir, "index.lock"), { force: true });
  for (const name of readdirSync(gitDir))
    if (name.startsWith(SYNC_INDEX) || name.startsWith(PLACE_DIR)) rmSync(join(gitDir, name), { recursive: true, force: true });
  return true;
}

function fetch(remote: string, git: (args: string[], network?: boolean) => string): void {
  try {
    git(["fetch", "--quiet", remote], true);
  } catch (err) {
    throw new GitFailed(
      `cannot reach the remote ${remote}: ${(err as Error).message.replace(/^git fetch: /, "")}; this computer's changes are committed here and go with the next sync`,
    );
  }
}

/** Commits what changed on this computer; false when the commit is refused (too many deletions) or only planned. */
function commitHere(opts: SyncOptions, report: SyncReport, git: (args: string[]) => string): boolean {
  const { vault } = opts;
  report.skipped = rootShadows(vault);
  git(["add", "-A", "--", "."]);
  // Taken back out rather than left out by pathspec: git refuses a pathspec naming an ignored path.
  const out = [HIDDEN_DIR, ...report.skipped].filter((p) => runGit(vault, ["ls-files", "--cached", "--", p], { env: opts.env }).out !== "");
  if (out.length > 0) git(["reset", "-q", "--", ...out.map((p) => `:(literal)${p}`)]);
  const staged = nameStatus(git(["diff", "--cached", "--name-status", "-z"]));
  const deletions = staged.filter((s) => s.status === "D").map((s) => s.path);
  if (deletions.length > MAX_DELETIONS && !opts.force) {
    git(["reset", "-q"]);
    report.refused = { direction: "outgoing", deletions };
    report.error = `refused: this computer's changes delete ${deletions.length} files, more than ${MAX_DELETIONS}; check the vault, then sync with --force if they are meant to go`;
    return false;
  }
  if (opts.dryRun) {
    git(["reset", "-q"]);
    report.planned = { outgoing: staged.map((s) => `${s.status} ${s.path}`), incoming: 0 };
    return true;
  }
  if (staged.length === 0) return true;
  const machine = opts.machine ?? hostname();
  commit(vault, opts.env, `vault-memory sync from ${machine}: ${staged.length} ${staged.length === 1 ? "file" : "files"}`);
  report.committed = staged.length;
  return true;
}

/** Merges what the other computers pushed; false when refused (too many deletions arriving). */
function mergeThere(opts: SyncOptions, report: SyncReport, git: (args: string[]) => string): boolean {
  const { vault } = opts;
  const up = `refs/remotes/${report.upstream}`;
  // A vault whose first commit is still to come (a new repository, nothing in it yet) takes the remote's as it is.
  const born = runGit(vault, ["rev-parse", "--verify", "-q", "HEAD"], { env: opts.env }).code === 0;
  const incoming = Number(git(["rev-list", "--count", born ? `HEAD..${up}` : up]).trim());
  if (incoming === 0) return true;
  // What their side deleted since the two sides met; two vaults that never met (each computer's
  // own, synced for the first time) delete nothing of each other's.
  const met = born && runGit(vault, ["merge-base", "HEAD", up], { env: opts.env }).code === 0;
  const deletions = met
    ? git(["diff", "--name-only", "-z", "--diff-filter=D", `HEAD...${up}`])
        .split("\0")
        .filter(Boolean)
    : [];
  if (deletions.length > MAX_DELETIONS && !opts.force) {
    report.refused = { direction: "incoming", deletions };
    report.error = `refused: the other computers' changes delete ${deletions.length} files, more than ${MAX_DELETIONS}; check the remote, then sync with --force if they are meant to go`;
    return false;
  }
  if (opts.dryRun) {
    if (report.planned) report.planned.incoming = incoming;
    return true;
  }
  opts.onProgress?.(`merging ${incoming} ${incoming === 1 ? "commit" : "commits"} from ${report.upstream}`);
  // Merged in git's store, not in the files: `git merge` writes each file it changes without
  // looking again at what is there, and a note the person saves meanwhile would be lost. The
  // files are brought to the merge afterwards, each only while it holds what was committed.
  const upOid = git(["rev-parse", up]).trim();
  const theirs = upOid.slice(0, 7);
  const head = born ? git(["rev-parse", "HEAD"]).trim() : undefined;
  let target = upOid;
  let pages = false;
  if (head !== undefined && runGit(vault, ["merge-base", "--is-ancestor", head, upOid], { env: opts.env }).code !== 0) {
    const merged = mergeInStore(opts, report, head, upOid, theirs);
    pages = merged.pages;
    target = git([
      ...identity(vault, opts.env),
      "commit-tree",
      merged.tree,
      "-p",
      head,
      "-p",
      upOid,
      "-m",
      `vault-memory sync: merged ${report.upstream}`,
    ]).trim();
  }
  const day = (opts.now ?? new Date()).toISOString().slice(0, 10);
  const placed = placeTree(vault, head ?? EMPTY_TREE, target, (path, same) => freeCopyName(vault, path, day, theirs, same), opts.env);
  for (const [path, copy] of placed.conflicts) report.conflicts.push({ path, copy });
  report.kept.push(...placed.kept);
  // The branch moves once the files are in place: a sync stopped before that has committed
  // nothing, and the next one finds the files it placed already as the other computer has them.
  git(["update-ref", "-m", `vault-memory sync: merged ${report.upstream}`, "HEAD", target, head ?? ZERO_OID]);
  // The index follows the branch; the files are as placed (a person's save stays a change to commit).
  git(["reset", "-q"]);
  report.received += incoming;
  // Generated pages both sides changed are made again from the merged cards, never merged line by line.
  if (pages && opts.regenerate) {
    const written = opts.regenerate();
    if (written.length > 0) {
      git(["add", "--", ...written]);
      if (git(["diff", "--cached", "--name-only"]).trim() !== "") {
        commit(vault, opts.env, "vault-memory sync: index pages");
        report.regenerated.push(...written);
      }
    }
  }
  return true;
}

// Git's names for the tree with nothing in it and for "no commit yet".
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const ZERO_OID = "0".repeat(40);

/** One side of a path git could not merge by itself: its mode and blob. */
interface Stage {
  mode: string;
  oid: string;
}

/**
 * Merges `up` into `head` in git's store (`git merge-tree`, git 2.38 and later): the merged tree,
 * with every path git could not merge resolved as sync resolves it (resolveInIndex), and whether
 * a generated page was among them, to be made again.
 */
function mergeInStore(opts: SyncOptions, report: SyncReport, head: string, up: string, theirs: string): { tree: string; pages: boolean } {
  const { vault } = opts;
  const r = runGit(vault, ["merge-tree", "--write-tree", "-z", "--no-messages", "--allow-unrelated-histories", head, up], { env: opts.env });
  if (r.code !== 0 && r.code !== 1) {
    const why = firstLine(r.err || r.out);
    throw new GitFailed(
      /usage|unknown option|write-tree/.test(why)
        ? "sync needs git 2.38 or later to merge without touching the notes: update git"
        : `the merge could not start: ${why}`,
    );
  }
  const parts = r.out.split("\0");
  const tree = parts[0].trim();
  const stages = new Map<string, Map<number, Stage>>();
  for (const entry of parts.slice(1)) {
    if (entry === "") break;
    const m = /^(\d{6}) ([0-9a-f]+) ([123])\t([\s\S]*)$/.exec(entry);
    if (!m) continue;
    let s = stages.get(m[4]);
    if (!s) stages.set(m[4], (s = new Map<number, Stage>()));
    s.set(Number(m[3]), { mode: m[1], oid: m[2] });
  }
  if (stages.size === 0) return { tree, pages: false };
  // The merged tree in an index of sync's own, each unmerged path resolved in it, then written.
  const gitDir = mustGit(vault, ["rev-parse", "--absolute-git-dir"], { env: opts.env }).trim();
  const index = join(gitDir, `${SYNC_INDEX}${process.pid}`);
  const env = { ...(opts.env ?? process.env), GIT_INDEX_FILE: index };
  try {
    mustGit(vault, ["read-tree", tree], { env });
    let pages = false;
    for (const [path, s] of stages) pages = resolveInIndex(opts, report, env, path, s, theirs) || pages;
    return { tree: mustGit(vault, ["write-tree"], { env }).trim(), pages };
  } finally {
    rmSync(index, { force: true });
  }
}

/** The start of the name of sync's own index in the git folder; one a stopped sync left is removed. */
const SYNC_INDEX = "vault-memory-sync-index-";

/**
 * Resolves one path both sides changed, in sync's index; true when it is a generated page to be
 * made again. A note is merged when it can be (merge-note.ts); otherwise this computer's version
 * stays and the other's goes beside it, whole, as a conflict copy.
 */
function resolveInIndex(opts: SyncOptions, report: SyncReport, env: NodeJS.ProcessEnv, path: string, s: Map<number, Stage>, theirs: string): boolean {
  const { vault } = opts;
  const set = (at: string, stage: Stage): void => void mustGit(vault, ["update-index", "--add", "--cacheinfo", `${stage.mode},${stage.oid},${at}`], { env });
  const ours = s.get(2);
  const other = s.get(3);
  // Deleted on one side, changed on the other: the changed note stays; nothing is lost by a deletion.
  if (!ours || !other) {
    const kept = ours ?? other;
    if (kept) {
      set(path, kept);
      report.kept.push(path);
    }
    return false;
  }
  const copy = (): void => {
    const sameBlob = (abs: string): boolean => runGit(vault, ["hash-object", "--", abs], { env: opts.env }).out.trim() === other.oid;
    const name = freeCopyName(vault, path, (opts.now ?? new Date()).toISOString().slice(0, 10), theirs, sameBlob);
    set(path, ours);
    set(name, other);
    report.conflicts.push({ path, copy: name });
  };
  const text = (stage: Stage | undefined): string | undefined =>
    stage && /^100/.test(stage.mode) && Number(mustGit(vault, ["cat-file", "-s", stage.oid], { env }).trim()) <= MAX_NOTE_BYTES
      ? mustGit(vault, ["cat-file", "blob", stage.oid], { env })
      : undefined;
  const [base, mine, theirsText] = path.toLowerCase().endsWith(".md") ? [text(s.get(1)), text(ours), text(other)] : [];
  if (mine === undefined || theirsText === undefined) {
    copy();
    return false;
  }
  const place = (merged: string): void => set(path, { mode: ours.mode, oid: mustGit(vault, ["hash-object", "-w", "--stdin"], { env, input: merged }).trim() });
  if (path === MEMORY_INDEX || (generatedPage(mine) && generatedPage(theirsText))) {
    // The index block and the overview pages are the digest's: ours now, made again after the merge.
    const merged = path === MEMORY_INDEX ? mergeNote(base && emptyIndex(base), emptyIndex(mine), emptyIndex(theirsText)) : mine;
    if (merged !== undefined) {
      place(merged);
      return true;
    }
  } else {
    const merged = mergeNote(base, mine, theirsText);
    if (merged !== undefined) {
      place(merged);
      report.merged.push(path);
      return false;
    }
  }
  copy();
  return false;
}

/**
 * Whether a note is one of the digest's overview pages: the mark is a line of its frontmatter.
 * A note that only quotes the mark, or a page the person took over by taking the mark out, is
 * the person's, merged as any note is.
 */
function generatedPage(text: string): boolean {
  if (!/^---\r?\n/.test(text)) return false;
  const end = text.search(/\r?\n---\s*(?:\r?\n|$)/);
  if (end < 0) return false;
  return text
    .slice(0, end)
    .split(/\r?\n/)
    .some((line) => line.trim() === GENERATED_MARK);
}

/**
 * `note (conflicted copy 2026-12-06 a1b2c3d).md`: a name lint and recall know as a copy of
 * `note.md`, free, or one already there that `same` says holds this version (a sync stopped
 * half-way placed it, and this one commits it), so that no copy is made twice.
 */
function freeCopyName(vault: string, path: string, day: string, commit: string, same: (abs: string) => boolean = () => false): string {
  const ext = posix.extname(path);
  const stem = path.slice(0, path.length - ext.length);
  for (let n = 1; ; n++) {
    const name = `${stem} (conflicted copy ${day} ${commit}${n > 1 ? ` ${n}` : ""})${ext}`;
    const abs = join(vault, name);
    if (!existsSync(abs) || same(abs)) return name;
  }
}

/** MEMORY.md with its generated index block emptied, so that only the person's own text is merged. */
function emptyIndex(text: string): string {
  const start = text.indexOf(INDEX_START);
  const end = text.indexOf(INDEX_END);
  return start >= 0 && end > start ? text.slice(0, start + INDEX_START.length) + "\n" + text.slice(end) : text;
}

function commit(vault: string, env: NodeJS.ProcessEnv | undefined, message: string): void {
  mustGit(vault, [...identity(vault, env), "commit", "-q", "--no-verify", "-m", message], { env });
}

/** The person's own name when their git has one; the product's otherwise, so a sync never fails for want of it. */
function identity(vault: string, env: NodeJS.ProcessEnv | undefined): string[] {
  return runGit(vault, ["config", "user.email"], { env }).out.trim() !== "" ? [] : IDENTITY;
}

function nameStatus(z: string): { status: string; path: string }[] {
  const parts = z.split("\0").filter((p) => p !== "");
  const out: { status: string; path: string }[] = [];
  for (let i = 0; i < parts.length; i++) {
    const status = parts[i][0];
    // A rename or copy names two paths; the new one is what the commit holds.
    if (status === "R" || status === "C") i++;
    out.push({ status, path: parts[++i] ?? "" });
  }
  return out;
}

/**
 * Notes at the vault's root named like a folder beside them (`debugging.md` beside `debugging/`):
 * the cards of an older layout, which the source this product comes from never syncs, so that a
 * stale copy does not travel back over the folder's cards. Lint names them.
 */
export function rootShadows(vault: string): string[] {
  const entries = readdirSync(vault, { withFileTypes: true });
  // By name as lint tells it (lint/rules.ts, stray-root-note), whatever the disk makes of case.
  const folders = new Set(entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name.toLowerCase()));
  return entries
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith(".md") && e.name !== MEMORY_INDEX && folders.has(e.name.slice(0, -3).toLowerCase()))
    .map((e) => e.name);
}

function sameFolder(a: string, b: string): boolean {
  try {
    return statSync(a).ino === statSync(b).ino && statSync(a).dev === statSync(b).dev;
  } catch {
    return false;
  }
}
