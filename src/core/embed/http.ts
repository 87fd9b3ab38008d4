/** The little of HTTP/1.1 the embedding client speaks itself: one request, one answer read whole under a deadline. */

// The timers of Node, named: this runs in the hook, at index time, and in Obsidian's window for Preview recall and similar cards.
import { clearImmediate, clearTimeout, setImmediate, setTimeout } from "node:timers";
import { msSinceStart } from "../io/clock";

export type Posted = { status: number; text: string } | { error: string };

// A batch of 256 texts at 4,096 dimensions is about 20 MB of JSON; past this it is not an answer.
export const MAX_RESPONSE_BYTES = 64 << 20;

/** The request's bytes before its body; the connection closes after the answer, so nothing is pooled. */
export function requestHead(url: URL, bodyBytes: number): string {
  return `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
}

/** How an answer is collected, for every way of posting. */
export interface Collector {
  /** Settles the answer, once: later calls do nothing. */
  finish: (r: Posted) => void;
  /** Adds bytes as they come; settles the answer as soon as it is whole (`whole`). */
  take: (chunk: Buffer) => void;
  /** The stream has ended: the bytes so far are read as the raw HTTP answer. */
  ended: () => void;
  body: () => Buffer;
  /** What lets go of the connection when the answer is settled. */
  stopWith: (stop: () => void) => void;
}

/**
 * One answer collected under a deadline: the first of finish(), a whole answer, the end of the
 * stream, the deadline or a body past MAX_RESPONSE_BYTES settles it. `plainHttp`: the bytes are
 * the raw answer, so it is done when its length says so rather than when the server closes the
 * connection (a server's close came a millisecond after its answer, on every prompt).
 */
export function collect(timeoutMs: number, plainHttp: boolean, resolve: (r: Posted) => void, promptHook = false): Collector {
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  let stop = (): void => {};
  const body = (): Buffer => (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finish = (r: Posted): void => {
    if (done) return;
    done = true;
    if (arming) clearImmediate(arming);
    if (timer) clearTimeout(timer);
    stop();
    resolve(r);
  };
  // `promptHook`: the deadline's timer is set once this turn's work is done,
  // from when the answer was asked for, since a process's first timer costs about a third of a
  // millisecond and the request leaves in that turn. Elsewhere at once: in Obsidian's window
  // setImmediate has been known not to fire.
  const asked = msSinceStart();
  const arm = (): void => {
    if (!done) timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), Math.max(0, timeoutMs - (msSinceStart() - asked)));
  };
  const arming = promptHook ? setImmediate(arm) : undefined;
  if (!promptHook) arm();
  let expected = -1;
  // The last bytes so far, across reads: a chunked answer's last chunk may come in a read of its own.
  let tail = Buffer.alloc(0);
  return {
    finish,
    take: (c) => {
      if (done) return;
      size += c.length;
      if (size > MAX_RESPONSE_BYTES) return finish({ error: `the answer is over ${MAX_RESPONSE_BYTES >> 20} MB` });
      chunks.push(c);
      if (!plainHttp) return;
      if (expected === -1) {
        expected = wholeLength(body());
        // Whatever streams on without a head is not an HTTP server's answer.
        if (expected === -1 && size > MAX_HEAD_BYTES) return finish({ error: "the answer is not HTTP" });
      }
      if (expected === 0) tail = Buffer.concat([tail, c]).subarray(-LAST_CHUNK.length);
      if (expected > 0 && size >= expected) finish(parseHttp(body()));
      else if (expected === 0 && tail.equals(LAST_CHUNK)) {
        // Those bytes could close a chunk's data rather than the answer: then more is to come.
        const r = parseHttp(body());
        if (!("error" in r && r.error === CHUNKS_CUT_SHORT)) finish(r);
      }
    },
    ended: () => finish(parseHttp(body())),
    body,
    stopWith: (f) => (stop = f),
  };
}

interface Head {
  /** Where the body starts. */
  at: number;
  /** The status, or 0 when this is not HTTP. */
  status: number;
  chunked: boolean;
  /** Content-Length, or -1 without one. */
  length: number;
}

/**
 * The answer's head, once it is all in. Read with indexOf rather than regular expressions: V8
 * compiles a regular expression on its first use, a few tenths of a millisecond here in all,
 * after the server has answered.
 */
function headOf(raw: Buffer): Head | undefined {
  const split = raw.indexOf("\r\n\r\n");
  if (split < 0) return undefined;
  const head = raw.toString("latin1", 0, split).toLowerCase();
  const code = head.startsWith("http/1.1 ") || head.startsWith("http/1.0 ") ? Number(head.slice(9, 12)) : NaN;
  const field = (name: string): string | undefined => {
    const at = head.indexOf(`\r\n${name}:`);
    if (at < 0) return undefined;
    const end = head.indexOf("\r\n", at + 2);
    return head.slice(at + name.length + 3, end < 0 ? head.length : end).trim();
  };
  const length = field("content-length");
  const bytes = length === undefined || length === "" ? NaN : Number(length);
  return {
    at: split + 4,
    status: Number.isInteger(code) && code >= 100 ? code : 0,
    chunked: field("transfer-encoding")?.includes("chunked") ?? false,
    length: Number.isInteger(bytes) && bytes >= 0 ? bytes : -1,
  };
}

/**
 * The length of the whole answer once its head is in: head plus Content-Length; 0 when it is
 * chunked (whole at its last chunk); -1 while the head is still coming, -2 when only the end of
 * the stream can tell.
 */
function wholeLength(raw: Buffer): number {
  const h = headOf(raw);
  if (!h) return -1;
  if (h.chunked) return 0;
  return h.length >= 0 ? h.at + h.length : -2;
}

// A chunked answer without trailers ends with its empty last chunk; one with trailers (no
// embedding server sends them) is read to the end of the stream, which Connection: close brings.
const LAST_CHUNK = Buffer.from("\r\n0\r\n\r\n", "latin1");
const CHUNKS_CUT_SHORT = "the answer's chunks are cut short";
// An answer's head is a few hundred bytes.
const MAX_HEAD_BYTES = 16 << 10;

/** An HTTP/1.1 answer read whole: its status and body, chunked or not. */
export function parseHttp(raw: Buffer): Posted {
  const h = headOf(raw);
  if (!h) return { error: raw.length === 0 ? "socket hang up" : "the answer is not HTTP" };
  if (h.status === 0) return { error: "the answer is not HTTP" };
  let body = raw.subarray(h.at);
  if (h.chunked) {
    const parts: Buffer[] = [];
    for (let at = 0; ;) {
      const nl = body.indexOf("\r\n", at);
      if (nl < 0) return { error: CHUNKS_CUT_SHORT };
      const len = parseInt(body.toString("latin1", at, nl), 16);
      if (!Number.isFinite(len)) return { error: "the answer's chunks are broken" };
      if (len === 0) break;
      parts.push(body.subarray(nl + 2, nl + 2 + len));
      at = nl + 2 + len + 2;
    }
    body = Buffer.concat(parts);
  } else if (h.length >= 0) {
    // A body cut short of its length is a server that died mid-answer, not an answer.
    if (body.length < h.length) return { error: "the answer is cut short" };
    body = body.subarray(0, h.length);
  }
  return { status: h.status, text: body.toString("utf8") };
}
