/** Small, fast, dependency-free hashes: FNV-1a for shard choice and per-segment integrity. */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over UTF-16 code units: picks a term's shard, so it must never change within a format version. */
export function fnv1aString(text: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/**
 * FNV-1a over bytes: catches a segment that was cut or overwritten, cheaply enough for the hot path.
 * Passing the hash of what came before as `seed` continues it, so pieces hash as their concatenation.
 */
export function fnv1aBytes(bytes: Uint8Array, start = 0, end = bytes.length, seed = FNV_OFFSET): number {
  let h = seed;
  for (let i = start; i < end; i++) {
    h ^= bytes[i];
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}
