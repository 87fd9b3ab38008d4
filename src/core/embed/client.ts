/** Asks the person's embedding server for vectors: Ollama's /api/embed or an OpenAI-compatible /v1/embeddings, nothing else. */

import type { IncomingMessage } from "node:http";
import { setImmediate } from "node:timers";
import { msSinceStart } from "../io/clock";
import { collect, requestHead, type Posted } from "./http";
import { bareHost, endpointProblem, type EmbedSettings } from "./settings";
import { profileOf, type EmbedRole } from "./profile";

export type EmbedResult = { vectors: Float32Array[]; ms: number } | { error: string; ms: number };

/** Each text's vector, or why the server's vector for it was refused (see vectorProblem). */
export type EachResult = { each: (Float32Array | string)[]; ms: number } | { error: string; ms: number };

// A vector longer than this is not one any embedding model makes.
const MAX_DIMENSIONS = 16_384;

export interface PostOptions {
  /** Told once the request has left: the hook scores words after it, while the server works. */
  sent?: () => void;
  /** Which side the texts are on: a question (the default) or a card's text (see profile.ts). */
  role?: EmbedRole;
  /**
   * The prompt hook's way: the deadline's timer is set once this turn's work is done (see
   * collect), so the request leaves first, and the connection is let go of after the answer has
   * been used rather than before (the process exits first). Elsewhere both at once.
   */
  promptHook?: boolean;
}

/**
 * POSTs `body` and collects the answer, within `timeoutMs`. Plain http is spoken over a socket
 * here: Node's http client is several modules the prompt hook would compile on each prompt
 * (about 2 ms), for one request to a server on this computer. https goes through Node's client.
 */
function post(url: URL, body: string, timeoutMs: number, options: PostOptions): Promise<Posted> {
  return url.protocol === "http:" ? postPlain(url, body, timeoutMs, options) : postTls(url, body, timeoutMs, options.sent);
}

function postPlain(url: URL, body: string, timeoutMs: number, { sent, promptHook }: PostOptions): Promise<Posted> {
  return new Promise((resolve) => {
    const a = collect(timeoutMs, true, resolve, promptHook);
    const request = requestHead(url, Buffer.byteLength(body)) + body;
    // Loaded only when semantic recall asks: with it off, a prompt loads none of net's streams.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
    const net = require("node:net") as typeof import("node:net");
    const port = Number(url.port || 80);
    const host = bareHost(url.hostname);
    // "localhost" is 127.0.0.1, then ::1 if that refuses: an address needs no lookup, and a
    // system that resolves the name to one of them only would miss a server on the other.
    const addresses = host.toLowerCase() === "localhost" ? ["127.0.0.1", "::1"] : [host];
    const attempt = (i: number): void => {
      const socket = net.connect({ host: addresses[i], port });
      let connected = false;
      // Destroying a socket asks for process.stderr, which Node then makes: with the rest, about
      // half a millisecond between the prompt's vector and its cards. The hook's process exits
      // before the next turn.
      a.stopWith(() => (promptHook ? setImmediate(() => socket.destroy()) : socket.destroy()));
      socket.once("connect", () => (connected = true));
      socket.write(request, (err) => void (err || sent?.()));
      socket.on("data", a.take);
      socket.on("error", (err) => {
        if (!connected && i + 1 < addresses.length) {
          socket.destroy();
          attempt(i + 1);
        } else a.finish({ error: err.message });
      });
      socket.on("end", a.ended);
      socket.on("close", () => {
        if (connected || i + 1 >= addresses.length) a.ended();
      });
    };
    attempt(0);
  });
}

function postTls(url: URL, body: string, timeoutMs: number, sent?: () => void): Promise<Posted> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when asked, see post
  const https = require("node:https") as typeof import("node:https");
  return new Promise((resolve) => {
    const a = collect(timeoutMs, false, resolve);
    const req = https.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res: IncomingMessage) => {
        res.on("data", a.take);
        res.on("end", () => a.finish({ status: res.statusCode ?? 0, text: a.body().toString("utf8") }));
        res.on("error", (err) => a.finish({ error: err.message }));
      },
    );
    a.stopWith(() => req.destroy());
    req.on("error", (err) => a.finish({ error: err.message }));
    if (sent) req.on("finish", sent);
    req.end(body);
  });
}

/** What embedTexts and embedEach need of the settings: the server, and the model's marks (see profile.ts). */
export type ClientSettings = Pick<EmbedSettings, "provider" | "url" | "model" | "allowRemote"> &
  Partial<Pick<EmbedSettings, "queryPrefix" | "passagePrefix" | "inputType">>;

/** The request each provider takes, and where it goes: the texts with the model's mark for their side. */
function requestFor(settings: ClientSettings, texts: readonly string[], role: EmbedRole): { url: URL; body: string } {
  const base = settings.url.replace(/\/+$/, "");
  const profile = profileOf(settings);
  const prefix = role === "passage" ? profile.passagePrefix : profile.queryPrefix;
  const input = prefix ? texts.map((t) => prefix + t) : texts;
  if (settings.provider === "ollama") return { url: new URL(`${base}/api/embed`), body: JSON.stringify({ model: settings.model, input, truncate: true }) };
  // OpenAI-compatible servers are mounted at /v1 or given with it.
  const path = /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
  return {
    url: new URL(path),
    body: JSON.stringify({ model: settings.model, input, encoding_format: "float", ...(profile.inputType ? { input_type: role } : {}) }),
  };
}

/**
 * One request for `texts`, answered within `timeoutMs` or not at all. Never rejects: a server that
 * is down, slow, or answers anything but one usable vector per text of one dimension gives an
 * error saying which, and nothing is cached from it.
 */
export function embedTexts(settings: ClientSettings, texts: readonly string[], timeoutMs: number, options: PostOptions = {}): Promise<EmbedResult> {
  return embedEach(settings, texts, timeoutMs, options).then((r) => {
    if ("error" in r) return r;
    const refused = r.each.find((v): v is string => typeof v === "string");
    if (refused !== undefined) return { error: `a vector is ${refused}`, ms: r.ms };
    const vectors = r.each as Float32Array[];
    const other = vectors.find((v) => v.length !== vectors[0].length);
    if (other) return { error: `vectors of ${vectors[0].length} and ${other.length} dimensions in one answer`, ms: r.ms };
    return { vectors, ms: r.ms };
  });
}

/**
 * embedTexts for a batch whose texts stand apart (index time): a vector that cannot stand for its
 * text (all zeros, not finite) is refused on its own, saying why, and the others are kept.
 * An answer that is not a list of one vector per text is an error, as for embedTexts.
 */
export function embedEach(settings: ClientSettings, texts: readonly string[], timeoutMs: number, options: PostOptions = {}): Promise<EachResult> {
  const started = msSinceStart();
  const ms = (): number => Math.round(msSinceStart() - started);
  const problem = endpointProblem(settings.url, settings.allowRemote);
  if (problem) return Promise.resolve({ error: problem, ms: 0 });
  if (texts.length === 0) return Promise.resolve({ each: [], ms: 0 });
  const { url, body } = requestFor(settings, texts, options.role ?? "query");
  return post(url, body, timeoutMs, options).then((r) => {
    if ("error" in r) return { error: r.error, ms: ms() };
    if (r.status >= 400) return { error: `HTTP ${r.status}: ${r.text.slice(0, 200).trim()}`, ms: ms() };
    return parseAnswer(settings.provider, r.text, texts.length, ms());
  });
}

/**
 * Why a vector cannot stand for a text, or "" when it can. All zeros has no direction: its cosine
 * with anything is 0 (or, unit-scaled, undefined), so recall could never use it; nor a vector with
 * a part that is not a finite number once stored as float32 (1e39 is Infinity there).
 */
export function vectorProblem(v: Float32Array): string {
  let zero = true;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) return "not all finite numbers";
    if (v[i] !== 0) zero = false;
  }
  return zero ? "all zeros" : "";
}

function parseAnswer(provider: EmbedSettings["provider"], text: string, expected: number, ms: number): EachResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `the answer is not JSON: ${text.slice(0, 80)}`, ms };
  }
  const raw: unknown[] | undefined =
    provider === "ollama"
      ? (json as { embeddings?: unknown[] } | null)?.embeddings
      : (json as { data?: { index?: number; embedding?: unknown }[] } | null)?.data
          ?.slice()
          .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
          .map((d) => d.embedding);
  if (!Array.isArray(raw)) return { error: `the answer has no ${provider === "ollama" ? "embeddings" : "data"} list`, ms };
  if (raw.length !== expected) return { error: `asked for ${expected} vectors, got ${raw.length}`, ms };
  const each: (Float32Array | string)[] = [];
  for (const v of raw) {
    if (!Array.isArray(v) || v.length === 0 || v.length > MAX_DIMENSIONS || !v.every((x) => typeof x === "number"))
      return { error: "a vector is not a list of numbers", ms };
    const vector = Float32Array.from(v);
    each.push(vectorProblem(vector) || vector);
  }
  return { each, ms };
}
