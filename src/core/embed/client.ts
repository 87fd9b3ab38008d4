/** Asks the person's embedding server for vectors: Ollama's /api/embed or an OpenAI-compatible /v1/embeddings, nothing else. */

import type { IncomingMessage } from "node:http";
// The timers of Node, named: this runs in the hook and at index time, never in a window.
import { clearTimeout, setTimeout } from "node:timers";
import { endpointProblem, type EmbedSettings } from "./settings";

export type EmbedResult = { vectors: Float32Array[]; ms: number } | { error: string; ms: number };

// A batch of 256 texts at 4,096 dimensions is about 20 MB of JSON; past this it is not an answer.
const MAX_RESPONSE_BYTES = 64 << 20;
// A vector longer than this is not one any embedding model makes.
const MAX_DIMENSIONS = 16_384;

type Posted = { status: number; text: string } | { error: string };

/**
 * POSTs `body` and collects the answer, within `timeoutMs`. Plain http is spoken over a socket
 * here: Node's http client is several modules the prompt hook would compile on each prompt
 * (about 2 ms), for one request to a server on this computer. https goes through Node's client.
 */
function post(url: URL, body: string, timeoutMs: number, sent?: () => void): Promise<Posted> {
  return url.protocol === "http:" ? postPlain(url, body, timeoutMs, sent) : postTls(url, body, timeoutMs, sent);
}

/**
 * One answer collected under a deadline, for both ways of posting: the first of finish(), the
 * deadline or a body past MAX_RESPONSE_BYTES settles it, and `stop` lets go of the connection.
 */
function answer(timeoutMs: number, resolve: (r: Posted) => void): { finish: (r: Posted) => void; take: (c: Buffer) => void; body: () => Buffer; stopWith: (stop: () => void) => void } {
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  let stop = (): void => {};
  const finish = (r: Posted): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    stop();
    resolve(r);
  };
  const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
  return {
    finish,
    take: (c) => {
      size += c.length;
      if (size > MAX_RESPONSE_BYTES) finish({ error: `the answer is over ${MAX_RESPONSE_BYTES >> 20} MB` });
      else chunks.push(c);
    },
    body: () => Buffer.concat(chunks),
    stopWith: (f) => (stop = f),
  };
}

function postPlain(url: URL, body: string, timeoutMs: number, sent?: () => void): Promise<Posted> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when semantic recall asks, see above
  const net = require("node:net") as typeof import("node:net");
  return new Promise((resolve) => {
    const a = answer(timeoutMs, resolve);
    const socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 80) });
    a.stopWith(() => socket.destroy());
    const bytes = Buffer.byteLength(body);
    const head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
    socket.write(head + body, () => sent?.());
    socket.on("data", a.take);
    socket.on("error", (err) => a.finish({ error: err.message }));
    socket.on("end", () => a.finish(parseHttp(a.body())));
    socket.on("close", () => a.finish(parseHttp(a.body())));
  });
}

/** An HTTP/1.1 answer read whole: its status and body, chunked or not. */
export function parseHttp(raw: Buffer): Posted {
  const split = raw.indexOf("\r\n\r\n");
  if (split < 0) return { error: raw.length === 0 ? "socket hang up" : "the answer is not HTTP" };
  const head = raw.subarray(0, split).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0]);
  if (!m) return { error: "the answer is not HTTP" };
  let body = raw.subarray(split + 4);
  if (head.some((h) => /^transfer-encoding:\s*chunked/i.test(h))) {
    const parts: Buffer[] = [];
    for (let at = 0; ; ) {
      const nl = body.indexOf("\r\n", at);
      if (nl < 0) return { error: "the answer's chunks are cut short" };
      const len = parseInt(body.subarray(at, nl).toString("latin1"), 16);
      if (!Number.isFinite(len)) return { error: "the answer's chunks are broken" };
      if (len === 0) break;
      parts.push(body.subarray(nl + 2, nl + 2 + len));
      at = nl + 2 + len + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(m[1]), text: body.toString("utf8") };
}

function postTls(url: URL, body: string, timeoutMs: number, sent?: () => void): Promise<Posted> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when asked, see post
  const https = require("node:https") as typeof import("node:https");
  return new Promise((resolve) => {
    const a = answer(timeoutMs, resolve);
    const req = https.request(url, { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res: IncomingMessage) => {
      res.on("data", a.take);
      res.on("end", () => a.finish({ status: res.statusCode ?? 0, text: a.body().toString("utf8") }));
      res.on("error", (err) => a.finish({ error: err.message }));
    });
    a.stopWith(() => req.destroy());
    req.on("error", (err) => a.finish({ error: err.message }));
    if (sent) req.on("finish", sent);
    req.end(body);
  });
}

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
  return post(url, body, timeoutMs, sent).then((r) => {
    if ("error" in r) return { error: r.error, ms: ms() };
    if (r.status >= 400) return { error: `HTTP ${r.status}: ${r.text.slice(0, 200).trim()}`, ms: ms() };
    return parseAnswer(settings.provider, r.text, texts.length, ms());
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
