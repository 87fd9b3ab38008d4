/** Finds the notes to index on disk, by the same rules the plugin applies to Obsidian's file list. */

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FOLDER_OF_TYPE } from "../card/schema";

export interface NoteFile {
  /** Vault-relative, forward slashes. */
  path: string;
  abs: string;
  mtime: number;
  size: number;
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

export function listNotes(vault: string, scope: ScopeRules): NoteFile[] {
  return listMarkdown(vault, (path) => isIndexable(path, scope));
}

/** Every markdown note outside dot folders that `keep` accepts, in path order. */
export function listMarkdown(vault: string, keep: (path: string) => boolean = (p) => p.toLowerCase().endsWith(".md")): NoteFile[] {
  const out: NoteFile[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) walk(abs, relPath);
      else if (entry.isFile() && relPath.toLowerCase().endsWith(".md") && keep(relPath)) {
        const st = statSync(abs);
        out.push({ path: relPath, abs, mtime: st.mtimeMs, size: st.size });
      }
    }
  };
  walk(vault, "");
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
