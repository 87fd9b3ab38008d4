/** Finds the notes to index on disk, by the same rules the plugin applies to Obsidian's file list. */

import { readdirSync, statSync, type Dirent } from "node:fs";
import { join, resolve, sep } from "node:path";
import { FOLDER_OF_TYPE } from "../card/schema";
import { readTextFile, sizeText } from "../io/read-file";

// A note is text a person writes: the largest in Obsidian's own help is 67 KB. A file past this
// at a note's name is something else (a log, a dump), and reading it whole, as every reader of
// notes does, would take the command's memory with it.
export const MAX_NOTE_BYTES = 8 << 20;

/** A note's text: a regular file only, opened without blocking, at most MAX_NOTE_BYTES (throws FileRefused saying why). */
export function readNote(abs: string): string {
  return readTextFile(abs, { maxBytes: MAX_NOTE_BYTES });
}

/** A file named like a note that is not read, and why: for the line each command prints or logs. */
export interface SkippedNote {
  path: string;
  reason: string;
}

export interface NoteFile {
  /** Vault-relative, forward slashes. */
  path: string;
  abs: string;
  mtime: number;
  size: number;
  /**
   * The later of its modification and status-change times: a sync or copy that keeps a file's
   * old modification time still moves its status-change time, which no program can set back.
   */
  changed: number;
}

export interface ScopeRules {
  /** Only notes under this folder count; "" means the whole vault. */
  memoryFolder: string;
  /** Vault-relative folders whose notes are never indexed. */
  excludeFolders: readonly string[];
}

/**
 * Whether a vault-relative path is a card that recall may show. Dot folders (.obsidian, .trash,
 * our own) are never cards, and the root MEMORY.md is the index of cards, not a card.
 */
export function isIndexable(path: string, scope: ScopeRules): boolean {
  if (!isMarkdownName(path)) return false;
  const parts = path.split("/");
  if (parts.some((p) => p.startsWith(".") || p === "node_modules")) return false;
  const { folder, excluded } = foldersOf(scope);
  if (folder !== "" && !path.startsWith(folder + "/")) return false;
  const inScope = folder === "" ? path : path.slice(folder.length + 1);
  if (inScope === "MEMORY.md") return false;
  return !excluded.some((ex) => path === ex || path.startsWith(ex + "/"));
}

// The scope's folders as paths compare with them; worked out once per settings object, since a
// session start asks of every card file of the vault.
const scopeFolders = new WeakMap<ScopeRules, { folder: string; excluded: string[]; key: string }>();

function foldersOf(scope: ScopeRules): { folder: string; excluded: string[] } {
  // Settings objects are edited in place (Obsidian's tab): the folders are worked out again then.
  const key = scope.memoryFolder + "\0" + scope.excludeFolders.join("\0");
  const known = scopeFolders.get(scope);
  if (known && known.key === key) return known;
  const made = { folder: trimSlashes(scope.memoryFolder), excluded: scope.excludeFolders.map(trimSlashes).filter((f) => f !== ""), key };
  scopeFolders.set(scope, made);
  return made;
}

export function listNotes(vault: string, scope: ScopeRules, onSkip?: (s: SkippedNote) => void): NoteFile[] {
  return listMarkdown(vault, (path) => isIndexable(path, scope), onSkip);
}

/**
 * Every markdown note outside dot folders that `keep` accepts, in path order. What is named like
 * one and is not a regular file of a note's size (a FIFO, a socket, a device, a link, which the
 * walk does not follow, or a file over MAX_NOTE_BYTES) is left out, and told to `onSkip`.
 */
export function listMarkdown(
  vault: string,
  keep: (path: string) => boolean = (p) => p.toLowerCase().endsWith(".md"),
  onSkip?: (s: SkippedNote) => void,
): NoteFile[] {
  const out: NoteFile[] = [];
  // A session start lists every card file to see whether one changed: at 50,000 notes, joining and
  // lower-casing each whole path cost a tenth of it. Paths are built by hand from a resolved root.
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const name = entry.name;
      if (name.charCodeAt(0) === 0x2e || name === "node_modules") continue;
      const relPath = rel === "" ? name : rel + "/" + name;
      if (entry.isDirectory()) walk(dir + sep + name, relPath);
      else if (isMarkdownName(name) && keep(relPath)) {
        const found = noteFile(entry, relPath, dir + sep + name);
        if ("reason" in found) onSkip?.(found);
        else out.push(found);
      }
    }
  };
  walk(resolve(vault), "");
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function isMarkdownName(name: string): boolean {
  const n = name.length;
  return n > 3 && name.charCodeAt(n - 3) === 0x2e && (name.charCodeAt(n - 2) | 0x20) === 0x6d && (name.charCodeAt(n - 1) | 0x20) === 0x64;
}

function noteFile(entry: Dirent, path: string, abs: string): NoteFile | SkippedNote {
  if (!entry.isFile()) return { path, reason: `not read: ${direntKind(entry)}, not a note` };
  try {
    const st = statSync(abs);
    if (st.size > MAX_NOTE_BYTES) return { path, reason: `not read: ${sizeText(st.size)}, over the ${sizeText(MAX_NOTE_BYTES)} a note may be` };
    return { path, abs, mtime: st.mtimeMs, size: st.size, changed: Math.max(st.mtimeMs, st.ctimeMs) };
  } catch (err) {
    return { path, reason: `not read: ${(err as Error).message}` };
  }
}

function direntKind(entry: Dirent): string {
  if (entry.isSymbolicLink()) return "a link (links are not followed)";
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  return "not a regular file";
}

function trimSlashes(p: string): string {
  return p.replace(/^\/+|\/+$/g, "");
}

/** Whether a vault-relative path is a card: indexable, and not the synonyms note (which is settings). */
export function isCard(path: string, config: ScopeRules & { index: { synonymsNote: string } }): boolean {
  return isIndexable(path, config) && path !== config.index.synonymsNote;
}

const TYPE_FOLDERS: ReadonlySet<string> = new Set(Object.values(FOLDER_OF_TYPE));

/**
 * Whether a vault-relative path lies in one of the type folders (projects/, reference/, moc/…)
 * of the memory folder: the notes held to the card schema. Any other note is recalled as it is,
 * its title and description taken from its name and first paragraph, so nothing it lacks is wrong.
 */
export function inCardFolder(path: string, memoryFolder: string): boolean {
  const folder = trimSlashes(memoryFolder);
  if (folder !== "" && !path.startsWith(folder + "/")) return false;
  const inScope = folder === "" ? path : path.slice(folder.length + 1);
  const slash = inScope.indexOf("/");
  return slash > 0 && TYPE_FOLDERS.has(inScope.slice(0, slash));
}

/** Whether a regular file is at the vault path now (recall's check that a card it prints exists). */
export function noteExists(vault: string, path: string): boolean {
  try {
    return statSync(join(vault, path), { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * What a writer that read the vault's files knows of them: a file changed after `at` (by its
 * modification or status-change time), or a count of card files other than `notes`, means the
 * snapshot may be behind the files, and a session start brings it up to date (see refresh.ts).
 */
export interface ScanInfo {
  /** Epoch ms just before the files were listed. */
  at: number;
  /** How many card files were listed then. */
  notes: number;
}
