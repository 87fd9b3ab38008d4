/**
 * One plain-HTTP request to a server on this computer through Node's own TCP handle, for the
 * prompt hook. Loading `net` and making its first socket is about 3 ms of a cold process (its
 * streams, compiled lazily on first use); the handle underneath is a tenth of that, on a path
 * where the prompt waits for every millisecond before the request leaves.
 *
 * The handle is reached through `process.binding`, which Node keeps for this kind of use but
 * documents as deprecated: every shape it relies on is checked first, and when anything is not as
 * expected (another runtime, a Node that dropped it, `--pending-deprecation` asking for a warning)
 * the caller is told to use `net` instead, which always works.
 */

import type { Collector } from "./http";
import { bareHost, isIPv4 } from "./settings";

interface ConnectReq {
  oncomplete: (status: number) => void;
}
interface WriteReq {
  handle: TcpHandle;
  oncomplete: (status: number) => void;
}
interface TcpHandle {
  connect(req: ConnectReq, host: string, port: number): number;
  connect6(req: ConnectReq, host: string, port: number): number;
  readStart(): number;
  writeUtf8String(req: WriteReq, text: string): number;
  close(): void;
  onread: (buffer: ArrayBuffer | undefined) => void;
}
export interface Bindings {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => ConnectReq;
  WriteWrap: new () => WriteReq;
  socketType: number;
  state: Int32Array;
  kRead: number;
  kOffset: number;
  kAsync: number;
}

/** What of a process the handle is found through: `process`, or a stand-in in tests. */
export interface ProcessLike {
  binding?: unknown;
  execArgv: readonly string[];
  env: Record<string, string | undefined>;
  versions: Record<string, string | undefined>;
}

/** Node's TCP handle and what reading and writing it needs, or null when any of it is not as expected. */
export function tcpBindings(proc: ProcessLike): Bindings | null {
  // Each of these makes Node warn on stderr of the call, or throw, and a hook must print nothing.
  const options = `${proc.execArgv.join(" ")} ${proc.env.NODE_OPTIONS ?? ""}`;
  if (typeof proc.binding !== "function" || proc.versions.electron !== undefined || /--pending-deprecation|--throw-deprecation/.test(options) || proc.env.NODE_PENDING_DEPRECATION === "1") return null;
  const binding = proc.binding as (name: string) => Record<string, unknown>;
  try {
    const { TCP, TCPConnectWrap, constants } = binding("tcp_wrap") as { TCP?: unknown; TCPConnectWrap?: unknown; constants?: { SOCKET?: unknown } };
    const { WriteWrap, streamBaseState, kReadBytesOrError, kArrayBufferOffset, kLastWriteWasAsync } = binding("stream_wrap");
    const proto = (TCP as { prototype?: Record<string, unknown> } | undefined)?.prototype;
    const methods = ["connect", "connect6", "readStart", "writeUtf8String", "close"];
    if (typeof TCP !== "function" || typeof TCPConnectWrap !== "function" || typeof WriteWrap !== "function" || !proto || methods.some((m) => typeof proto[m] !== "function")) return null;
    if (!(streamBaseState instanceof Int32Array) || typeof constants?.SOCKET !== "number" || ![kReadBytesOrError, kArrayBufferOffset, kLastWriteWasAsync].every((k) => typeof k === "number")) return null;
    return {
      TCP: TCP as Bindings["TCP"],
      TCPConnectWrap: TCPConnectWrap as Bindings["TCPConnectWrap"],
      WriteWrap: WriteWrap as Bindings["WriteWrap"],
      socketType: constants.SOCKET,
      state: streamBaseState,
      kRead: kReadBytesOrError as number,
      kOffset: kArrayBufferOffset as number,
      kAsync: kLastWriteWasAsync as number,
    };
  } catch {
    return null;
  }
}

let bindings: Bindings | null | undefined;

/**
 * Sends `request` (head and body) to `host:port` and feeds the answer to `into`. False, having
 * done nothing, when this Node offers no handle this can use or the host is not an address:
 * the caller then posts through `net`. "localhost" is 127.0.0.1, then ::1 if that refuses.
 */
export function postDirect(host: string, port: number, request: string, into: Collector, sent?: () => void): boolean {
  if (bindings === undefined) bindings = tcpBindings(process);
  const b = bindings;
  const h = bareHost(host);
  const addresses = h.toLowerCase() === "localhost" ? ["127.0.0.1", "::1"] : isIPv4(h) || h.includes(":") ? [h] : [];
  if (!b || addresses.length === 0) return false;
  let handle: TcpHandle | undefined;
  let stopped = false;
  const close = (): void => {
    try {
      handle?.close();
    } catch {
      /* closed already */
    }
    handle = undefined;
  };
  into.stopWith(() => {
    stopped = true;
    close();
  });
  const fail = (what: string, status: number, address: string): void => into.finish({ error: `${what} ${errorName(status)} ${address}:${port}` });
  // A handle that throws (a runtime that changed it) ends the request with the reason: nothing
  // may escape into the hook, which must answer from words.
  const guarded =
    <A extends unknown[]>(f: (...args: A) => void) =>
    (...args: A): void => {
      try {
        f(...args);
      } catch (err) {
        into.finish({ error: `Node's TCP handle failed: ${err instanceof Error ? err.message : String(err)}` });
      }
    };
  const attempt = (i: number): void => {
    const address = addresses[i];
    const tcp = new b.TCP(b.socketType);
    handle = tcp;
    const req = new b.TCPConnectWrap();
    req.oncomplete = guarded((status: number) => {
      // Settled meanwhile (the deadline): the handle is closed, and no other address is tried.
      if (stopped) return;
      if (status < 0) {
        close();
        if (i + 1 < addresses.length) attempt(i + 1);
        else fail("connect", status, address);
        return;
      }
      tcp.onread = guarded((buffer: ArrayBuffer | undefined) => {
        const n = b.state[b.kRead];
        if (n > 0 && buffer) into.take(Buffer.from(new Uint8Array(buffer, b.state[b.kOffset], n)));
        else if (n < 0) into.ended();
      });
      const read = tcp.readStart();
      if (read < 0) return fail("read", read, address);
      const w = new b.WriteWrap();
      w.handle = tcp;
      w.oncomplete = guarded((status: number) => (status < 0 ? fail("write", status, address) : sent?.()));
      const wrote = tcp.writeUtf8String(w, request);
      if (wrote < 0) fail("write", wrote, address);
      // Written at once, the request is already on its way and no completion will come.
      else if (b.state[b.kAsync] === 0) sent?.();
    });
    const err = address.includes(":") ? tcp.connect6(req, address, port) : tcp.connect(req, address, port);
    if (err < 0) req.oncomplete(err);
  };
  try {
    attempt(0);
  } catch {
    // Nothing has left yet: net takes the request, and this process does not try the handle again.
    stopped = true;
    close();
    bindings = null;
    return false;
  }
  return true;
}

function errorName(status: number): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- only when something failed
    return (require("node:util") as typeof import("node:util")).getSystemErrorName(status);
  } catch {
    return `error ${status}`;
  }
}
