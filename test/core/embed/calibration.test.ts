import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrate, describeCalibration, MIN_CALIBRATION_CARDS, standOuts } from "../../../src/core/embed/calibration";
import { cosine, quantize, type Quantized } from "../../../src/core/embed/quantized";
import { openVectors, searchOpen, searchVectors, writeVectors, closeVectors } from "../../../src/core/embed/vectors";
import { vectorsStatus } from "../../../src/core/embed/vectors-status";
import { fnv1aWords } from "../../../src/core/io/hash";
import { tempDir } from "../../helpers";

const DIM = 128;

/** Deterministic numbers from a seed, for vectors a test can make again. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = Math.imul(s ^ (s >>> 15), 2246822507) >>> 0;
    s = Math.imul(s ^ (s >>> 13), 3266489909) >>> 0;
    return ((s ^= s >>> 16) >>> 0) / 4294967296 - 0.5;
  };
}
/** A random direction: two of them are all but orthogonal in this many dimensions. */
function direction(seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: DIM }, () => r());
}
function mix(parts: [Float32Array, number][]): Float32Array {
  const out = new Float32Array(DIM);
  for (const [v, w] of parts) for (let i = 0; i < DIM; i++) out[i] += v[i] * w;
  return out;
}

/**
 * A model's vectors: each text is its topic, a little noise, and `common` of one direction every
 * text shares. e5 is such a model (common large: unrelated texts at cosine 0.7 to 0.9), bge-m3
 * one with common small. The calibrated stand-out must read the same for both.
 */
function model(common: number): { card: (topic: number, seed: number) => Float32Array; query: (topic: number, seed: number) => Float32Array } {
  const shared = direction(999);
  const text = (topic: number, seed: number): Float32Array =>
    mix([
      [direction(topic), 1],
      [direction(10_000 + seed), 0.6],
      [shared, common],
    ]);
  return { card: text, query: text };
}

function setup(common: number): { cards: Quantized[][]; background: Quantized[]; m: ReturnType<typeof model> } {
  const m = model(common);
  // 30 cards on 30 topics; the background asks about 40 other topics.
  const cards = Array.from({ length: 30 }, (_, i) => [quantize(m.card(i + 1, i))]);
  const background = Array.from({ length: 40 }, (_, i) => quantize(m.query(500 + i, 700 + i)));
  return { cards, background, m };
}

function standOutOf(common: number, topic: number): { own: number; others: number[] } {
  const { cards, background, m } = setup(common);
  const c = calibrate(cards, background)!;
  const q = m.query(topic, 4242);
  const qq = quantize(q);
  const cos = new Map(cards.map((vs, id) => [id, cosine(qq, vs[0])]));
  const x = standOuts(cos, q, c);
  return { own: topic <= 30 ? x.get(topic - 1)! : NaN, others: [...x].filter(([id]) => id !== topic - 1).map(([, v]) => v) };
}

describe("calibration", () => {
  it("reads a card's likeness in the same units whatever the model's level of cosine", () => {
    // A prompt on card 7's topic: raw cosines differ wholly between the two models...
    const { cards: low } = setup(0.2);
    const { cards: high } = setup(3);
    const { m: ml } = setup(0.2);
    const { m: mh } = setup(3);
    const cosLow = cosine(quantize(ml.query(7, 4242)), low[6][0]);
    const cosHigh = cosine(quantize(mh.query(7, 4242)), high[6][0]);
    const unrelatedLow = cosine(quantize(ml.query(7, 4242)), low[20][0]);
    const unrelatedHigh = cosine(quantize(mh.query(7, 4242)), high[20][0]);
    expect(unrelatedHigh).toBeGreaterThan(cosLow);
    expect(unrelatedHigh).toBeGreaterThan(0.7);
    expect(unrelatedLow).toBeLessThan(0.3);
    expect(cosHigh).toBeGreaterThan(0.8);
    // ...while the stand-out of the card that answers is far above the rest in both.
    for (const common of [0.2, 3]) {
      const { own, others } = standOutOf(common, 7);
      expect(own).toBeGreaterThan(5);
      expect(Math.max(...others)).toBeLessThan(3);
    }
  });

  it("gives no card of the vault a stand-out for a prompt on none of its topics", () => {
    for (const common of [0.2, 3]) {
      const { others } = standOutOf(common, 777);
      expect(Math.max(...others)).toBeLessThan(3);
      // Centred: the vault's cards average about nothing.
      expect(Math.abs(others.reduce((a, x) => a + x, 0) / others.length)).toBeLessThan(1);
    }
  });

  it("is not measured on too few cards, or without the background, and says so", () => {
    const { cards, background } = setup(1);
    expect(calibrate(cards.slice(0, MIN_CALIBRATION_CARDS - 1), background)).toBeUndefined();
    expect(calibrate(cards, [])).toBeUndefined();
    // Cards that are all one text spread nothing.
    expect(
      calibrate(
        Array.from({ length: 8 }, () => cards[0]),
        background,
      ),
    ).toBeUndefined();
    expect(describeCalibration(undefined, 3)).toMatch(/not calibrated: 3 cards with vectors, at least 5/);
    expect(describeCalibration(calibrate(cards, background), 30)).toMatch(
      /^calibrated on 40 background prompts \(a prompt's cosines spread 0\.\d{4} over the cards\)$/,
    );
  });
});

describe("the vectors file with its calibration", () => {
  it("keeps the calibration beside the vectors, and rates the cards words found wherever they rank", () => {
    const { cards, background, m } = setup(3);
    const c = calibrate(cards, background)!;
    const path = join(tempDir(), "snapshot-vectors.bin");
    writeVectors(path, "base", "model-a", DIM, cards, c);
    const q = m.query(7, 4242);
    const v = openVectors(path, "base", "model-a");
    try {
      expect(v.calibration?.spread).toBeCloseTo(c.spread, 6);
      // The nearest two, and card 20, which words found, though it is far from the prompt.
      const found = searchOpen(v, q, [20], 2);
      expect(found.has(6) && found.has(20)).toBe(true);
      expect(found.size).toBe(3);
      expect(found.get(6)!).toBeGreaterThan(5);
      expect(found.get(20)!).toBeLessThan(3);
    } finally {
      closeVectors(v);
    }
  });

  it("refuses to rate without a calibration, and holds a damaged one for damage", () => {
    const { cards, background, m } = setup(3);
    const path = join(tempDir(), "snapshot-vectors.bin");
    writeVectors(path, "base", "model-a", DIM, cards);
    expect(() => searchVectors(path, "base", "model-a", m.query(7, 1))).toThrow(/no calibration yet: run index with the embedding server up/);
    writeVectors(path, "base", "model-a", DIM, cards, calibrate(cards, background));
    const bytes = readFileSync(path);
    // A spread of zero would divide by nothing; a file cut short loses the centroid.
    writeFileSync(path, Buffer.from(bytes.toString("latin1").replace(/"spread":[0-9.e-]+/, '"spread":0'), "latin1"));
    expect(() => openVectors(path, "base", "model-a")).toThrow(/damaged/);
    writeFileSync(path, bytes.subarray(0, bytes.length - 4));
    expect(() => openVectors(path, "base", "model-a")).toThrow(/damaged/);
    // No pieces and a dimension no model has: nothing to check its size by, and the search would
    // take memory by it.
    writeFileSync(
      path,
      JSON.stringify({
        format: "vault-memory-vectors",
        version: 3,
        base: "base",
        model: "model-a",
        dim: 30_000_000,
        cards: 0,
        pieces: 0,
        checksum: fnv1aWords(Buffer.alloc(0), 0, 0),
      }) + "\n",
    );
    expect(() => openVectors(path, "base", "model-a")).toThrow(/damaged/);
  });
});

describe("the settings tab's status line", () => {
  it("says which model made the vectors, for how many cards, whether the vault is calibrated, and how many hints count", async () => {
    const { cards, background } = setup(3);
    const snapshot = join(tempDir(), "snapshot.jsonl");
    const vectors = snapshot.replace(/\.jsonl$/, "-vectors.bin");
    expect(await vectorsStatus(snapshot, "model-a")).toMatch(/^No vectors yet/);
    // Two cards of 32 ids have none.
    writeVectors(vectors, "base", "model-a", DIM, [...cards, [], []]);
    expect(await vectorsStatus(snapshot, "model-a")).toBe(
      "30 of 32 cards embedded by model-a; not calibrated yet, so meaning is not used: index again with the server up.",
    );
    writeVectors(vectors, "base", "model-a", DIM, cards, calibrate(cards, background));
    expect(await vectorsStatus(snapshot, "model-a")).toBe("30 of 30 cards embedded by model-a; calibrated on 40 background prompts.");
    // With a hint for each card, as questions.
    const hints = cards.map((vs) => vs.map((v) => quantize(Float32Array.from(v.values, (x) => -x))));
    writeVectors(vectors, "base", "model-a", DIM, cards, calibrate(cards, background), { byId: hints, calibration: calibrate(hints, background) });
    expect(await vectorsStatus(snapshot, "model-a")).toBe(
      "30 of 30 cards embedded by model-a; calibrated on 40 background prompts, with 30 recall hints as questions.",
    );
    expect(await vectorsStatus(snapshot, "model-b")).toBe(
      "The vectors were made by model-a, and model-b is set: recall uses words alone until the next full index.",
    );
  });
});

describe("the vectors file with the cards' hints as questions", () => {
  // Questions liken each other more than a question likens a passage (e5 gives two questions
  // higher cosines): the hints' vectors share more of the common direction than the texts'.
  const hintModel = model(5);
  const texts = (): Quantized[][] => setup(3).cards;
  // Card 7's hint asks about topic 107, which no card's text is about; every other card has a
  // hint on its own topic.
  const hints = (): Quantized[][] => Array.from({ length: 30 }, (_, i) => [quantize(hintModel.card(i === 6 ? 107 : i + 1, 300 + i))]);

  function written(withHints = true): string {
    const { background } = setup(3);
    const path = join(tempDir(), "snapshot-vectors.bin");
    const c = calibrate(texts(), background);
    const q = calibrate(hints(), background);
    writeVectors(path, "base", "model-a", DIM, texts(), c, withHints ? { byId: hints(), calibration: q } : undefined);
    return path;
  }

  it("finds a card by a hint its text does not hold, each kind against its own calibration", () => {
    const path = written();
    const { background } = setup(3);
    const prompt = hintModel.query(107, 4242);
    const v = openVectors(path, "base", "model-a");
    try {
      expect(v.questions?.at).toBe(30);
      expect(v.pieces).toBe(60);
      const found = searchOpen(v, prompt, [12]);
      expect(found.get(6)!).toBeGreaterThan(5);
      // The rest stand out no more than chance, though the hints' cosines run higher than the texts'.
      expect(Math.max(...[...found].filter(([id]) => id !== 6).map(([, s]) => s))).toBeLessThan(3);
      // The same numbers as each kind's stand-out worked out here, the better of the two.
      const qq = quantize(prompt);
      const byText = standOuts(new Map(texts().map((vs, id) => [id, cosine(qq, vs[0])])), prompt, calibrate(texts(), background)!);
      const byHint = standOuts(new Map(hints().map((vs, id) => [id, cosine(qq, vs[0])])), prompt, calibrate(hints(), background)!);
      // (The file's search takes the prompt's vector as it came, not rounded to int8 as here.)
      expect(found.get(6)!).toBeCloseTo(Math.max(byText.get(6)!, byHint.get(6)!), 1);
      expect(found.get(12)!).toBeCloseTo(Math.max(byText.get(12)!, byHint.get(12)!), 1);
    } finally {
      closeVectors(v);
    }
    // Without the hints, card 7 is nothing special for that prompt.
    expect(searchVectors(written(false), "base", "model-a", prompt, [6]).get(6)!).toBeLessThan(3);
  });

  it("writes no hints without their calibration, and still reads a file of the release before", () => {
    const { background } = setup(3);
    const path = join(tempDir(), "snapshot-vectors.bin");
    // Too few cards with hints to calibrate them: the hints are left out, the texts kept.
    const few = hints().map((vs, id) => (id < MIN_CALIBRATION_CARDS - 1 ? vs : undefined));
    const header = writeVectors(path, "base", "model-a", DIM, texts(), calibrate(texts(), background), {
      byId: few,
      calibration: calibrate(
        few.filter((v) => v !== undefined),
        background,
      ),
    });
    expect([header.pieces, header.questions]).toEqual([30, undefined]);
    // Version 2 had no hints; its layout is this one's without them.
    writeFileSync(path, Buffer.from(readFileSync(path).toString("latin1").replace('"version":3', '"version":2'), "latin1"));
    const v = openVectors(path, "base", "model-a");
    try {
      expect(v.questions).toBeUndefined();
      expect(searchOpen(v, setup(3).m.query(7, 4242)).get(6)!).toBeGreaterThan(5);
    } finally {
      closeVectors(v);
    }
  });

  it("holds a file whose hints do not add up for damaged", () => {
    const bytes = readFileSync(written());
    const path = join(tempDir(), "snapshot-vectors.bin");
    const edited = (from: RegExp, to: string): Buffer => Buffer.from(bytes.toString("latin1").replace(from, to), "latin1");
    for (const damaged of [
      edited(/"questions":30/, '"questions":61'),
      edited(/"questions":30/, '"questions":-1'),
      edited(/,"questionCalibration":\{[^}]*\}/, ""),
      edited(/("questionCalibration":\{[^}]*)"spread":[0-9.e-]+/, '$1"spread":0'),
      // The hints' centroid cut off.
      bytes.subarray(0, bytes.length - 4 * DIM),
    ]) {
      writeFileSync(path, damaged);
      expect(() => openVectors(path, "base", "model-a")).toThrow(/damaged/);
    }
  });
});
