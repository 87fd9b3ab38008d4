/** Runs the digest in a Node process of its own and follows it (io/bridge-child.ts), so that a window waiting on it never freezes. */

import { runBridgeChild } from "../io/bridge-child";
import type { VaultMemoryConfig } from "../config";
import type { DigestReport } from "./run";

/** Names the shape of the last line, so a bridge of another release is told apart from a broken one. */
export const DIGEST_CHILD_PROTOCOL = 1;

/** One line of `digest --json`: progress as it goes, then the report. */
export type DigestChildLine = { progress: string } | { warning: string } | { protocol: number; report: DigestReport };

export interface DigestChildOptions {
  /** The program that runs the bridge: Node, or Obsidian's own Electron with ELECTRON_RUN_AS_NODE. */
  node: string;
  /** The bridge's entry file (vault-memory.cjs). */
  bridge: string;
  vault: string;
  config: VaultMemoryConfig;
  sessionIds?: readonly string[];
  env?: NodeJS.ProcessEnv;
  onProgress?: (line: string) => void;
}

/**
 * Starts `digest --json` and resolves with its report (io/bridge-child.ts). Never rejects: a
 * bridge that cannot start, dies, or prints something else resolves with a report that says so
 * (ok: false). It has no deadline and is not killed when the caller goes away: it holds the
 * digest's lock and writes its status file, and stopping it halfway through an LLM call would
 * waste the call.
 */
export function runDigestChild(o: DigestChildOptions): Promise<DigestReport> {
  const startedAt = new Date().toISOString();
  return runBridgeChild({
    node: o.node,
    bridge: o.bridge,
    env: o.env,
    onProgress: o.onProgress,
    args: ["digest", "--vault", o.vault, "--json", "--config", "-", ...(o.sessionIds ? ["--only", o.sessionIds.join(",")] : [])],
    input: JSON.stringify(o.config),
    what: "digest",
    protocol: DIGEST_CHILD_PROTOCOL,
    isReport,
    failed: (error) => ({ ok: false, error, dryRun: false, results: [], failures: [], left: 0, startedAt, finishedAt: new Date().toISOString() }),
  });
}

function isReport(v: unknown): v is DigestReport {
  const r = v as Partial<DigestReport> | undefined;
  return !!r && typeof r === "object" && typeof r.ok === "boolean" && Array.isArray(r.results) && Array.isArray(r.failures) && typeof r.left === "number";
}
