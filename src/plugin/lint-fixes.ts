/** Applies a lint finding's safe fix through Obsidian's own APIs, so links and frontmatter stay right. */

import { normalizePath, TFile, type App } from "obsidian";
import { addRelatedLink } from "../core/card/related";
import type { Finding } from "../core/lint/types";

/** Applies the fix; returns what was done, for a notice. */
/** `relatedHeading` opens a related section where a card has none (cards.relatedHeading). */
export async function applyFix(app: App, finding: Finding, relatedHeading?: string): Promise<string> {
  const file = app.vault.getAbstractFileByPath(finding.file);
  if (!(file instanceof TFile) || !finding.fix) throw new Error(`nothing to fix in ${finding.file}`);
  const fix = finding.fix;
  switch (fix.kind) {
    case "add-empty-tags":
      await app.fileManager.processFrontMatter(file, (fm: Record<string, unknown>) => {
        fm.tags ??= [];
      });
      return `Added empty tags to ${file.path}.`;
    case "archive":
      await app.fileManager.processFrontMatter(file, (fm: Record<string, unknown>) => {
        fm.status = "archived";
      });
      return `Archived ${file.path}: it stays in the vault and is no longer recalled.`;
    case "add-link-back":
      await app.vault.process(file, (text) => addRelatedLink(text, fix.target, relatedHeading || undefined));
      return `Linked ${file.path} back to ${fix.target}.`;
    case "move-to-folder": {
      const to = normalizePath(`${fix.folder}/${file.name}`);
      if (app.vault.getAbstractFileByPath(to)) throw new Error(`${to} already exists`);
      if (!app.vault.getAbstractFileByPath(fix.folder)) await app.vault.createFolder(fix.folder);
      // The file manager updates every link to the card, as a move in the file explorer would.
      await app.fileManager.renameFile(file, to);
      return `Moved ${file.path} to ${to}.`;
    }
  }
}
