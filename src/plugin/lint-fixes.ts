/** Applies a lint finding's safe fix through Obsidian's own APIs, so links and frontmatter stay right. */

import { normalizePath, TFile, type App } from "obsidian";
import type { LintFix } from "../core/lint/types";
import { addRelatedLink } from "../core/card/related";
import { archiveFields } from "../core/card/schema";
import { asidePaths, pathWithoutControl } from "../core/lint/rules";
import type { Finding } from "../core/lint/types";
import { escapeControl } from "../core/text/visible";

/** Applies the fix; returns what was done, for a notice (paths in it shown escaped, on one line). */
/** `relatedHeading` opens a related section where a card has none (cards.relatedHeading). */
export async function applyFix(app: App, finding: Finding, relatedHeading?: string): Promise<string> {
  const file = app.vault.getAbstractFileByPath(finding.file);
  if (!(file instanceof TFile) || !finding.fix) throw new Error(`nothing to fix in ${escapeControl(finding.file)}`);
  const fix = finding.fix;
  const shown = escapeControl(file.path);
  switch (fix.kind) {
    case "add-empty-tags":
      await app.fileManager.processFrontMatter(file, (fm: Record<string, unknown>) => {
        fm.tags ??= [];
      });
      return `Added empty tags to ${shown}.`;
    case "archive":
      await app.fileManager.processFrontMatter(file, (fm: Record<string, unknown>) => {
        Object.assign(fm, archiveFields(new Date(), `${fix.reason} (archived from the lint report)`));
      });
      return `Archived ${shown}: it stays in the vault and is no longer recalled.`;
    case "add-link-back":
      await app.vault.process(file, (text) => addRelatedLink(text, fix.target, relatedHeading || undefined));
      return `Linked ${shown} back to ${escapeControl(fix.target)}.`;
    case "move-to-folder": {
      const to = normalizePath(`${fix.folder}/${file.name}`);
      if (app.vault.getAbstractFileByPath(to)) throw new Error(`${escapeControl(to)} already exists`);
      if (!app.vault.getAbstractFileByPath(fix.folder)) await app.vault.createFolder(fix.folder);
      // The file manager updates every link to the card, as a move in the file explorer would.
      await app.fileManager.renameFile(file, to);
      return `Moved ${shown} to ${escapeControl(to)}.`;
    }
    case "rename": {
      // Worked out again against the vault as it is now: a note made since lint ran, or outside
      // what lint reads, may hold the name the finding offered.
      const notes = app.vault.getMarkdownFiles().map((f) => f.path);
      const to = normalizePath(pathWithoutControl(file.path, notes, (p) => app.vault.getAbstractFileByPath(normalizePath(p)) !== null));
      const folder = to.includes("/") ? to.slice(0, to.lastIndexOf("/")) : "";
      if (folder && !app.vault.getAbstractFileByPath(folder)) await app.vault.createFolder(folder);
      // Through the file manager, so that links to the note follow it, as a rename in the file explorer would.
      await app.fileManager.renameFile(file, to);
      return `Renamed ${shown} to ${escapeControl(to)}.`;
    }
    case "move-aside":
      return moveAside(app, shown, fix);
  }
}

/**
 * Moves a note's sync conflict copies into the hidden folder, each at its own path there, at a
 * name nothing holds now. Through the vault, not the file manager: a link that reached a copy
 * (a case twin, say) should reach the note that stays by the same name, not follow the copy into
 * a folder Obsidian does not show.
 */
async function moveAside(app: App, shown: string, fix: Extract<LintFix, { kind: "move-aside" }>): Promise<string> {
  // Looked up by the exact path: Obsidian's own lookup normalises to NFC, which is the kept note
  // for a copy whose name differs from it only in Unicode form.
  const files = new Map(app.vault.getFiles().map((f) => [f.path, f]));
  const present = fix.moves.map((m) => files.get(m.from)).filter((f): f is TFile => f !== undefined);
  if (present.length === 0) throw new Error(`the copies of ${shown} are gone already`);
  // What the hidden folder holds already, in lower case: a case-insensitive disk takes "Note.md" for "note.md".
  const taken = new Set<string>();
  for (const to of new Set([...asidePaths(present.map((f) => f.path)).values()].map((p) => normalizePath(p.slice(0, p.lastIndexOf("/")))))) {
    if (await app.vault.adapter.exists(to)) for (const f of (await app.vault.adapter.list(to)).files) taken.add(f.toLowerCase());
  }
  const moves = asidePaths(
    present.map((f) => f.path),
    (p) => taken.has(normalizePath(p).toLowerCase()),
  );
  const done: string[] = [];
  for (const file of present) {
    const to = normalizePath(moves.get(file.path)!);
    await app.vault.adapter.mkdir(to.slice(0, to.lastIndexOf("/")));
    await app.vault.rename(file, to);
    done.push(escapeControl(to));
  }
  return `Kept ${shown}; moved ${done.length === 1 ? "its copy" : `its ${done.length} copies`} to ${done.join(", ")}.`;
}
