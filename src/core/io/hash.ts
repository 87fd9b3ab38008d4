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

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * FNV-1a over 32-bit little-endian words, then the last bytes one by one: a segment's hash, which
 * every recall computes for what it reads. A cold process runs this loop in V8's interpreter,
 * where a step costs the same for a word as for a byte, so words make the check four times cheaper.
 */
export function fnv1aWords(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let h = FNV_OFFSET;
  let i = start;
  const words = (end - start) >>> 2;
  const offset = bytes.byteOffset + start;
  if (LITTLE_ENDIAN && offset % 4 === 0) {
    const view = new Int32Array(bytes.buffer, offset, words);
    for (let w = 0; w < words; w++) h = Math.imul(h ^ view[w], FNV_PRIME);
    i += words * 4;
  } else {
    for (let w = 0; w < words; w++, i += 4) h = Math.imul(h ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)), FNV_PRIME);
  }
  for (; i < end; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  return h >>> 0;
}
