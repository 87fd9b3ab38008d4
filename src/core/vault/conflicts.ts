/**
 * Sync conflict copies: the extra files Syncthing, Dropbox, iCloud, Google Drive and a
 * case-sensitive disk leave beside a note, recognised by name (and, for a plain number, by text)
 * so that a note and its copies count as one: recall shows one of them, lint offers to move the
 * rest aside.
 */

/** What made the copy, for the person reading lint's report. */
export type CopyKind = "syncthing" | "dropbox" | "numbered" | "case" | "unicode";

export interface ConflictFamily {
  /** The note that stays: the original when there is one, else the first copy. */
  keep: string;
  /** The other notes of the family, each with what made it. */
  copies: { path: string; kind: CopyKind }[];
}

// note.sync-conflict-20240101-123456-ABCDEFG (the device id is missing in older releases).
const SYNCTHING = /^(.*)\.sync-conflict-\d{8}-\d{6}(?:-[A-Za-z0-9]+)?$/;
// note (conflicted copy 2024-01-01), note (Person's conflicted copy 2024-01-01 123456), and
// Dropbox's note (Case Conflict) and (Case Conflict 1) for a name that differed only in case.
const DROPBOX = /^(.*?)\s*\((?:[^()]*\s)?(?:conflicted copy|case conflict)\b[^()]*\)$/i;
// iCloud's and macOS's note 2, note 3…; Google Drive's and Obsidian's note (1), note (2)…
const NUMBERED = /^(.*\S)(?: ([2-9]|[1-9]\d+)| \((\d+)\))$/;

/** A copy's name says it is one only up to its text: its original must exist, with about the same words. */
export type Alike = (copy: string, original: string) => boolean;

// eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included
const NON_ASCII = /[^\u0000-\u007f]/;

/** The name in the form every copy of it shares: folder and file name, NFC, lower case, no `.md`. */
export function familyKey(path: string): string {
  const name = path.replace(/\.md$/i, "");
  // Most names are ASCII, which NFC leaves as it is: a vault of 50,000 notes is keyed on every write.
  return (NON_ASCII.test(name) ? name.normalize("NFC") : name).toLowerCase();
}

interface Parsed {
  /** The family key of the note the name says it copies. */
  key: string;
  kind: "syncthing" | "dropbox" | "numbered";
}

/** The original a name says it is a copy of, when it says so. */
export function copyShape(path: string): Parsed | undefined {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1).replace(/\.md$/i, "");
  const last = name.charCodeAt(name.length - 1);
  // Every shape but Syncthing's ends in a digit or a parenthesis: most names are ruled out here.
  if (!(last >= 0x30 && last <= 0x39) && last !== 0x29 && !name.includes(".sync-conflict-")) return undefined;
  for (const [re, kind] of [
    [SYNCTHING, "syncthing"],
    [DROPBOX, "dropbox"],
    [NUMBERED, "numbered"],
  ] as const) {
    const m = re.exec(name);
    if (m && m[1].trim() !== "") return { key: familyKey(path.slice(0, slash + 1) + m[1]), kind };
  }
  return undefined;
}

/**
 * The families among `paths` (vault-relative notes): an original with its conflict copies, or
 * copies whose original is gone. A name that differs from another only in case or in Unicode form
 * (é as one code point or e and a combining accent) is a copy whatever its text; Syncthing's and
 * Dropbox's names say so themselves; "note 2" and "note (1)" are copies only beside a `note` whose
 * text `alike` finds the same or nearly, since "Chapter 2" is often a chapter. Only families of
 * two or more notes are returned.
 */
export function conflictFamilies(paths: Iterable<string>, alike: Alike): ConflictFamily[] {
  const plain = new Map<string, string[]>();
  const marked: { path: string; shape: Parsed }[] = [];
  for (const path of paths) {
    const shape = copyShape(path);
    if (shape && shape.kind !== "numbered") {
      marked.push({ path, shape });
      continue;
    }
    const key = familyKey(path);
    const group = plain.get(key);
    if (group) group.push(path);
    else plain.set(key, [path]);
    if (shape) marked.push({ path, shape });
  }
  const families = new Map<string, ConflictFamily>();
  for (const [key, group] of plain) {
    if (group.length === 1) continue;
    const [keep, ...rest] = [...group].sort(byPreference);
    families.set(key, { keep, copies: rest.map((path) => ({ path, kind: twinKind(path, keep) })) });
  }
  for (const { path, shape } of marked.sort((a, b) => compare(a.path, b.path))) {
    const originals = plain.get(shape.key);
    const original = families.get(shape.key)?.keep ?? originals?.[0];
    if (shape.kind === "numbered") {
      // A numbered name with twins of its own is a note of that name, not a copy.
      if (!original || (plain.get(familyKey(path))?.length ?? 0) > 1 || !alike(path, original)) continue;
    }
    const family = families.get(shape.key);
    if (family) family.copies.push({ path, kind: shape.kind });
    else if (original) families.set(shape.key, { keep: original, copies: [{ path, kind: shape.kind }] });
    // Copies whose original is gone: the first stays, and the others are its copies.
    else families.set(shape.key, { keep: path, copies: [] });
  }
  return [...families.values()].filter((f) => f.copies.length > 0);
}

/** The path each copy belongs with: copy → the family's kept note. */
export function copiesOf(families: readonly ConflictFamily[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of families) for (const c of f.copies) out.set(c.path, f.keep);
  return out;
}

/**
 * Which of two same-named notes is kept: the NFC form, as Obsidian names files and links (a macOS
 * disk once wrote NFD), then the one with fewer capitals (note.md beside Note.md), then code-point
 * order, so the choice is the same on every computer and every run, in recall and in lint.
 */
function byPreference(a: string, b: string): number {
  const nfcA = a === a.normalize("NFC");
  const nfcB = b === b.normalize("NFC");
  if (nfcA !== nfcB) return nfcA ? -1 : 1;
  return capitals(a) - capitals(b) || compare(a, b);
}

function capitals(s: string): number {
  let n = 0;
  for (const c of s) if (c !== c.toLowerCase()) n++;
  return n;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function twinKind(path: string, keep: string): CopyKind {
  return path.normalize("NFC") === keep.normalize("NFC") ? "unicode" : "case";
}

// The share of words two texts must have in common to be copies of one note, 4 in 5: an iCloud
// copy is the same text, maybe with an edit made on one side before the sync caught up.
const ALIKE_PARTS = 4;
const ALIKE_OF = 5;

/**
 * Whether two word counts are of the same text or nearly: the words in common (each as often as
 * the rarer side has it) at least 4 in 5 of the words of both (each as often as the commoner).
 */
export function alikeCounts<K>(a: ReadonlyMap<K, number>, b: ReadonlyMap<K, number>): boolean {
  let common = 0;
  let all = 0;
  for (const [w, n] of a) {
    const m = b.get(w) ?? 0;
    common += Math.min(n, m);
    all += Math.max(n, m);
  }
  for (const [w, m] of b) if (!a.has(w)) all += m;
  return common * ALIKE_OF >= all * ALIKE_PARTS;
}
