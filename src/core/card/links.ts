/** Wikilinks as Obsidian reads and resolves them: one parser and one resolver for the index, lint, the digest and the sidebar. */

// What the cuts of linkTarget look for: brackets, the alias bar, the anchor, an escaping backslash.
const LINK_SYNTAX_RE = /[[\]|#\\]/;

/** `folder/name#heading|alias` (or `[[…]]` around it) → `folder/name`; a link to a heading in the same note gives "". */
export function linkTarget(inner: string): string {
  // Most link texts are a bare name: none of the cuts below can change one but the last.
  if (!LINK_SYNTAX_RE.test(inner)) return inner.trim().replace(/\.md$/i, "").trim();
  const bare = inner
    .trim()
    .replace(/^!?\[\[/, "")
    .replace(/\]\]$/, "");
  // In a table the alias bar is escaped (`[[Table view\|Table]]`): the backslash is not part of the name.
  const noAlias = bare.split("|")[0].replace(/\\$/, "");
  const noAnchor = noAlias.split("#")[0];
  return noAnchor.replace(/\.md$/i, "").trim();
}

/** The lower-cased key a target or a path is compared by: forward slashes, no leading slash, no `.md`. */
function keyOf(pathOrTarget: string): string {
  return pathOrTarget.replace(/\\/g, "/").replace(/^\/+/, "").replace(/\.md$/i, "").toLowerCase();
}

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

const nameOf = (key: string): string => key.slice(key.lastIndexOf("/") + 1);

/** A key's beginnings that end at a folder boundary, slash included, longest first; "" (the vault's root) last. */
function folderPrefixes(key: string): string[] {
  const out: string[] = [];
  for (let at = key.lastIndexOf("/"); at >= 0; at = at === 0 ? -1 : key.lastIndexOf("/", at - 1)) out.push(key.slice(0, at + 1));
  out.push("");
  return out;
}

/** Where `path` goes in the sorted `list`: JavaScript's default sort order, by UTF-16 code units. */
function insertionPoint(list: readonly string[], path: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < path) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The notes that share a file name, sorted so that every caller picks the same one. A vault can
 * hold hundreds of one name (a README per folder, a help page per language); comparing a link
 * with each of them made resolving the links quadratic, so a group of several answers from maps
 * it builds the first time it is asked, and drops when a note joins or leaves it.
 */
class NameGroup {
  readonly paths: string[] = [];
  readonly keys: string[] = [];
  // A path-style target (`folder/name`) → the note whose whole key it is, else the shortest that ends with it.
  private byEnding: Map<string, { path: string; whole: boolean }> | undefined;
  // A folder prefix (see folderPrefixes) → the shortest note under it.
  private byFolder: Map<string, string> | undefined;

  add(path: string, key: string): void {
    const at = insertionPoint(this.paths, path);
    this.paths.splice(at, 0, path);
    this.keys.splice(at, 0, key);
    this.byEnding = this.byFolder = undefined;
  }

  remove(path: string): void {
    const at = insertionPoint(this.paths, path);
    if (this.paths[at] !== path) return;
    this.paths.splice(at, 1);
    this.keys.splice(at, 1);
    this.byEnding = this.byFolder = undefined;
  }

  /** The note a target with folders names: `t` is its key, whole or ending at a folder boundary. */
  ending(t: string): string | undefined {
    if (this.paths.length === 1) {
      const key = this.keys[0];
      return key === t || key.endsWith("/" + t) ? this.paths[0] : undefined;
    }
    if (!this.byEnding) {
      const byEnding = new Map<string, { path: string; whole: boolean }>();
      // In sorted order, replacing only a strictly better note, so that a tie goes to the first.
      const offer = (ending: string, path: string, whole: boolean): void => {
        const held = byEnding.get(ending);
        if (!held || (whole && !held.whole) || (!whole && !held.whole && path.length < held.path.length)) byEnding.set(ending, { path, whole });
      };
      this.paths.forEach((path, i) => {
        const key = this.keys[i];
        offer(key, path, true);
        // Only endings with a folder: a bare name is looked up by name.
        for (let at = key.indexOf("/"); at >= 0 && key.indexOf("/", at + 1) >= 0; at = key.indexOf("/", at + 1)) offer(key.slice(at + 1), path, false);
      });
      this.byEnding = byEnding;
    }
    return this.byEnding.get(t)?.path;
  }

  /** The note nearest a linking note whose folder prefixes are `prefixes`: the most leading folders shared, then the shortest path. */
  nearest(prefixes: readonly string[]): string {
    if (this.paths.length === 1) return this.paths[0];
    if (!this.byFolder) {
      const byFolder = new Map<string, string>();
      this.paths.forEach((path, i) => {
        for (const prefix of folderPrefixes(this.keys[i])) {
          const held = byFolder.get(prefix);
          if (held === undefined || path.length < held.length) byFolder.set(prefix, path);
        }
      });
      this.byFolder = byFolder;
    }
    for (const prefix of prefixes) {
      const hit = this.byFolder.get(prefix);
      if (hit !== undefined) return hit;
    }
    return this.paths[0];
  }
}

/**
 * Resolves link targets to note paths as Obsidian does: by file name when the target has no
 * folder (the note nearest the linking one when several share the name), else by the whole path
 * or a path that ends with the target (`[[deep/c]]` finds `notes/deep/c.md`), all ignoring case.
 * Kept up to date note by note, so the live index and lint share one without rebuilding it.
 */
export class LinkResolver {
  // File name (lower-cased) → the notes of that name.
  private readonly byName = new Map<string, NameGroup>();
  // Link text → its key: the same few texts are written in note after note.
  private readonly targetKeys = new Map<string, string>();

  constructor(paths: Iterable<string> = []) {
    for (const p of paths) this.add(p);
  }

  add(path: string): void {
    const key = keyOf(path);
    const name = nameOf(key);
    let group = this.byName.get(name);
    if (!group) this.byName.set(name, (group = new NameGroup()));
    else if (group.paths[insertionPoint(group.paths, path)] === path) return;
    group.add(path, key);
  }

  remove(path: string): void {
    const name = nameOf(keyOf(path));
    const group = this.byName.get(name);
    if (!group) return;
    group.remove(path);
    if (group.paths.length === 0) this.byName.delete(name);
  }

  /** The note `target` names, linked from `from` (a vault-relative path), or undefined. */
  resolve(target: string, from = ""): string | undefined {
    return this.from(from)(target);
  }

  /**
   * resolve for the links of one note: the linking note's folders are worked out once, and a
   * link text's key once for the vault, rather than at every link.
   */
  from(from: string): (target: string) => string | undefined {
    let fromKey: string | undefined;
    let prefixes: string[] | undefined;
    return (target) => {
      let t = this.targetKey(target);
      if (t.startsWith("./") || t.startsWith("../")) t = relativeTo(t, (fromKey ??= keyOf(from)));
      if (t === "") return undefined;
      const group = this.byName.get(nameOf(t));
      if (!group) return undefined;
      if (t.includes("/")) return group.ending(t);
      return group.nearest((prefixes ??= folderPrefixes((fromKey ??= keyOf(from)))));
    };
  }

  private targetKey(target: string): string {
    let key = this.targetKeys.get(target);
    if (key === undefined) {
      // Link texts repeat across a vault, so this stays small; the bound is for a long session.
      if (this.targetKeys.size >= 100_000) this.targetKeys.clear();
      this.targetKeys.set(target, (key = keyOf(linkTarget(target))));
    }
    return key;
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
