/**
 * Brings the snapshot up to date with the card files on disk, without the vault's index: for a
 * session start and the MCP server, which run where Obsidian may never have seen the cards that
 * Claude's own Write tool, another editor, `git pull` or a sync put there.
 *
 * Which files changed comes from the listing alone: a file changed or added after the snapshot
 * read the files (its modification or status-change time past the header's scan time), and a
 * count of card files other than the header's, say something moved; only then are the snapshot's
 * paths read and compared. The changed cards are read and parsed, scored with the vault's counts
 * as the snapshot holds them (document frequencies from its postings, its card count and mean
 * length), and written as an overlay over the same base, as Obsidian writes one for an edit.
 */

import { parseCard } from "../card/card";
import { isRetired } from "../card/schema";
import { LinkResolver } from "../card/links";
import type { ScopeRules } from "../vault/scan";

/** Which files are cards: the vault's scope, and the synonyms note, which is not one. */
export type CardScope = ScopeRules & { index: { synonymsNote: string } };
import { cardFiles } from "../index/build-from-disk";
import { MemoryIndex, type IndexedDoc } from "../index/memory-index";
import { idfOf, lengthFactorOf } from "../index/scorer";
import { copyShape, familyKey } from "../vault/conflicts";
import { readNote, type NoteFile, type ScanInfo } from "../vault/scan";
import { vaultFiles } from "../paths";
import { overlayPathOf } from "./format";
import { SnapshotError, SnapshotReader } from "./read";
import { writeOverlay } from "./write";

export interface RefreshResult {
  /**
   * `current`: nothing changed; `overlay`: the changes are in an overlay now; `too-many`: more
   * changed than a session start should take on (a whole `index` is due); `unusable`: there is no
   * snapshot this can continue (missing, damaged, another release's: see remind's repair).
   */
  kind: "current" | "overlay" | "too-many" | "unusable";
  /** Card files added, changed and gone since the snapshot. */
  changed: number;
  /** Why, for the log. */
  reason: string;
}

export interface RefreshOptions {
  /** More changed cards than this, or a change to a conflict copy's family, is left to `index`. */
  maxChanged: number;
  now?: () => number;
}

/**
 * A file changed just after the scan may carry a time just before it: the kernel stamps files
 * from a clock that lags by up to a tick (a few milliseconds), and file systems that keep whole
 * seconds (HFS+) or two (FAT) round down. A file changed within this of the scan is read again.
 */
const FINE_SLACK_MS = 20;
const COARSE_SLACK_MS = 2000;

/** The slack for the file system the vault is on: coarse when no file's time has a fraction of a second. */
function slackOf(files: readonly NoteFile[]): number {
  return files.some((f) => f.mtime % 1000 !== 0) ? FINE_SLACK_MS : COARSE_SLACK_MS;
}

export function refreshSnapshot(vault: string, config: CardScope, opts: RefreshOptions): RefreshResult {
  const now = opts.now ?? Date.now;
  const path = vaultFiles.snapshot(vault);
  const at = now();
  let reader: SnapshotReader;
  try {
    reader = SnapshotReader.open(path);
  } catch (err) {
    if (err instanceof SnapshotError) return { kind: "unusable", changed: 0, reason: err.message };
    throw err;
  }
  try {
    const files = cardFiles(vault, config);
    const scan = reader.scan;
    const since = (scan?.at ?? Date.parse(reader.latestHeader.createdAt)) - slackOf(files);
    const touched = files.filter((f) => !(f.changed < since));
    if (touched.length === 0 && scan?.notes === files.length) return { kind: "current", changed: 0, reason: "no card file changed" };
    return update(reader, files, touched, { at, notes: files.length }, opts, path);
  } finally {
    reader.close();
  }
}

function update(reader: SnapshotReader, files: NoteFile[], touched: NoteFile[], scan: ScanInfo, opts: RefreshOptions, path: string): RefreshResult {
  const layout = reader.layout();
  const onDisk = new Map(files.map((f) => [f.path, f]));
  const live = new Set(layout.live.keys());
  const changed = new Set<string>(touched.map((f) => f.path));
  for (const p of live) if (!onDisk.has(p)) changed.add(p);
  // A file the snapshot does not hold is new, though its times are old (moved in, or renamed by a
  // sync that kept them), unless the index leaves it out (an archived card, or one it cannot read).
  for (const f of files) if (!live.has(f.path) && !changed.has(f.path) && indexable(f)) changed.add(f.path);
  if (changed.size === 0) return { kind: "current", changed: 0, reason: "no card changed" };
  if (changed.size > opts.maxChanged)
    return { kind: "too-many", changed: changed.size, reason: `${changed.size} card files changed since the snapshot, more than ${opts.maxChanged}` };
  const family = conflictRelated(files, changed);
  if (family) return { kind: "too-many", changed: changed.size, reason: `${family} is a sync conflict copy or has one, which only a whole index sorts out` };

  // The overlay holds every card changed since the base: those of the overlay there, and these.
  const dirty = new Set([...layout.changed, ...changed]);
  const header = reader.header;
  const small = new MemoryIndex(header.rules.scoring, header.index);
  for (const p of dirty) {
    const f = onDisk.get(p);
    if (!f) continue;
    try {
      small.upsert(parseCard(f.path, readNote(f.abs), f.mtime));
    } catch {
      // Unreadable now: as good as gone until it can be read; the next index says why.
    }
  }
  const docs = [...small.docs()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const cards = header.cards;
  const overlayId = new Map(docs.map((d, i) => [d.path, cards + i]));
  const removed: number[] = [];
  const moved: [number, number][] = [];
  for (const p of dirty) {
    const old = layout.baseId.get(p);
    if (old === undefined) continue;
    removed.push(old);
    const next = overlayId.get(p);
    if (next !== undefined) moved.push([old, next]);
  }
  removed.sort((a, b) => a - b);
  moved.sort((a, b) => a[0] - b[0]);
  // Cards alive in the base beside this overlay's, for the vault's counts.
  const unchanged = [...live].filter((p) => !dirty.has(p)).length;
  const docCount = unchanged + docs.length;
  const avgLength = header.avgLength ?? small.avgLength;
  // Every card is weighed with the base's own counts, so an edit changes only what it changed:
  // a card saved again as it was scores exactly as in the base. The base counts a changed card's
  // earlier version; taken to hold the same words as it does now, only cards new since the base
  // add to a word's count and to the card count. A word an edit added or dropped is off by one,
  // and a deleted card's words by one each, until the next full write: a few hundredths of IDF.
  // A count never passes the card count: a word held by every card weighs little, never less
  // than nothing (a negative weight would read back as millions).
  const isNew = new Set(docs.filter((d) => !layout.baseId.has(d.path)).map((d) => d.id));
  const weighCount = cards + isNew.size;
  const df = (term: string): number => {
    let added = 0;
    const list = small.termList(term);
    if (list) for (let i = 0; i < list.size; i++) if (isNew.has(list.ids[i])) added++;
    return Math.min(reader.baseTermCount(term) + added, weighCount);
  };
  const values = function* (d: IndexedDoc): Generator<[string, number]> {
    const lengthFactor = lengthFactorOf(d.length, avgLength, small.rules);
    for (const [term, packed] of small.packedOf(d)) yield [term, small.valueOf(packed, idfOf(Math.max(df(term), 1), Math.max(weighCount, 1)), lengthFactor)];
  };
  // Made only for a card that links: at 50,000 files it is a tenth of a second.
  let resolver: LinkResolver | undefined;
  const idOfPath = (p: string): number | undefined => overlayId.get(p) ?? (dirty.has(p) ? undefined : layout.live.get(p));
  const linksOf = (d: IndexedDoc): number[] => {
    if (d.linkTargets.length === 0) return [];
    resolver ??= new LinkResolver(files.map((f) => f.path));
    const r = resolver;
    return [...new Set(d.linkTargets.flatMap((t) => idOfPath(r.resolve(t, d.path) ?? "") ?? []))].sort((a, b) => a - b);
  };
  // The base's own rules: an overlay scored by others would not add up with it.
  writeOverlay(
    path,
    { index: small, docs, base: { headerSum: header.headerSum ?? "", cards }, info: { removed, moved, cards: docCount }, values, linksOf, avgLength, scan },
    header.rules,
  );
  return {
    kind: "overlay",
    changed: changed.size,
    reason: `${changed.size} card file${changed.size === 1 ? "" : "s"} changed since the snapshot, now in ${overlayPathOf(path)}`,
  };
}

/** Whether the index would hold the card at `f`: readable, and not archived or superseded. */
function indexable(f: NoteFile): boolean {
  try {
    return !isRetired(parseCard(f.path, readNote(f.abs), f.mtime).status);
  } catch {
    return false;
  }
}

/**
 * The first changed path that is, or has, a sync conflict copy: a copy's mark in the snapshot
 * depends on its whole family, which the vault's index works out and this does not.
 */
function conflictRelated(files: readonly NoteFile[], changed: ReadonlySet<string>): string | undefined {
  const keys = new Map<string, number>();
  const copied = new Set<string>();
  for (const f of files) {
    const key = familyKey(f.path);
    keys.set(key, (keys.get(key) ?? 0) + 1);
    const shape = copyShape(f.path);
    if (shape) copied.add(shape.key);
  }
  for (const p of changed) {
    const key = familyKey(p);
    if (copyShape(p) || (keys.get(key) ?? 0) > 1 || copied.has(key)) return p;
  }
  return undefined;
}
