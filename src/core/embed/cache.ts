/**
 * The vectors of cards' texts, kept by the hash of each text and the model that made it, so that
 * an unchanged card is never sent to the embedding server twice and a new model starts afresh.
 * One file: a JSON header line (model, dimension, count, checksum), then for each text its key
 * (16 bytes of SHA-256), a float32 scale and the vector as int8 (a quarter of float32's size, and
 * cosine similarity is barely changed by it).
 */

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../io/atomic";
import { fnv1aWords } from "../io/hash";

const FORMAT = "vault-memory-embeddings";
const VERSION = 1;
const KEY_BYTES = 16;

export interface Quantized {
  scale: number;
  values: Int8Array;
}

/** The key of a text: its SHA-256, cut to 16 bytes, as hex. */
export function textKey(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, KEY_BYTES * 2);
}

/** Unit length, then int8: `values[i] * scale` is the unit vector's i-th part. */
export function quantize(v: Float32Array): Quantized {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x / norm));
  const scale = max / 127 || 1;
  const values = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) values[i] = Math.round(v[i] / norm / scale);
  return { scale, values };
}

/** Cosine similarity of two quantized unit vectors. */
export function cosine(a: Quantized, b: Quantized): number {
  let dot = 0;
  for (let i = 0; i < a.values.length; i++) dot += a.values[i] * b.values[i];
  return dot * a.scale * b.scale;
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
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return cache;
    }
    const nl = bytes.indexOf(0x0a);
    if (nl < 0) return cache;
    let header: { format?: string; version?: number; model?: string; dim?: number; count?: number; checksum?: number };
    try {
      header = JSON.parse(bytes.subarray(0, nl).toString("utf8")) as typeof header;
    } catch {
      return cache;
    }
    const body = bytes.subarray(nl + 1);
    const dim = header.dim ?? 0;
    const count = header.count ?? 0;
    const record = KEY_BYTES + 4 + dim;
    if (header.format !== FORMAT || header.version !== VERSION || header.model !== model || !(dim > 0) || body.length !== count * record || fnv1aWords(body) !== header.checksum) return cache;
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
