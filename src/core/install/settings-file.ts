/** Merges our hooks into Claude Code's settings.json, and takes them out again, keeping everything else. */

import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { diffLines, type ChangeObject } from "diff";
import { writeFileAtomic } from "../io/atomic";
import { editJsonText, JsonTextError } from "../io/json-text";
import { FileRefused, readRegularFile } from "../io/read-file";
import { hookCommand, isOurCommand, OUR_HOOKS, type Platform } from "./hook-commands";

export class SettingsFileError extends Error {}

export interface InstallTarget {
  platform: Platform;
  node: string;
  bridge: string;
  vault: string;
}

type Json = Record<string, unknown>;

/** Parses settings.json; a file that is not valid JSON gets an error saying where, and is never written. */
export function parseSettings(text: string, path: string): Json {
  if (text.trim() === "") return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== "object" || Array.isArray(v)) throw new SettingsFileError(`${path} is not a JSON object`);
    return v as Json;
  } catch (err) {
    if (err instanceof SettingsFileError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(msg);
    const where = pos ? lineCol(text, Number(pos[1])) : "";
    throw new SettingsFileError(
      `${path} is not valid JSON${where ? ` (${where})` : ""}: ${msg}. It was left untouched; fix it (comments and trailing commas are not allowed) and run install again.`,
    );
  }
}

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}

/** Removes every hook entry of ours; drops groups and events left empty by that. */
export function withoutOurHooks(settings: Json): Json {
  const out: Json = { ...settings };
  const hooks = settings.hooks;
  if (!hooks || typeof hooks !== "object" || Array.isArray(hooks)) return out;
  const next: Json = {};
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) {
      next[event] = groups;
      continue;
    }
    const kept = groups
      .map((g: unknown) => {
        if (!g || typeof g !== "object" || !Array.isArray((g as Json).hooks)) return g;
        const list = ((g as Json).hooks as unknown[]).filter((h) => !(h && typeof h === "object" && isOurCommand((h as Json).command)));
        return list.length === ((g as Json).hooks as unknown[]).length ? g : list.length === 0 ? undefined : { ...(g as Json), hooks: list };
      })
      .filter((g) => g !== undefined);
    if (kept.length > 0) next[event] = kept;
  }
  if (Object.keys(next).length > 0) out.hooks = next;
  else delete out.hooks;
  return out;
}

/**
 * The settings with exactly one current entry of ours per event. An entry already there is
 * updated where it stands, so a second install changes nothing and the person's order is kept.
 */
export function withOurHooks(settings: Json, t: InstallTarget): Json {
  const hooks: Json = { ...(settings.hooks && typeof settings.hooks === "object" && !Array.isArray(settings.hooks) ? (settings.hooks as Json) : {}) };
  for (const spec of OUR_HOOKS) {
    const entry = { type: "command", command: hookCommand(t.platform, t.node, t.bridge, spec.command, t.vault), timeout: spec.timeout };
    const groups = Array.isArray(hooks[spec.event]) ? (hooks[spec.event] as unknown[]) : [];
    let placed = false;
    const next = groups
      .map((g) => {
        if (!g || typeof g !== "object" || !Array.isArray((g as Json).hooks)) return g;
        const group = g as Json;
        const ours = (h: unknown): boolean => !!h && typeof h === "object" && isOurCommand((h as Json).command);
        const theirs = (group.hooks as unknown[]).filter((h) => !ours(h));
        if (theirs.length === (group.hooks as unknown[]).length) return g;
        // Our entry stays where it stands when its group's matcher is ours; a group an earlier
        // release wrote with another matcher (startup|resume, before compact|clear) takes the
        // current one when it holds only ours, and otherwise keeps the person's hooks as they
        // are while ours moves to a group of its own, below.
        const matches = (group.matcher ?? undefined) === spec.matcher;
        if (placed || (!matches && theirs.length > 0)) return theirs.length === 0 ? undefined : { ...group, hooks: theirs };
        placed = true;
        const list = (group.hooks as unknown[]).flatMap((h, i, all) => (!ours(h) ? [h] : all.findIndex(ours) === i ? [entry] : []));
        if (matches) return { ...group, hooks: list };
        const { matcher: _old, ...rest } = group;
        return spec.matcher ? { matcher: spec.matcher, ...rest, hooks: list } : { ...rest, hooks: list };
      })
      .filter((g) => g !== undefined);
    if (!placed) next.push(spec.matcher ? { matcher: spec.matcher, hooks: [entry] } : { hooks: [entry] });
    hooks[spec.event] = next;
  }
  return { ...settings, hooks };
}

export interface SettingsChange {
  /** As the person named it: shown, and where the backup goes. */
  path: string;
  /** The file written: a symlink's target, so a link into a dotfiles repository stays a link. */
  target: string;
  /** The existing file's permissions: it may hold an API key, so a rewrite must not widen them. */
  mode?: number;
  before: string;
  after: string;
  changed: boolean;
  /** Where the file as it is now is kept when the change is made; none when there is no file yet. */
  backup?: string;
}

/**
 * One backup, beside the name the person knows (not in a linked dotfiles repository), holding
 * the file as it was before the latest change: install and uninstall give the file back as it
 * was, so more would only pile up. Earlier releases' timestamped backups are left where they are.
 */
export const backupPathOf = (path: string): string => `${path}.vault-memory-backup`;

function resolveTarget(path: string): string {
  if (!lstatSync(path, { throwIfNoEntry: false })) return path;
  try {
    return realpathSync(path);
  } catch {
    throw new SettingsFileError(`${path} is a link to ${readlinkSync(path)}, which does not exist. It was left untouched; fix the link and try again.`);
  }
}

// A rename replaces a file whatever its own permissions, so a file made read-only must be refused
// here. The mode bits are read too, since root passes access().
function isReadOnly(path: string, mode: number): boolean {
  if ((mode & 0o200) === 0) return true;
  try {
    accessSync(path, constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

// A real settings file is a few kilobytes.
const MAX_SETTINGS_BYTES = 1 << 20;

/**
 * The settings file's text, undefined when there is none: a regular file (a FIFO put at the path
 * would hang install), at most 1 MB, and UTF-8, since text decoded otherwise and written back
 * would change bytes the edit never touched.
 */
function readSettingsText(file: string, path: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, { maxBytes: MAX_SETTINGS_BYTES });
  } catch (err) {
    if (err instanceof FileRefused && err.why === "missing") return undefined;
    throw new SettingsFileError(`${(err as Error).message}. It was left untouched.`);
  }
  const text = bytes.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(bytes))
    throw new SettingsFileError(`${path} is not UTF-8 text. It was left untouched; save it as UTF-8 and try again.`);
  return text;
}

/** What install (or uninstall) would write; nothing is written. */
export function planChange(path: string, mode: "install" | "uninstall", target: InstallTarget): SettingsChange {
  const file = resolveTarget(path);
  const st = statSync(file, { throwIfNoEntry: false });
  if (st && isReadOnly(file, st.mode))
    throw new SettingsFileError(`${path} is read-only. It was left untouched; make it writable (chmod u+w) and run ${mode} again.`);
  const before = (st && readSettingsText(file, path)) ?? "";
  const settings = parseSettings(before, path);
  const next = mode === "install" ? withOurHooks(settings, target) : withoutOurHooks(settings);
  let after: string;
  try {
    // Edited in place, so that what the person wrote keeps its bytes and uninstall gives them back.
    after = editJsonText(before, next);
  } catch (err) {
    if (err instanceof JsonTextError) throw new SettingsFileError(`${path} ${err.message}. It was left untouched.`);
    throw err;
  }
  return { path, target: file, mode: st ? st.mode & 0o777 : undefined, before, after, changed: after !== before, backup: st ? backupPathOf(path) : undefined };
}

/**
 * Writes a planned change: the backup of the old file first, then the new one, each atomically.
 * Returns the backup's path. A file that changed since the plan was made (the person confirms
 * after reading it, and may have edited the file meanwhile) is not written over: the plan would
 * undo their edit, and the one backup would keep it only until the next change.
 */
export function applyChange(change: SettingsChange): string | undefined {
  if (!change.changed) return undefined;
  const now = readSettingsText(change.target, change.path);
  if (now !== (change.mode === undefined ? undefined : change.before)) {
    throw new SettingsFileError(
      `${change.path} changed since the change was shown. Nothing was written; run it again to see the change against the file as it is now.`,
    );
  }
  if (change.backup !== undefined && now !== undefined) writeFileAtomic(change.backup, now, { mode: change.mode });
  writeFileAtomic(change.target, change.after, { mode: change.mode });
  return change.backup;
}

// Lines shown around each change, so the person sees where it goes.
const CONTEXT = 2;
// Past this many lines changed, a change is shown as all its old lines, then all its new ones:
// the diff of two unrelated large files would take long, and says nothing more.
const MAX_EDIT_LENGTH = 5000;

/** A line diff of the change, for the person to see before anything is written: each line taken out, each added, with a little context. */
export function describeChange(change: SettingsChange): string {
  if (!change.changed) return `${change.path}: already up to date, nothing to change.\n`;
  const ops = lineDiff(change.before, change.after);
  const out = [`--- ${change.path}`, `+++ ${change.path} (after)`];
  let last = -1;
  ops.forEach(([op, line], i) => {
    if (op === " " && !ops.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some(([o]) => o !== " ")) return;
    if (last >= 0 && i > last + 1) out.push("  …");
    out.push(`${op} ${line}`);
    last = i;
  });
  return out.join("\n") + "\n";
}

/**
 * `before` into `after` as kept (" "), taken out ("-") and added ("+") lines, in order: jsdiff's
 * line diff (Myers), so a moved line shows as taken out and added, and a line added twice shows twice.
 */
function lineDiff(before: string, after: string): [" " | "-" | "+", string][] {
  // A last line without its line end is the same line as with one; CRLF and LF lines are alike.
  const ended = (t: string): string => (t === "" || t.endsWith("\n") ? t : `${t}\n`);
  const changes: Pick<ChangeObject<string>, "value" | "added" | "removed">[] = diffLines(ended(before), ended(after), {
    stripTrailingCr: true,
    maxEditLength: MAX_EDIT_LENGTH,
  }) ?? [
    { value: ended(before).replace(/\r\n/g, "\n"), removed: true, added: false },
    { value: ended(after).replace(/\r\n/g, "\n"), removed: false, added: true },
  ];
  return changes.flatMap((c) =>
    (c.value === "" ? [] : c.value.slice(0, -1).split("\n")).map((line): [" " | "-" | "+", string] => [c.added ? "+" : c.removed ? "-" : " ", line]),
  );
}
