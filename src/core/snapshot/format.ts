/**
 * The snapshot file layout, shared by writer and reader.
 *
 * Line 1: header JSON. Line 2: a table of fixed-width records, one per segment, so a reader can
 * seek to the record it needs without parsing the rest. Then one JSON segment per line: first
 * the term shards, then the doc chunks. A recall reads the header, the records and shards of the
 * query's terms, and the chunks of the few cards it prints: its cost does not grow with the vault.
 */

import type { IndexOptions } from "../index/index-options";
import type { RecallRules } from "../recall/rules";

export const SNAPSHOT_FORMAT = "vault-memory-snapshot";
// 2: the header carries its own checksum (headerSum), and recall checks every segment it reads.
export const SNAPSHOT_VERSION = 2;
/** How the header line ends: `,"headerSum":"xxxxxxxx"}`, the FNV-1a of the line without it. */
export const HEADER_SUM_KEY = ',"headerSum":"';
/** offset (10 hex) + length (8 hex) + FNV-1a (8 hex). */
export const RECORD_WIDTH = 26;
export const DOCS_PER_CHUNK = 32;
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
}

/** Shard segment: term → flat postings (see FlatPostings). */
export type ShardSegment = Record<string, number[]>;
/**
 * Doc chunk segment, one row per doc id starting at chunk × DOCS_PER_CHUNK:
 * [path, description, type, updated (epoch days), project, linked doc ids], and the number of
 * words in each recall hint when the card has hints.
 */
export type DocRow = [string, string, string, number, string, number[]] | [string, string, string, number, string, number[], number[]];
export type DocChunkSegment = DocRow[];
export const DAY_MS = 86_400_000;

/** Enough shards that one holds about this many terms, so a shard parses in well under a millisecond. */
export const TERMS_PER_SHARD = 48;

export function shardCountFor(terms: number): number {
  let n = 16;
  while (n * TERMS_PER_SHARD < terms) n *= 2;
  return n;
}
