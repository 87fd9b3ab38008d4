/** Finds the notes to index on disk, by the same rules the plugin applies to Obsidian's file list. */

import { readdirSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
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
  if (!path.toLowerCase().endsWith(".md")) return false;
  const parts = path.split("/");
  if (parts.some((p) => p.startsWith(".") || p === "node_modules")) return false;
  const folder = trimSlashes(scope.memoryFolder);
  if (folder !== "" && !path.startsWith(folder + "/")) return false;
  const inScope = folder === "" ? path : path.slice(folder.length + 1);
  if (inScope === "MEMORY.md") return false;
  return !scope.excludeFolders.some((f) => {
    const ex = trimSlashes(f);
    return ex !== "" && (path === ex || path.startsWith(ex + "/"));
  });
}

export function listNotes(vault: string, scope: ScopeRules, onSkip?: (s: SkippedNote) => void): NoteFile[] {
  return listMarkdown(vault, (path) => isIndexable(path, scope), onSkip);
}

/**
 * Every markdown note outside dot folders that `keep` accepts, in path order. What is named like
 * one and is not a regular file of a note's size (a FIFO, a socket, a device, a link, which the
 * walk does not follow, or a file over MAX_NOTE_BYTES) is left out, and told to `onSkip`.
 */
export function listMarkdown(vault: string, keep: (path: string) => boolean = (p) => p.toLowerCase().endsWith(".md"), onSkip?: (s: SkippedNote) => void): NoteFile[] {
  const out: NoteFile[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) walk(abs, relPath);
      else if (relPath.toLowerCase().endsWith(".md") && keep(relPath)) {
        const found = noteFile(entry, relPath, abs);
        if ("reason" in found) onSkip?.(found);
        else out.push(found);
      }
    }
  };
  walk(vault, "");
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
