/** Wikilinks as Obsidian reads and resolves them: one parser and one resolver for the index, lint, the digest and the sidebar. */

/** `folder/name#heading|alias` (or `[[…]]` around it) → `folder/name`; a link to a heading in the same note gives "". */
export function linkTarget(inner: string): string {
  const bare = inner.trim().replace(/^!?\[\[/, "").replace(/\]\]$/, "");
  // In a table the alias bar is escaped (`[[Table view\|Table]]`): the backslash is not part of the name.
  const noAlias = bare.split("|")[0].replace(/\\$/, "");
  const noAnchor = noAlias.split("#")[0];
  return noAnchor.replace(/\.md$/i, "").trim();
}

/** The lower-cased key a target or a path is compared by: forward slashes, no leading slash, no `.md`. */
function keyOf(pathOrTarget: string): string {
  return pathOrTarget.replace(/\\/g, "/").replace(/^\/+/, "").replace(/\.md$/i, "").toLowerCase();
}

const nameOf = (key: string): string => key.slice(key.lastIndexOf("/") + 1);

/**
 * A target written relative to the linking note (`[[../deploy]]`, `[[./notes/x]]`, Obsidian's
 * "relative path" link format) as a path from the vault's root; others as they are.
 */
function relativeTo(target: string, from: string): string {
  if (!target.startsWith("./") && !target.startsWith("../")) return target;
  const parts = from.split("/").slice(0, -1);
  for (const part of target.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

/**
 * Resolves link targets to note paths as Obsidian does: by file name when the target has no
 * folder (the note nearest the linking one when several share the name), else by the whole path
 * or a path that ends with the target (`[[deep/c]]` finds `notes/deep/c.md`), all ignoring case.
 * Kept up to date note by note, so the live index and lint share one without rebuilding it.
 */
export class LinkResolver {
  // File name → paths with that name, sorted, so that every caller picks the same one.
  private readonly byName = new Map<string, string[]>();

  constructor(paths: Iterable<string> = []) {
    for (const p of paths) this.add(p);
  }

  add(path: string): void {
    const name = nameOf(keyOf(path));
    const list = this.byName.get(name);
    if (!list) this.byName.set(name, [path]);
    else if (!list.includes(path)) {
      list.push(path);
      list.sort();
    }
  }

  remove(path: string): void {
    const name = nameOf(keyOf(path));
    const list = this.byName.get(name);
    if (!list) return;
    const at = list.indexOf(path);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.byName.delete(name);
  }

  /** The note `target` names, linked from `from` (a vault-relative path), or undefined. */
  resolve(target: string, from = ""): string | undefined {
    const t = relativeTo(keyOf(linkTarget(target)), keyOf(from));
    if (t === "") return undefined;
    const hits = this.byName.get(nameOf(t));
    if (!hits) return undefined;
    if (!t.includes("/")) {
      if (hits.length === 1) return hits[0];
      const dirs = keyOf(from).split("/").slice(0, -1);
      // The nearest note: the most leading folders shared with the linking note, then the shortest path.
      let best = hits[0];
      let bestShared = -1;
      for (const p of hits) {
        const folders = keyOf(p).split("/").slice(0, -1);
        let shared = 0;
        while (shared < dirs.length && shared < folders.length && dirs[shared] === folders[shared]) shared++;
        if (shared > bestShared || (shared === bestShared && p.length < best.length)) [best, bestShared] = [p, shared];
      }
      return best;
    }
    // Only notes of the target's file name can end with it, so this never scans the vault.
    return hits.find((p) => keyOf(p) === t) ?? hits.filter((p) => keyOf(p).endsWith("/" + t)).sort((a, b) => a.length - b.length)[0];
  }

  /**
   * The shortest link text from `from` that resolves to `path`: its file name when that is
   * unambiguous from there, else its whole path, as Obsidian's "shortest path" links are written.
   */
  linkTo(path: string, from = ""): string {
    const name = path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/i, "");
    return this.resolve(name, from) === path ? name : path.replace(/\.md$/i, "");
  }
}
