/**
 * The snapshot file layout, shared by writer and reader.
 *
 * Line 1: header JSON. Line 2: a table of fixed-width records, one per segment, so a reader can
 * seek to the record it needs without parsing the rest. Then one JSON segment per line: first
 * the term shards, then the doc chunks. A recall reads the header, the records and shards of the
 * query's terms, and the chunks of the few cards it prints.
 *
 * Postings hold each card's score for the term, IDF and length normalisation included, so that a
 * recall only adds numbers up. An edit changes those of the edited card only, as far as ranking
 * goes: the plugin writes the cards changed since the snapshot to an overlay beside it (see
 * overlayPathOf), scored with the vault's counts at that time, instead of rewriting the whole
 * file. The few hundredths that IDF drifts meanwhile are gone at the next full write.
 */

import type { IndexOptions } from "../index/index-options";
import type { RecallRules } from "../recall/rules";
import type { ScanInfo } from "../vault/scan";

export const SNAPSHOT_FORMAT = "vault-memory-snapshot";
// 2: the header carries its own checksum (headerSum), and recall checks every segment it reads.
// 3: an overlay file beside the snapshot can carry the latest edits.
// 4: a posting's value also says whether the term is in the card's title field (postingValue).
// 5: a sync conflict copy's row names the card it belongs with; a snapshot without them would
//    let a note and its copies fill recall's slots. And a catalog after the doc chunks (see
//    CatalogSegment), where the header says there is one.
export const SNAPSHOT_VERSION = 5;
/** How the header line ends: `,"headerSum":"xxxxxxxx"}`, the FNV-1a of the line without it. */
export const HEADER_SUM_KEY = ',"headerSum":"';
/** offset (10 hex) + length (8 hex) + FNV-1a (8 hex). */
export const RECORD_WIDTH = 26;

/**
 * A table record's fields, or undefined when `record` is not one the writer makes: 26 lower-case
 * hex digits. Read strictly, since parseInt takes a sign or a space in front, and a flipped byte
 * that made a length negative threw from Node's own functions instead of as damage.
 */
export function parseRecord(record: string): { offset: number; length: number; hash: number } | undefined {
  if (!/^[0-9a-f]{26}$/.test(record)) return undefined;
  return { offset: parseInt(record.slice(0, 10), 16), length: parseInt(record.slice(10, 18), 16), hash: parseInt(record.slice(18, 26), 16) };
}
// Small, since a recall reads the chunk of each card it considers, for only that card's row.
export const DOCS_PER_CHUNK = 16;
/** A header larger than this is not ours. */
export const MAX_HEADER_BYTES = 1 << 16;

export interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  tokenizer: number;
  cards: number;
  terms: number;
  shards: number;
  docChunks: number;
  /** Bytes after the header line; a shorter file was cut short. */
  bodyBytes: number;
  /** Checksum of everything after the header line, for full verification off the hot path. */
  checksum: string;
  /** FNV-1a of the header's own JSON without this field, so a damaged limit or count is caught. */
  headerSum?: string;
  createdAt: string;
  rules: RecallRules;
  index: IndexOptions;
  /** Present in an overlay only: what it changes in its base snapshot. */
  overlay?: OverlayInfo;
  /** The cards' mean body length, for scoring cards written later in an overlay the same way. */
  avgLength?: number;
  /** When the cards were read from disk and how many, where the writer knows (see ScanInfo). */
  scan?: ScanInfo;
  /** 1 when a catalog segment follows the doc chunks (see CatalogSegment). */
  catalog?: number;
}

/**
 * The last segment, where the header says there is one: each card's path, project, type and day,
 * in this file's id order. What the session brief and a refresh need of every card, in one
 * segment: reading every doc chunk for it took a third of a second at 50,000 cards.
 */
export interface CatalogSegment {
  paths: string[];
  projects: string[];
  types: string[];
  /** Per card: index into projects, index into types, updated (epoch days). */
  rows: number[];
}
export const CATALOG_WIDTH = 3;

/**
 * An overlay's changes to its base. Its cards are numbered from the base's card count up; a card
 * edited since the base is in `removed` under its base id and in the overlay under a new one.
 */
export interface OverlayInfo {
  /** The base's headerSum: an overlay for any other snapshot is ignored. */
  base: string;
  /** Base ids of cards edited or deleted since the base. */
  removed: number[];
  /** Base id → overlay id of each edited card, so links to it from unchanged cards still resolve. */
  moved: [number, number][];
  /** Cards in base and overlay together, edited ones once. */
  cards: number;
}

/** Where the overlay of the snapshot at `snapshotPath` lives. */
export function overlayPathOf(snapshotPath: string): string {
  return snapshotPath.replace(/(\.jsonl)?$/, "-overlay.jsonl");
}

/** Shard segment: term → flat postings (see FlatPostings); in the base, also typo buckets → words (see nearKey). */
export type ShardSegment = Record<string, number[]>;
/**
 * Doc chunk segment, one row per doc id starting at chunk × DOCS_PER_CHUNK:
 * [path, description, type, updated (epoch days), project, linked doc ids], then the number of
 * words in each recall hint when the card has hints, then, for a sync conflict copy, the id of
 * the card it belongs with (its hint sizes [] when it has none).
 */
export type DocRow =
  | [string, string, string, number, string, number[]]
  | [string, string, string, number, string, number[], number[]]
  | [string, string, string, number, string, number[], number[], number];
export type DocChunkSegment = DocRow[];
export const DAY_MS = 86_400_000;

/** Enough shards that one holds about this many terms, so a shard parses in well under a millisecond. */
export const TERMS_PER_SHARD = 48;

export function shardCountFor(terms: number): number {
  let n = 16;
  while (n * TERMS_PER_SHARD < terms) n *= 2;
  return n;
}
