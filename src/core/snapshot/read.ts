/** Reads a snapshot lazily: the header, then only the segments a query needs, each checked before use. */

import { closeSync, readSync } from "node:fs";
import { FileRefused, openRegularFile } from "../io/read-file";
import type { IndexOptions } from "../index/index-options";
import { HINT_MARK, POSTING_WIDTH, type DocInfo, type FlatPostings, type PostingSource } from "../index/postings";
import { TOKENIZER_VERSION } from "../text/tokenizer";
import { fnv1aString, fnv1aWords } from "../io/hash";
import {
  DAY_MS,
  DOCS_PER_CHUNK,
  HEADER_SUM_KEY,
  MAX_HEADER_BYTES,
  overlayPathOf,
  RECORD_WIDTH,
  parseRecord,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  CATALOG_WIDTH,
  type CatalogSegment,
  type DocChunkSegment,
  type DocRow,
  type OverlayInfo,
  type ShardSegment,
  type SnapshotHeader,
} from "./format";
import type { ScanInfo } from "../vault/scan";

export type SnapshotProblem = "missing" | "unreadable" | "not-a-snapshot" | "old-version" | "tokenizer-mismatch" | "partial" | "corrupt";

/** Why a snapshot cannot be used; `problem` is stable for logs and tests, `message` is for people. */
export class SnapshotError extends Error {
  constructor(
    readonly problem: SnapshotProblem,
    message: string,
    /** For a format or tokenizer mismatch: whether a newer release wrote it (so ours must not replace it). */
    readonly newer = false,
  ) {
    super(message);
    this.name = "SnapshotError";
  }
}

/** One file of a snapshot (the base, or its overlay): its header, and its segments read on demand, each checked. */
class SegmentFile {
  private readonly tableStart: number;
  private readonly segmentsStart: number;
  private readonly shardCache = new Map<number, ShardSegment>();
  private readonly chunkCache = new Map<number, DocChunkSegment>();
  private readonly rawCache = new Map<number, Buffer>();
  private readonly listCache = new Map<string, FlatPostings | undefined>();
  bytesRead: number;

  constructor(
    private readonly fd: number,
    readonly header: SnapshotHeader,
    headerBytes: number,
  ) {
    this.tableStart = headerBytes + 1;
    this.segmentsStart = this.tableStart + (header.shards + header.docChunks + (header.catalog === 1 ? 1 : 0)) * RECORD_WIDTH + 1;
    this.bytesRead = headerBytes + 1;
  }

  /** Opens and validates the header and size; throws SnapshotError. */
  static open(path: string, missing: "throw" | "none" = "throw"): SegmentFile | undefined {
    let fd: number;
    let size: number;
    try {
      // Not blocking, and a regular file only: a FIFO put at the path would hang every prompt.
      ({
        fd,
        st: { size },
      } = openRegularFile(path));
    } catch (err) {
      const why = err instanceof FileRefused ? err.why : "unreadable";
      if (why === "missing" && missing === "none") return undefined;
      throw new SnapshotError(why === "missing" ? "missing" : "unreadable", `cannot open snapshot ${path}: ${(err as Error).message}`);
    }
    try {
      const { header, headerBytes } = readHeader(fd);
      if (size < headerBytes + 1 + header.bodyBytes) {
        throw new SnapshotError("partial", `snapshot is cut short: ${size} of ${headerBytes + 1 + header.bodyBytes} bytes`);
      }
      return new SegmentFile(fd, header, headerBytes);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /**
   * `key` in the shard of `term`: a term's hint postings share its shard, so scoring hints reads no
   * more segments. Only the key's own list is parsed, found in the shard's bytes: parsing a whole
   * shard builds an object of a few dozen keys no other shard has, and V8 makes a new hidden class
   * for each of them; a failed command's fifty words took 5 to 8 ms that way, their lists alone
   * under 1 ms. A typo bucket, whose words could hold "]", is read from the shard parsed whole.
   */
  lookup(term: string, key: string): FlatPostings | undefined {
    if (this.listCache.has(key)) return this.listCache.get(key);
    const shard = fnv1aString(term) % this.header.shards;
    const parsed = this.shardCache.get(shard);
    let list: FlatPostings | undefined;
    if (parsed) list = Object.hasOwn(parsed, key) ? parsed[key] : undefined;
    else {
      const buf = this.shardBytes(shard);
      const at = listStart(buf, key);
      if (at < 0) list = undefined;
      else if (buf[at + 1] === 0x22) {
        const seg = this.readSegment(shard) as ShardSegment;
        this.shardCache.set(shard, seg);
        list = Object.hasOwn(seg, key) ? seg[key] : undefined;
      } else {
        try {
          list = JSON.parse(buf.toString("latin1", at, buf.indexOf(0x5d, at) + 1)) as FlatPostings;
        } catch {
          throw new SnapshotError("corrupt", `segment ${shard} is not valid JSON`);
        }
      }
    }
    this.listCache.set(key, list);
    return list;
  }

  /** Shard `shard`'s bytes, checked, read once. */
  private shardBytes(shard: number): Buffer {
    let buf = this.rawCache.get(shard);
    if (!buf) {
      buf = this.readBytes(shard);
      this.rawCache.set(shard, buf);
    }
    return buf;
  }

  /**
   * How many cards `term`'s postings hold here, counted in the shard's bytes: a writer scoring a
   * few changed cards needs each of their terms' document frequency, thousands of terms, and
   * parsing every shard they fall in cost most of a session start's refresh. Counted exactly, to
   * the last posting: an estimate could pass the card count, and a card scored with it then
   * weighs a common word as if no other card held it.
   */
  count(term: string): number {
    const buf = this.shardBytes(fnv1aString(term) % this.header.shards);
    const at = listStart(buf, term);
    if (at < 0) return 0;
    const start = at + 1;
    if (buf[start] === 0x5d) return 0;
    let commas = 0;
    for (let i = start; i < buf.length && buf[i] !== 0x5d; i++) if (buf[i] === 0x2c) commas++;
    return (commas + 1) / POSTING_WIDTH;
  }

  /** The row of this file's `index`-th card. */
  row(index: number): DocRow | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.header.cards) return undefined;
    const chunk = Math.floor(index / DOCS_PER_CHUNK);
    let seg = this.chunkCache.get(chunk);
    if (!seg) {
      seg = this.readSegment(this.header.shards + chunk) as DocChunkSegment;
      this.chunkCache.set(chunk, seg);
    }
    return seg[index - chunk * DOCS_PER_CHUNK];
  }

  /** The catalog segment, where the header says there is one (see CatalogSegment). */
  catalog(): CatalogSegment | undefined {
    if (this.header.catalog !== 1) return undefined;
    const seg = this.readSegment(this.header.shards + this.header.docChunks) as Partial<CatalogSegment> | null;
    const ok =
      !!seg &&
      Array.isArray(seg.paths) &&
      seg.paths.length === this.header.cards &&
      Array.isArray(seg.projects) &&
      Array.isArray(seg.types) &&
      Array.isArray(seg.rows) &&
      seg.rows.length === this.header.cards * CATALOG_WIDTH;
    if (!ok) throw new SnapshotError("corrupt", "the snapshot's catalog does not list its cards");
    return seg as CatalogSegment;
  }

  close(): void {
    closeSync(this.fd);
  }

  private readSegment(i: number): unknown {
    const buf = this.readBytes(i);
    try {
      return JSON.parse(buf.toString("utf8"));
    } catch {
      throw new SnapshotError("corrupt", `segment ${i} is not valid JSON`);
    }
  }

  /** Segment `i`'s bytes, checked against its hash. */
  private readBytes(i: number): Buffer {
    const rec = Buffer.allocUnsafe(RECORD_WIDTH);
    readExactly(this.fd, rec, this.tableStart + i * RECORD_WIDTH);
    const record = parseRecord(rec.toString("latin1"));
    // The segment lies among the segments, after the table: the body ends where the header says.
    if (!record || this.segmentsStart + record.offset + record.length > this.tableStart + this.header.bodyBytes) {
      throw new SnapshotError("corrupt", `segment ${i} has a broken table record`);
    }
    const buf = Buffer.allocUnsafe(record.length);
    readExactly(this.fd, buf, this.segmentsStart + record.offset);
    this.bytesRead += RECORD_WIDTH + record.length;
    // Only the segments a recall reads are hashed, a few hundred KB at most, so the check costs
    // little; without it one flipped byte in a path printed a card that does not exist.
    if (fnv1aWords(buf) !== record.hash) {
      throw new SnapshotError("corrupt", `segment ${i} does not match its checksum`);
    }
    return buf;
  }
}

/**
 * Where `key`'s list begins in a shard's bytes (its "["), or -1 when the shard has no such key. A
 * key follows the shard's "{" or a ","; the same bytes inside a typo bucket's words never do, since
 * a quote in a word is escaped there.
 */
function listStart(buf: Buffer, key: string): number {
  const needle = Buffer.from(JSON.stringify(key) + ":[", "utf8");
  let at = buf.indexOf(needle);
  while (at > 0 && buf[at - 1] !== 0x7b && buf[at - 1] !== 0x2c) at = buf.indexOf(needle, at + 1);
  return at < 0 ? -1 : at + needle.length - 1;
}

/**
 * A snapshot as recall sees it: the base file and, when there is one for this base, its overlay
 * of the cards changed since. Without an overlay, postings are handed over as parsed.
 */
/** A card as the catalog has it (see SnapshotReader.catalog). */
export interface CatalogEntry {
  id: number;
  path: string;
  project: string;
  type: string;
  /** Epoch ms of its day. */
  updated: number;
}

export class SnapshotReader implements PostingSource {
  /** The base's header: rules, index options and format. */
  readonly header: SnapshotHeader;
  private readonly base: SegmentFile;
  private readonly overlay: SegmentFile | undefined;
  private readonly removed: Uint8Array;
  private readonly moved = new Map<number, number>();
  readonly docCount: number;
  readonly idLimit: number;

  private constructor(base: SegmentFile, overlay: SegmentFile | undefined) {
    this.base = base;
    this.overlay = overlay;
    this.header = base.header;
    const info = overlay?.header.overlay;
    this.removed = new Uint8Array(base.header.cards);
    if (info) {
      for (const id of info.removed) if (id >= 0 && id < this.removed.length) this.removed[id] = 1;
      for (const [from, to] of info.moved) this.moved.set(from, to);
    }
    this.docCount = info ? info.cards : base.header.cards;
    this.idLimit = base.header.cards + (overlay?.header.cards ?? 0);
  }

  /** Opens and validates the header and size, and the overlay if it is this base's; throws SnapshotError. Call close() when done. */
  static open(path: string): SnapshotReader {
    const base = SegmentFile.open(path)!;
    let overlay: SegmentFile | undefined;
    try {
      overlay = SegmentFile.open(overlayPathOf(path), "none");
      const info = overlay?.header.overlay;
      if (overlay && (!isOverlayInfo(info) || info.base !== base.header.headerSum)) {
        // Another base's overlay: its cards are in the base already, or belong to a newer one.
        overlay.close();
        overlay = undefined;
      }
    } catch (err) {
      base.close();
      throw err;
    }
    return new SnapshotReader(base, overlay);
  }

  get indexOptions(): IndexOptions {
    return this.header.index;
  }

  /** Bytes of the files read so far, headers included: what one recall costs in reads. */
  get bytesRead(): number {
    return this.base.bytesRead + (this.overlay?.bytesRead ?? 0);
  }

  /** When the files were last written: the overlay's time when there is one for this base. */
  get writtenAt(): string {
    return (this.overlay?.header ?? this.base.header).createdAt;
  }

  /** Whether the latest edits came from an overlay (for tests and tools). */
  get hasOverlay(): boolean {
    return this.overlay !== undefined;
  }

  postings(term: string): FlatPostings | undefined {
    return this.merged(term, term);
  }

  /**
   * How many cards of the base hold `term`: the count the base's own weights were computed from,
   * for a writer that scores a few changed cards as the base scored them (refresh.ts).
   */
  baseTermCount(term: string): number {
    return this.base.count(term);
  }

  hintPostings(term: string): FlatPostings | undefined {
    return this.merged(term, HINT_MARK + term);
  }

  /** The base's typo bucket under `key` (see nearKey); the overlay has none. */
  nearWords(key: string): readonly string[] | undefined {
    // The shard's JSON holds words under these keys, not postings; checked, since a file is anyone's.
    const words: unknown = this.base.lookup(key, key);
    return Array.isArray(words) && words.every((w): w is string => typeof w === "string") ? words : undefined;
  }

  /** The base's pairs for `key` less the cards changed since, then the overlay's. */
  private merged(term: string, key: string): FlatPostings | undefined {
    const base = this.base.lookup(term, key);
    if (!this.overlay) return base;
    const over = this.overlay.lookup(term, key);
    const out: number[] = [];
    if (base) for (let i = 0; i < base.length; i += POSTING_WIDTH) if (this.removed[base[i]] !== 1) out.push(base[i], base[i + 1]);
    if (over) for (let i = 0; i < over.length; i++) out.push(over[i]);
    return out.length > 0 ? out : undefined;
  }

  doc(id: number): DocInfo | undefined {
    const cards = this.base.header.cards;
    const inBase = id < cards;
    if (inBase && this.removed[id] === 1) return undefined;
    const row = inBase ? this.base.row(id) : this.overlay?.row(id - cards);
    if (!row) return undefined;
    // Links to a card edited since the base go to its new version; to a deleted one, nowhere.
    const links = this.overlay ? row[5].flatMap((l) => this.moved.get(l) ?? (l < cards && this.removed[l] === 1 ? [] : l)) : row[5];
    const info: DocInfo = { path: row[0], description: row[1], type: row[2], updated: row[3] * DAY_MS, project: row[4], links };
    const hintSizes = row[6];
    if (hintSizes && hintSizes.length > 0) info.hintSizes = hintSizes;
    const keep = row[7];
    if (typeof keep === "number") {
      // The card a copy belongs with, where it is now; a copy of a deleted card is any card.
      const at = this.overlay ? (this.moved.get(keep) ?? (keep < cards && this.removed[keep] === 1 ? undefined : keep)) : keep;
      if (at !== undefined) info.copyOf = at;
    }
    return info;
  }

  /**
   * What the session brief needs of every live card, by id, from the catalogs of base and overlay
   * (see CatalogSegment); undefined for a snapshot without them, whose rows must be read instead.
   */
  catalog(): CatalogEntry[] | undefined {
    const base = this.base.catalog();
    const over = this.overlay ? this.overlay.catalog() : undefined;
    if (!base || (this.overlay && !over)) return undefined;
    const out: CatalogEntry[] = [];
    const add = (c: CatalogSegment, i: number, id: number): void => {
      const r = i * CATALOG_WIDTH;
      out.push({ id, path: String(c.paths[i]), project: c.projects[c.rows[r]] ?? "", type: c.types[c.rows[r + 1]] ?? "", updated: c.rows[r + 2] * DAY_MS });
    };
    for (let i = 0; i < this.base.header.cards; i++) if (this.removed[i] !== 1) add(base, i, i);
    if (over && this.overlay) for (let i = 0; i < this.overlay.header.cards; i++) add(over, i, this.base.header.cards + i);
    return out;
  }

  /** The overlay's header when there is one, else the base's: the latest write's. */
  get latestHeader(): SnapshotHeader {
    return this.overlay?.header ?? this.base.header;
  }

  /** When the latest write read the card files, and how many, where it says (see ScanInfo). */
  get scan(): ScanInfo | undefined {
    return this.latestHeader.scan;
  }

  /**
   * The files by path, for a writer that continues them (refresh.ts): the id of every card alive
   * now, the base id of every card of the base, and the paths the overlay changed since the base
   * (edited, added or deleted). Reads every doc chunk, each checked: a row per card, not the postings.
   */
  layout(): { headerSum: string; basePaths: string[]; baseId: Map<string, number>; live: Map<string, number>; changed: string[] } {
    const rowPath = (file: SegmentFile, i: number): string => {
      const row = file.row(i);
      if (!row || typeof row[0] !== "string") throw new SnapshotError("corrupt", `snapshot has no row for card ${i}`);
      return row[0];
    };
    const cards = this.base.header.cards;
    // The catalogs hold every path in one segment each; rows, a segment per sixteen cards.
    const baseCatalog = this.base.catalog();
    const overCatalog = this.overlay?.catalog();
    const pathOf = (file: SegmentFile, catalog: CatalogSegment | undefined, i: number): string => (catalog ? String(catalog.paths[i]) : rowPath(file, i));
    const basePaths = Array.from({ length: cards }, (_, i) => pathOf(this.base, baseCatalog, i));
    const baseId = new Map(basePaths.map((p, i) => [p, i]));
    const live = new Map<string, number>();
    const changed = new Set<string>();
    basePaths.forEach((p, i) => (this.removed[i] === 1 ? changed.add(p) : live.set(p, i)));
    const overlay = this.overlay;
    if (overlay) {
      for (let i = 0; i < overlay.header.cards; i++) {
        const p = pathOf(overlay, overCatalog, i);
        changed.add(p);
        live.set(p, cards + i);
      }
    }
    return { headerSum: this.header.headerSum ?? "", basePaths, baseId, live, changed: [...changed] };
  }

  close(): void {
    this.base.close();
    this.overlay?.close();
  }
}

function isOverlayInfo(v: unknown): v is OverlayInfo {
  const o = v as Partial<OverlayInfo> | undefined;
  return !!o && typeof o.base === "string" && Array.isArray(o.removed) && Array.isArray(o.moved) && Number.isInteger(o.cards);
}

function readHeader(fd: number): { header: SnapshotHeader; headerBytes: number } {
  // The header is a few hundred bytes; the loop only matters for a file that is not ours.
  for (let size = 4096; ; size *= 4) {
    const buf = Buffer.alloc(size);
    const filled = readSync(fd, buf, 0, size, 0);
    if (filled === 0) throw new SnapshotError("partial", "snapshot is empty");
    const newline = buf.subarray(0, filled).indexOf(0x0a);
    if (newline >= 0) return { header: headerFromLine(buf.subarray(0, newline)), headerBytes: newline };
    if (filled < size) throw new SnapshotError("partial", "snapshot header has no end");
    if (size >= MAX_HEADER_BYTES) throw new SnapshotError("not-a-snapshot", "snapshot header is too long");
  }
}

/** A snapshot's first line as its header, checked as a reader checks it; throws a SnapshotError saying why not. */
export function headerFromLine(bytes: Buffer): SnapshotHeader {
  return checkHeader(parseJson(bytes));
}

function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SnapshotError("corrupt", "snapshot header is not valid JSON");
  }
  // The format and version are checked first (an older release's header has no sum), then the
  // sum, before any other field is trusted.
  const h = value as Partial<SnapshotHeader> | null;
  if (h && typeof h === "object" && h.format === SNAPSHOT_FORMAT && h.version === SNAPSHOT_VERSION) {
    const at = text.lastIndexOf(HEADER_SUM_KEY);
    const sum = at < 0 ? "" : text.slice(at + HEADER_SUM_KEY.length, -2);
    if (at < 0 || parseInt(sum, 16) !== fnv1aString(text.slice(0, at) + "}") || h.headerSum !== sum) {
      throw new SnapshotError("corrupt", "snapshot header does not match its checksum");
    }
  }
  return value;
}

function checkHeader(value: unknown): SnapshotHeader {
  const h = value as Partial<SnapshotHeader> | null;
  if (!h || typeof h !== "object" || h.format !== SNAPSHOT_FORMAT) throw new SnapshotError("not-a-snapshot", "file is not a Vault Memory snapshot");
  if (h.version !== SNAPSHOT_VERSION) {
    const newer = Number(h.version) > SNAPSHOT_VERSION;
    throw new SnapshotError("old-version", `snapshot format ${String(h.version)} is not ${SNAPSHOT_VERSION}; run the index command again`, newer);
  }
  if (h.tokenizer !== TOKENIZER_VERSION) {
    const newer = Number(h.tokenizer) > TOKENIZER_VERSION;
    throw new SnapshotError("tokenizer-mismatch", `snapshot tokenizer ${String(h.tokenizer)} is not ${TOKENIZER_VERSION}; run the index command again`, newer);
  }
  const ints = [h.cards, h.shards, h.docChunks, h.bodyBytes];
  if (!ints.every((n) => Number.isInteger(n) && (n as number) >= 0) || !h.shards || !h.rules || !h.index) {
    throw new SnapshotError("corrupt", "snapshot header is missing fields");
  }
  return h as SnapshotHeader;
}

function readExactly(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw new SnapshotError("partial", "snapshot ends inside a segment");
    done += n;
  }
}
