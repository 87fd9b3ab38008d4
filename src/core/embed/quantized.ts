/**
 * A vector as the cache and the vectors file keep it: made unit length, then int8 with one scale.
 * Its own file so that what the prompt hook loads (calibration.ts) does not carry the cache.
 */

export interface Quantized {
  scale: number;
  values: Int8Array;
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
