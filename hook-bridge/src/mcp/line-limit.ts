/**
 * The MCP server's input, one JSON-RPC message a line, bounded. The SDK's stdio transport keeps
 * a line until its newline comes, up to 10 MB, and past that closes: the server exited 0 with no
 * reply and nothing said. Here a line is held up to MAX_REQUEST_BYTES; a longer one is dropped as
 * it streams in (never held whole), answered with a JSON-RPC error, and the next line is served.
 */

import { Transform, type TransformCallback } from "node:stream";

// What Claude Code sends is small: an initialize of a few kilobytes, and tool calls whose
// arguments the tools bound far lower (a query of 2,000 characters, a note of 4,000, a path of
// 1,000), a few tens of kilobytes at most once escaped. A megabyte is room for any of them.
export const MAX_REQUEST_BYTES = 1 << 20;

// The start of a line read for its id: JSON-RPC clients write `jsonrpc`, `id` and `method` before `params`.
const HEAD_BYTES = 4096;

/** What the server is told of a line it did not take. */
export interface TooLarge {
  /** The request's id, when its first bytes hold it at the top level; null otherwise. */
  id: string | number | null;
  limit: number;
}

/**
 * A stream of stdin's bytes as whole lines of at most `limit` bytes each, for the SDK's transport
 * (its constructor takes the stream to read). `onTooLarge` is told of each longer line once, as
 * soon as it passes the limit.
 */
export function boundedLines(onTooLarge: (t: TooLarge) => void, limit = MAX_REQUEST_BYTES): Transform {
  let held: Buffer[] = [];
  let size = 0;
  // Inside a line already refused: its bytes are dropped up to its newline.
  let dropping = false;
  return new Transform({
    transform(chunk: Buffer, _encoding: string, done: TransformCallback) {
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(0x0a, start);
        const end = nl < 0 ? chunk.length : nl + 1;
        const piece = chunk.subarray(start, end);
        if (!dropping && size + piece.length > limit) {
          const head = Buffer.concat([...held, piece]).subarray(0, HEAD_BYTES);
          onTooLarge({ id: topLevelId(head.toString("utf8")), limit });
          held = [];
          size = 0;
          dropping = true;
        }
        if (!dropping) {
          held.push(piece);
          size += piece.length;
        }
        if (nl >= 0) {
          if (!dropping) this.push(Buffer.concat(held));
          held = [];
          size = 0;
          dropping = false;
        }
        start = end;
      }
      done();
    },
  });
}

/**
 * The `id` of a JSON-RPC request from the start of its text, read only at the top level of the
 * object (an `id` inside `params` is not the request's), when it is a number or a string there.
 */
export function topLevelId(text: string): string | number | null {
  let depth = 0;
  let i = 0;
  const skipString = (): number => {
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === "\\") j++;
      else if (text[j] === '"') return j + 1;
    }
    return -1;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = skipString();
      if (end < 0) return null;
      if (depth === 1 && text.slice(i, end) === '"id"') {
        const m = /^\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")/.exec(text.slice(end, end + 300));
        if (!m) return null;
        const value: unknown = JSON.parse(m[1]);
        return typeof value === "number" || typeof value === "string" ? value : null;
      }
      i = end;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  }
  return null;
}
