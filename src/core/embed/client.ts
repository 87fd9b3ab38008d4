/** Asks the person's embedding server for vectors: Ollama's /api/embed or an OpenAI-compatible /v1/embeddings, nothing else. */

import type { IncomingMessage, RequestOptions, ClientRequest } from "node:http";
// The timers of Node, named: this runs in the hook and at index time, never in a window.
import { clearTimeout, setTimeout } from "node:timers";
import { endpointProblem, type EmbedSettings } from "./settings";

type Send = (url: URL, opts: RequestOptions, cb: (res: IncomingMessage) => void) => ClientRequest;

/**
 * Node's http modules, loaded on first use: the prompt hook bundles this file, and loading them
 * costs every prompt, semantic recall on or off, several million instructions.
 */
function sender(protocol: string): Send {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily on purpose, see above */
  return protocol === "https:" ? (require("node:https") as typeof import("node:https")).request : (require("node:http") as typeof import("node:http")).request;
  /* eslint-enable @typescript-eslint/no-require-imports -- only these two requires are lazy */
}

export type EmbedResult = { vectors: Float32Array[]; ms: number } | { error: string; ms: number };

// A batch of 256 texts at 4,096 dimensions is about 20 MB of JSON; past this it is not an answer.
const MAX_RESPONSE_BYTES = 64 << 20;
// A vector longer than this is not one any embedding model makes.
const MAX_DIMENSIONS = 16_384;

/** The request each provider takes, and where it goes. */
function requestFor(settings: Pick<EmbedSettings, "provider" | "url" | "model">, texts: readonly string[]): { url: URL; body: string } {
  const base = settings.url.replace(/\/+$/, "");
  if (settings.provider === "ollama") return { url: new URL(`${base}/api/embed`), body: JSON.stringify({ model: settings.model, input: texts, truncate: true }) };
  // OpenAI-compatible servers are mounted at /v1 or given with it.
  const path = /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
  return { url: new URL(path), body: JSON.stringify({ model: settings.model, input: texts, encoding_format: "float" }) };
}

/**
 * One request for `texts`, answered within `timeoutMs` or not at all. Never rejects: a server that
 * is down, slow, or answers anything but one finite vector per text of one dimension gives an
 * error saying which, and nothing is cached from it.
 */
export function embedTexts(settings: Pick<EmbedSettings, "provider" | "url" | "model" | "allowRemote">, texts: readonly string[], timeoutMs: number, sent?: () => void): Promise<EmbedResult> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  const problem = endpointProblem(settings.url, settings.allowRemote);
  if (problem) return Promise.resolve({ error: problem, ms: 0 });
  if (texts.length === 0) return Promise.resolve({ vectors: [], ms: 0 });
  const { url, body } = requestFor(settings, texts);
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: EmbedResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const send = sender(url.protocol);
    const req = send(url, { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) finish({ error: `the answer is over ${MAX_RESPONSE_BYTES >> 20} MB`, ms: ms() });
        else chunks.push(c);
      });
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if ((res.statusCode ?? 0) >= 400) return finish({ error: `HTTP ${res.statusCode}: ${text.slice(0, 200).trim()}`, ms: ms() });
        finish(parseAnswer(settings.provider, text, texts.length, ms()));
      });
      res.on("error", (err) => finish({ error: err.message, ms: ms() }));
    });
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms`, ms: ms() }), timeoutMs);
    req.on("error", (err) => finish({ error: err.message, ms: ms() }));
    // Flushed to the server: the hook scores words while it works.
    if (sent) req.on("finish", sent);
    req.end(body);
  });
}

function parseAnswer(provider: EmbedSettings["provider"], text: string, expected: number, ms: number): EmbedResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `the answer is not JSON: ${text.slice(0, 80)}`, ms };
  }
  const raw: unknown[] | undefined =
    provider === "ollama"
      ? (json as { embeddings?: unknown[] } | null)?.embeddings
      : ((json as { data?: { index?: number; embedding?: unknown }[] } | null)?.data?.slice().sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding));
  if (!Array.isArray(raw)) return { error: `the answer has no ${provider === "ollama" ? "embeddings" : "data"} list`, ms };
  if (raw.length !== expected) return { error: `asked for ${expected} vectors, got ${raw.length}`, ms };
  const vectors: Float32Array[] = [];
  for (const v of raw) {
    if (!Array.isArray(v) || v.length === 0 || v.length > MAX_DIMENSIONS || !v.every((x) => typeof x === "number" && Number.isFinite(x))) return { error: "a vector is not a list of finite numbers", ms };
    if (vectors.length > 0 && v.length !== vectors[0].length) return { error: `vectors of ${vectors[0].length} and ${v.length} dimensions in one answer`, ms };
    vectors.push(Float32Array.from(v as number[]));
  }
  return { vectors, ms };
}
