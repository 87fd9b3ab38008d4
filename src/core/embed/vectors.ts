/**
 * The cards' vectors as the prompt hook reads them: one file beside the snapshot, numbered by
 * the snapshot's card ids and tied to it by its headerSum. The hook reads the header, each
 * piece's card and scale, and one bit per dimension (the sign) for every piece: 1/8 of the int8
 * vectors. It ranks every piece by those bits, then reads the int8 vectors of the best few for
 * their cosine.
 *
 * Line 1: header JSON. Then, in order: Uint32 card id per piece, Float32 scale per piece, the
 * sign bits (dim/8 bytes per piece, padded to 4), the int8 vectors (dim bytes per piece), and,
 * when the vault is calibrated (see calibration.ts), the centroid: dim Float32s.
 *
 * The pieces are the cards' texts, then (`questions` of them, at the end) their recall hints
 * asked for as questions, with a calibration and a centroid of their own after the texts': a
 * prompt likened to a question is measured against what questions score, not passages. The
 * hints have no sign bits: they are not searched, only read for the cards the texts' search and
 * the words bring (on the development sets, searching them too found nothing more, and cost the
 * hook 3 ms at 31,000 hints).
 */

import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "../io/read-file";
import { writeFileAtomic } from "../io/atomic";
import { fnv1aWords } from "../io/hash";
import type { Quantized } from "./quantized";
import { pieceSearch, type PieceSearch } from "./nearest";
import { standOuts, type Calibration } from "./calibration";

const FORMAT = "vault-memory-vectors";
// 2: the calibration, and the centroid after the vectors. 3: the hints' pieces, their calibration
// and centroid (a version 2 file reads as one without them).
const VERSION = 3;
const READS = new Set([2, VERSION]);
// Pieces whose int8 vectors are read for the exact cosine, from the best by sign bits (and up
// to as many again tied with the last): each is a read of its own, after the prompt's vector has come.
export const RESCORE = 32;
const MAX_ROWS = RESCORE * 2;
// Far above any embedding model's (bge-m3 1,024, the largest in use about 4,096): a header naming
// more is damaged, and the search would take memory by it before any size could be checked.
const MAX_DIM = 16_384;

export interface VectorsHeader {
  format: typeof FORMAT;
  version: number;
  /** The snapshot's headerSum: vectors for another snapshot are not used. */
  base: string;
  model: string;
  dim: number;
  cards: number;
  pieces: number;
  /** FNV-1a of the pieces' card ids and scales. */
  checksum: number;
  /** The vault's calibration for this model, when it has one; its centroid follows the vectors. */
  calibration?: { prompts: number; spread: number; bias: number };
  /** Of `pieces`, the last this many are the hints' (0 or absent: none), without sign bits; written only with their calibration, whose centroid follows the first. */
  questions?: number;
  questionCalibration?: { prompts: number; spread: number; bias: number };
  /** Cards with vectors, of `cards`: for the settings tab's status. */
  embedded?: number;
}

const bitBytes = (dim: number): number => Math.ceil(dim / 32) * 4;

/** The hints' vectors by the snapshot's ids, and their calibration: without one they are not written. */
export interface QuestionVectors {
  byId: readonly (readonly Quantized[] | undefined)[];
  calibration?: Calibration;
}

/** Writes the vectors of the snapshot's cards (by its ids); cards without vectors have no pieces. */
export function writeVectors(
  path: string,
  base: string,
  model: string,
  dim: number,
  byId: readonly (readonly Quantized[] | undefined)[],
  calibration?: Calibration,
  questions?: QuestionVectors,
): VectorsHeader {
  const ids: number[] = [];
  const qs: Quantized[] = [];
  const add = (vectors: readonly (readonly Quantized[] | undefined)[]): void =>
    vectors.forEach((vs, id) => {
      for (const q of vs ?? []) {
        if (q.values.length !== dim) continue;
        ids.push(id);
        qs.push(q);
      }
    });
  add(byId);
  const passages = qs.length;
  const cal = calibration && calibration.centroid.length === dim ? calibration : undefined;
  // The hints' pieces only with both calibrations: a question's cosine means nothing without its
  // own, and the hook uses none of meaning without the texts'.
  const qcal = cal && questions?.calibration && questions.calibration.centroid.length === dim ? questions.calibration : undefined;
  if (qcal) add(questions!.byId);
  const n = qs.length;
  const bb = bitBytes(dim);
  const idBuf = Buffer.from(new Uint32Array(ids).buffer);
  const scaleBuf = Buffer.from(new Float32Array(qs.map((q) => q.scale)).buffer);
  const bits = Buffer.alloc(passages * bb);
  const int8 = Buffer.alloc(n * dim);
  qs.forEach((q, p) => {
    if (p < passages) for (let i = 0; i < dim; i++) if (q.values[i] > 0) bits[p * bb + (i >> 3)] |= 1 << (i & 7);
    int8.set(new Uint8Array(q.values.buffer, q.values.byteOffset, dim), p * dim);
  });
  const whole = Buffer.concat([idBuf, scaleBuf, bits]);
  const header: VectorsHeader = {
    format: FORMAT,
    version: VERSION,
    base,
    model,
    dim,
    cards: byId.length,
    pieces: n,
    checksum: fnv1aWords(whole, 0, 8 * n),
    embedded: new Set(ids.slice(0, passages)).size,
    ...(cal ? { calibration: { prompts: cal.prompts, spread: cal.spread, bias: cal.bias } } : {}),
    ...(qcal ? { questions: n - passages, questionCalibration: { prompts: qcal.prompts, spread: qcal.spread, bias: qcal.bias } } : {}),
  };
  const centroids = [cal, qcal].filter((c) => c !== undefined).map((c) => Buffer.from(new Float32Array(c.centroid).buffer));
  writeFileAtomic(path, [Buffer.from(JSON.stringify(header) + "\n", "utf8"), whole, int8, ...centroids]);
  return header;
}

/** Where the vectors beside the snapshot at `snapshotPath` live. */
export function vectorsPathOf(snapshotPath: string): string {
  return snapshotPath.replace(/(\.jsonl)?$/, "-vectors.bin");
}

/** The part of the vectors file the hook reads whole, opened before the prompt's vector arrives. */
export interface OpenVectors {
  fd: number;
  dim: number;
  cards: number;
  pieces: number;
  ids: Uint32Array;
  scales: Float32Array;
  bits: Uint32Array;
  /** Where the int8 vectors start in the file. */
  int8At: number;
  /** The search, made ready when the file is opened (see nearest.ts). */
  search: PieceSearch;
  /** The vault's calibration for this model; without it meaning is not used (see calibration.ts). */
  calibration?: Pick<Calibration, "spread" | "bias" | "centroid">;
  /** The hints' pieces, from piece `at` to the end, and their own calibration; absent when none were written. */
  questions?: { at: number; calibration: Pick<Calibration, "spread" | "bias" | "centroid"> };
}

/**
 * Opens the vectors beside a snapshot and reads what every search needs. Throws with a reason a
 * log can hold when the file is missing, another snapshot's or model's, or damaged. Close with
 * closeVectors.
 */
export function openVectors(path: string, base: string, model: string): OpenVectors {
  // Not blocking, and a regular file only: a FIFO at the path would hang the prompt hook.
  const { fd, st } = openRegularFile(path);
  try {
    const head = Buffer.allocUnsafe(4096);
    const got = readSync(fd, head, 0, head.length, 0);
    const nl = head.subarray(0, got).indexOf(0x0a);
    if (nl < 0) throw new Error("the vectors file has no header");
    const h = JSON.parse(head.subarray(0, nl).toString("utf8")) as VectorsHeader;
    if (h.format !== FORMAT || !READS.has(h.version)) throw new Error("the vectors file is not this release's");
    if (h.base !== base) throw new Error("the vectors are another snapshot's: run index again");
    if (h.model !== model) throw new Error(`the vectors are ${h.model}'s, not ${model}'s: run index again`);
    const n = h.pieces;
    if (!Number.isInteger(n) || n < 0 || !Number.isInteger(h.dim) || h.dim <= 0 || h.dim > MAX_DIM) throw new Error("the vectors file is damaged");
    const cal = h.calibration;
    const qcal = h.questionCalibration;
    const fine = (c: VectorsHeader["calibration"]): boolean => c !== undefined && Number.isFinite(c.spread) && c.spread > 0 && Number.isFinite(c.bias);
    const calibrated = fine(cal);
    const questions = h.questions ?? 0;
    if ((cal !== undefined && !calibrated) || !Number.isInteger(questions) || questions < 0 || questions > n) throw new Error("the vectors file is damaged");
    if ((questions > 0 || qcal !== undefined) && !(calibrated && fine(qcal))) throw new Error("the vectors file is damaged");
    const at = n - questions;
    const bb = bitBytes(h.dim);
    const wholeBytes = n * 8 + at * bb;
    // Sizes from the header are checked against the file before anything is allocated by them:
    // a header naming a billion pieces would otherwise take the hook's memory.
    const centroidAt = nl + 1 + wholeBytes + n * h.dim;
    const centroids = (calibrated ? 1 : 0) + (qcal ? 1 : 0);
    if (st.size !== centroidAt + centroids * 4 * h.dim) throw new Error("the vectors file is damaged");
    const whole = Buffer.allocUnsafe(wholeBytes);
    // Card ids and scales are checked (a wrong id would name another card); a damaged sign bit
    // only moves a piece in the first, rough ranking, which the exact cosine then corrects.
    if (readSync(fd, whole, 0, wholeBytes, nl + 1) !== wholeBytes || fnv1aWords(whole, 0, 8 * n) !== h.checksum) throw new Error("the vectors file is damaged");
    const bits = new Uint32Array(whole.buffer, whole.byteOffset + 8 * n, (at * bb) / 4);
    const ids = new Uint32Array(whole.buffer, whole.byteOffset, n);
    const centroid = (k: number): Float32Array => {
      const c = new Float32Array(h.dim);
      const bytes = new Uint8Array(c.buffer);
      if (readSync(fd, bytes, 0, bytes.length, centroidAt + k * 4 * h.dim) !== bytes.length) throw new Error("the vectors file is damaged");
      return c;
    };
    const calibration = calibrated ? { spread: cal!.spread, bias: cal!.bias, centroid: centroid(0) } : undefined;
    return {
      fd,
      dim: h.dim,
      cards: h.cards,
      pieces: n,
      ids,
      scales: new Float32Array(whole.buffer, whole.byteOffset + 4 * n, n),
      bits,
      int8At: nl + 1 + wholeBytes,
      search: pieceSearch(bits, bb / 4, at, h.dim, MAX_ROWS),
      ...(calibration ? { calibration } : {}),
      ...(questions > 0 ? { questions: { at, calibration: { spread: qcal!.spread, bias: qcal!.bias, centroid: centroid(1) } } } : {}),
    };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

export function closeVectors(v: OpenVectors): void {
  closeSync(v.fd);
}

/**
 * The best cards for `query` by cosine, best piece per card (`limit` of them), and every card of
 * `also` that has a vector: by card id, each as its stand-out (see calibration.ts). Throws when
 * the vault has no calibration for this model: a cosine means nothing without one.
 */
export function searchOpen(v: OpenVectors, query: Float32Array, also: Iterable<number> = [], limit = 24): Map<number, number> {
  if (query.length !== v.dim) throw new Error(`the prompt's vector has ${query.length} dimensions, the cards' ${v.dim}`);
  if (!v.calibration) throw new Error("the vectors have no calibration yet: run index with the embedding server up");
  // The cards words found are scored too, wherever their pieces rank by sign bits: the gate
  // weighs each of them by its meaning (see fuseSemantic).
  const wanted = new Set(also);
  const texts = v.questions?.at ?? v.pieces;
  const nearest = v.search.nearest(query, RESCORE);
  const have = new Set(nearest);
  const picked = [...nearest, ...piecesOf(v, wanted, 0, texts).filter((p) => !have.has(p))];
  const best = standOuts(bestCosines(v, picked, query), query, v.calibration);
  // A card stands out by its text or by one of its hints, whichever stands out more, each
  // measured against what its own kind scores: the hints of the cards found so far.
  if (v.questions) {
    const hints = piecesOf(v, new Set([...best.keys(), ...wanted]), texts, v.pieces);
    for (const [id, s] of standOuts(bestCosines(v, hints, query), query, v.questions.calibration)) if (s > (best.get(id) ?? -Infinity)) best.set(id, s);
  }
  const ranked = [...best.entries()].sort((a, b) => b[1] - a[1]);
  return new Map([...ranked.slice(0, limit), ...ranked.filter(([id]) => wanted.has(id))]);
}

/**
 * The pieces from `from` to `to` of the `cards`. Each kind's pieces are written card by card, in
 * id order, so a card's are found by halving. (A file written otherwise only loses some of these;
 * checking the order cost the hook 1 ms at 46,000 pieces.)
 */
function piecesOf(v: OpenVectors, cards: ReadonlySet<number>, from: number, to: number): number[] {
  const out: number[] = [];
  for (const id of cards) {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (v.ids[mid] < id) lo = mid + 1;
      else hi = mid;
    }
    for (let p = lo; p < to && v.ids[p] === id; p++) out.push(p);
  }
  return out;
}

/**
 * Each card's best cosine with `query` among the `pieces`. A run of pieces next to each other in
 * the file (a card's hints) is read at once.
 */
function bestCosines(v: OpenVectors, pieces: readonly number[], query: Float32Array): Map<number, number> {
  const picked = Int32Array.from(pieces);
  const rows = readRows(v, picked);
  const read = (into: Uint8Array, p: number): void => into.set(rows.get(p)!);
  // The search takes as many rows at a time as it was made ready for.
  const dots = new Float64Array(picked.length);
  for (let at = 0; at < picked.length; at += MAX_ROWS) dots.set(v.search.dots(query, picked.subarray(at, at + MAX_ROWS), read), at);
  let norm = 0;
  for (let i = 0; i < query.length; i++) norm += query[i] * query[i];
  norm = Math.sqrt(norm) || 1;
  const best = new Map<number, number>();
  picked.forEach((p, r) => {
    const cos = (dots[r] * v.scales[p]) / norm;
    const id = v.ids[p];
    if (id < v.cards && cos > (best.get(id) ?? -Infinity)) best.set(id, cos);
  });
  return best;
}

/** The int8 rows of `pieces` by piece, each run of neighbours in one read. */
function readRows(v: OpenVectors, pieces: Int32Array): Map<number, Uint8Array> {
  const sorted = [...new Set(pieces)].sort((a, b) => a - b);
  const out = new Map<number, Uint8Array>();
  for (let i = 0; i < sorted.length;) {
    let j = i + 1;
    while (j < sorted.length && sorted[j] === sorted[j - 1] + 1) j++;
    const run = Buffer.allocUnsafe((j - i) * v.dim);
    if (readSync(v.fd, run, 0, run.length, v.int8At + sorted[i] * v.dim) !== run.length) throw new Error("the vectors file is cut short");
    for (let k = i; k < j; k++) out.set(sorted[k], run.subarray((k - i) * v.dim, (k - i + 1) * v.dim));
    i = j;
  }
  return out;
}

/** openVectors, searchOpen and closeVectors in one: for callers that have the vector already. */
export function searchVectors(path: string, base: string, model: string, query: Float32Array, also: Iterable<number> = [], limit = 24): Map<number, number> {
  const v = openVectors(path, base, model);
  try {
    return searchOpen(v, query, also, limit);
  } finally {
    closeVectors(v);
  }
}
