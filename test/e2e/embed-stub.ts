/**
 * A stand-in embedding server on 127.0.0.1, speaking Ollama's /api/embed and the OpenAI-compatible
 * /v1/embeddings. Its vectors are deterministic: each word of a text adds to the dimensions its
 * hash picks, so texts sharing words are near; `concepts` makes chosen words land on one shared
 * direction, so a test can make two texts with no word in common mean the same. Modes make it
 * slow, fail, answer garbage or answer the wrong dimension, never answer ("hang") or answer a byte a
 * second ("trickle"); `bad` makes the vectors of some texts unusable.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export type StubMode = "ok" | "slow" | "error" | "garbage" | "wrong-dimension" | "hang" | "trickle";

export interface EmbedStub {
  url: string;
  /** Texts embedded so far, every request counted. */
  texts: string[];
  requests: number;
  mode: StubMode;
  /** Extra delay before each answer, in ms (the "slow" mode uses at least 2 s). */
  delayMs: number;
  /**
   * Told, for each answer, the milliseconds from the request's arrival to its answer handed to
   * the system: the endpoint's own time, its delay and its work, which the benchmark leaves out
   * of the hook's.
   */
  onServed?: (ms: number) => void;
  /** Texts holding `word` get a vector of zeros, or of 1e39 (finite as JSON, Infinity as float32). */
  bad?: { word: string; as: "zero" | "huge" };
  close(): Promise<void>;
}

export const STUB_DIM = 64;

function hash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The stub's vector for `text`. */
export function stubVector(text: string, concepts: Readonly<Record<string, string>> = {}, dim = STUB_DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = Object.hasOwn(concepts, raw) ? concepts[raw] : raw;
    const h = hash(word);
    v[h % dim] += 1;
    v[(h >>> 8) % dim] += 0.5;
  }
  return v;
}

export async function startEmbedStub(concepts: Readonly<Record<string, string>> = {}, dim = STUB_DIM): Promise<EmbedStub> {
  const stub: EmbedStub = { url: "", texts: [], requests: 0, mode: "ok", delayMs: 0, close: async () => {} };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    res.on("finish", () => stub.onServed?.(performance.now() - arrived));
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      stub.requests++;
      let body: { model?: string; input?: string | string[] };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof body;
      } catch {
        res.writeHead(400).end("bad json");
        return;
      }
      const input = typeof body.input === "string" ? [body.input] : (body.input ?? []);
      const answer = (): void => {
        if (stub.mode === "hang") return;
        if (stub.mode === "error") return void res.writeHead(500).end("model not loaded");
        if (stub.mode === "garbage") return void res.writeHead(200, { "content-type": "application/json" }).end("<html>not json</html>");
        stub.texts.push(...input);
        const vectors = input.map((t) => {
          const v = stubVector(t, concepts, stub.mode === "wrong-dimension" ? dim + 3 : dim);
          return stub.bad && t.toLowerCase().includes(stub.bad.word) ? v.map(() => (stub.bad!.as === "zero" ? 0 : 1e39)) : v;
        });
        const json =
          req.url === "/api/embed"
            ? { model: body.model, embeddings: vectors }
            : { object: "list", data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })), model: body.model };
        const text = JSON.stringify(json);
        if (stub.mode !== "trickle") return void res.writeHead(200, { "content-type": "application/json" }).end(text);
        // The head at once, then the body a byte a second, until the client gives up.
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        let at = 0;
        const drip = setInterval(() => (at < text.length ? res.write(text[at++]) : (clearInterval(drip), res.end())), 1000);
        res.on("close", () => clearInterval(drip));
      };
      if (req.url !== "/api/embed" && req.url !== "/v1/embeddings") return void res.writeHead(404).end("not found");
      const delay = stub.mode === "slow" ? Math.max(stub.delayMs, 2000) : stub.delayMs;
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("the embedding stub has no port");
  stub.url = `http://127.0.0.1:${addr.port}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}
