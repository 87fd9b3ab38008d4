/**
 * The vectors of cards' texts, kept by the hash of each text and the model that made it, so that
 * an unchanged card is never sent to the embedding server twice and a new model starts afresh.
 * One file: a JSON header line (model, dimension, count, checksum), then for each text its key
 * (16 bytes of SHA-256), a float32 scale and the vector as int8 (a quarter of float32's size, and
 * cosine similarity is barely changed by it).
 */

import { createHash } from "node:crypto";
import { closeSync, readSync } from "node:fs";
import { writeFileAtomic } from "../io/atomic";
import { openRegularFile } from "../io/read-file";
import { fnv1aWords } from "../io/hash";
import { quantize, type Quantized } from "./quantized";

export { cosine, quantize, type Quantized } from "./quantized";

const FORMAT = "vault-memory-embeddings";
const VERSION = 1;
const KEY_BYTES = 16;

/** The key of a text: its SHA-256, cut to 16 bytes, as hex. */
export function textKey(text: string): string {
  return createHash("sha256")
    .update(text)
    .digest("hex")
    .slice(0, KEY_BYTES * 2);
}

interface CacheHeader {
  format?: string;
  version?: number;
  model?: string;
  dim: number;
  count: number;
  checksum?: number;
}

// The header is a line of JSON of a hundred bytes.
const MAX_HEADER_BYTES = 4096;
// A million texts at 1,024 dimensions: past it the file is not a vault's cache, and is made again.
const MAX_BODY_BYTES = 1 << 30;

/**
 * The cache file's header and body, when it is this format and model and its size is what its
 * header says: the body is read only then, so a file that is not a cache (a FIFO, a link to
 * /dev/zero, gigabytes of something else) costs a read of its first 4 KB at most.
 */
function readCacheFile(path: string, model: string): { header: CacheHeader; body: Buffer } | undefined {
  let opened;
  try {
    opened = openRegularFile(path);
  } catch {
    return undefined;
  }
  const { fd, st } = opened;
  try {
    const head = Buffer.allocUnsafe(Math.min(MAX_HEADER_BYTES, st.size));
    const got = readSync(fd, head, 0, head.length, 0);
    const nl = head.subarray(0, got).indexOf(0x0a);
    if (nl < 0) return undefined;
    const header = JSON.parse(head.subarray(0, nl).toString("utf8")) as Partial<CacheHeader>;
    const { dim, count } = header;
    if (header.format !== FORMAT || header.version !== VERSION || header.model !== model) return undefined;
    if (typeof dim !== "number" || !Number.isInteger(dim) || dim <= 0 || typeof count !== "number" || !Number.isInteger(count) || count < 0) return undefined;
    const bodyBytes = count * (KEY_BYTES + 4 + dim);
    if (bodyBytes > MAX_BODY_BYTES || st.size !== nl + 1 + bodyBytes) return undefined;
    const body = Buffer.allocUnsafe(bodyBytes);
    for (let at = 0; at < bodyBytes;) {
      const n = readSync(fd, body, at, bodyBytes - at, nl + 1 + at);
      if (n === 0) return undefined;
      at += n;
    }
    return { header: { ...header, dim, count }, body };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export class VectorCache {
  private readonly vectors = new Map<string, Quantized>();
  /** Texts found in the cache, and texts added to it, since it was opened: for progress and tests. */
  hits = 0;
  added = 0;

  private constructor(
    readonly model: string,
    public dim: number,
  ) {}

  /**
   * The cache at `path` for `model`; an empty one when there is none, it is another model's, or
   * it is damaged (vectors are only a cache: they are made again).
   */
  static open(path: string, model: string): VectorCache {
    const cache = new VectorCache(model, 0);
    const read = readCacheFile(path, model);
    if (!read) return cache;
    const { header, body } = read;
    const dim = header.dim;
    const count = header.count;
    const record = KEY_BYTES + 4 + dim;
    if (fnv1aWords(body) !== header.checksum) return cache;
    cache.dim = dim;
    for (let i = 0; i < count; i++) {
      const at = i * record;
      const key = body.subarray(at, at + KEY_BYTES).toString("hex");
      const scale = body.readFloatLE(at + KEY_BYTES);
      const values = new Int8Array(body.buffer.slice(body.byteOffset + at + KEY_BYTES + 4, body.byteOffset + at + record));
      cache.vectors.set(key, { scale, values });
    }
    return cache;
  }

  get size(): number {
    return this.vectors.size;
  }

  get(key: string): Quantized | undefined {
    const v = this.vectors.get(key);
    if (v) this.hits++;
    return v;
  }

  /** get() without counting a hit. */
  peek(key: string): Quantized | undefined {
    return this.vectors.get(key);
  }

  /** Adds a vector; one of another dimension than the cache's is refused (a model changed under its name). */
  set(key: string, v: Float32Array): Quantized | undefined {
    if (this.dim === 0) this.dim = v.length;
    if (v.length !== this.dim) return undefined;
    const q = quantize(v);
    this.vectors.set(key, q);
    this.added++;
    return q;
  }

  /** Drops every vector: the model that made them is not the one answering now (see checkModel). */
  clear(dim: number): void {
    this.vectors.clear();
    this.dim = dim;
  }

  /** Keeps only `keys` (the texts of cards that still exist), so the file does not grow forever. */
  keepOnly(keys: ReadonlySet<string>): void {
    for (const k of [...this.vectors.keys()]) if (!keys.has(k)) this.vectors.delete(k);
  }

  save(path: string): void {
    const record = KEY_BYTES + 4 + this.dim;
    const body = Buffer.alloc(this.vectors.size * record);
    let at = 0;
    for (const [key, q] of this.vectors) {
      body.write(key, at, KEY_BYTES, "hex");
      body.writeFloatLE(q.scale, at + KEY_BYTES);
      body.set(new Uint8Array(q.values.buffer, q.values.byteOffset, q.values.length), at + KEY_BYTES + 4);
      at += record;
    }
    const header = JSON.stringify({ format: FORMAT, version: VERSION, model: this.model, dim: this.dim, count: this.vectors.size, checksum: fnv1aWords(body) });
    writeFileAtomic(path, [Buffer.from(header + "\n", "utf8"), body]);
  }
}
