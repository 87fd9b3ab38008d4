/** Merges our hooks into Claude Code's settings.json, and takes them out again, keeping everything else. */

import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { readRegularFile, readTextFile } from "../io/read-file";

const MAX_SETTINGS_BYTES = 16 << 20;
import { writeFileAtomic } from "../io/atomic";
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
    throw new SettingsFileError(`${path} is not valid JSON${where ? ` (${where})` : ""}: ${msg}. It was left untouched; fix it (comments and trailing commas are not allowed) and run install again.`);
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
        const list = ((g as Json).hooks as unknown[]).flatMap((h) => {
          if (!(h && typeof h === "object" && isOurCommand((h as Json).command))) return [h];
          if (placed) return [];
          placed = true;
          return [entry];
        });
        return list.length === 0 ? undefined : { ...(g as Json), hooks: list };
      })
      .filter((g) => g !== undefined);
    if (!placed) next.push(spec.matcher ? { matcher: spec.matcher, hooks: [entry] } : { hooks: [entry] });
    hooks[spec.event] = next;
  }
  return { ...settings, hooks };
}

/** The file's own indentation, so a rewrite changes only what it must. */
export function detectIndent(text: string): string | number {
  const m = /^([ \t]+)"/m.exec(text);
  return m ? m[1] : 2;
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
}

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

/** What install (or uninstall) would write; nothing is written. */
export function planChange(path: string, mode: "install" | "uninstall", target: InstallTarget): SettingsChange {
  const file = resolveTarget(path);
  const st = statSync(file, { throwIfNoEntry: false });
  if (st && isReadOnly(file, st.mode)) throw new SettingsFileError(`${path} is read-only. It was left untouched; make it writable (chmod u+w) and run ${mode} again.`);
  // Claude Code's settings are a few kilobytes; a FIFO or a device at the name is refused, not waited on.
  const before = st ? readTextFile(file, { maxBytes: MAX_SETTINGS_BYTES }) : "";
  const settings = parseSettings(before, path);
  const next = mode === "install" ? withOurHooks(settings, target) : withoutOurHooks(settings);
  const indent = detectIndent(before);
  const after = JSON.stringify(next, null, indent) + "\n";
  // Unchanged content means an unchanged file, byte for byte, whatever its formatting.
  const same = JSON.stringify(settings) === JSON.stringify(next);
  return { path, target: file, mode: st ? st.mode & 0o777 : undefined, before, after: same ? before : after, changed: !same };
}

/** Writes a planned change: a backup of the old file first, then the new one atomically. */
export function applyChange(change: SettingsChange, now = new Date()): string | undefined {
  if (!change.changed) return undefined;
  let backup: string | undefined;
  if (change.mode !== undefined) {
    // Beside the name the person knows, not in a linked dotfiles repository; never over an
    // earlier backup, which an install and uninstall in the same millisecond would share a name with.
    const stem = `${change.path}.vault-memory-backup-${now.toISOString().replace(/[:.]/g, "-")}`;
    backup = stem;
    for (let i = 1; existsSync(backup); i++) backup = `${stem}-${i}`;
    writeFileAtomic(backup, readRegularFile(change.target, { maxBytes: MAX_SETTINGS_BYTES }), { mode: change.mode });
  }
  writeFileAtomic(change.target, change.after, { mode: change.mode });
  return backup;
}

/** A readable line diff of the change, for the person to see before anything is written. */
export function describeChange(change: SettingsChange): string {
  if (!change.changed) return `${change.path}: already up to date, nothing to change.\n`;
  const a = change.before.split("\n");
  const b = change.after.split("\n");
  const setA = new Set(a);
  const setB = new Set(b);
  const lines = [`--- ${change.path}`, `+++ ${change.path} (after)`];
  for (const l of a) if (!setB.has(l) && l.trim()) lines.push(`- ${l}`);
  for (const l of b) if (!setA.has(l) && l.trim()) lines.push(`+ ${l}`);
  return lines.join("\n") + "\n";
}
