/** Runs the digest in a Node process of its own and follows it, so that a window waiting on it never freezes. */

import { spawn } from "node:child_process";
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

// A report lists at most a night's entries; past these, the output is not the bridge's.
const MAX_LINE_CHARS = 1 << 20;
const MAX_STDERR_CHARS = 4096;

/**
 * Starts `digest --json` and resolves with its report. Never rejects: a bridge that cannot start,
 * dies, or prints something else resolves with a report that says so (ok: false). The process is
 * not killed when the caller goes away: it holds the digest's lock and writes its status file, and
 * stopping it halfway through an LLM call would waste the call.
 */
export function runDigestChild(o: DigestChildOptions): Promise<DigestReport> {
  const startedAt = new Date().toISOString();
  const failed = (error: string): DigestReport => ({
    ok: false,
    error,
    dryRun: false,
    results: [],
    failures: [],
    left: 0,
    startedAt,
    finishedAt: new Date().toISOString(),
  });
  return new Promise((resolve) => {
    const args = [o.bridge, "digest", "--vault", o.vault, "--json", "--config", "-"];
    if (o.sessionIds) args.push("--only", o.sessionIds.join(","));
    let child;
    try {
      child = spawn(o.node, args, { env: o.env ?? process.env, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    } catch (err) {
      resolve(failed(`could not start the digest: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    let report: DigestReport | undefined;
    let pending = "";
    let stderr = "";
    let broken = "";
    const take = (line: string): void => {
      if (line.trim() === "") return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        broken ||= line.slice(0, 200);
        return;
      }
      const l = parsed as Partial<{ progress: unknown; warning: unknown; protocol: unknown; report: DigestReport }>;
      if (typeof l.progress === "string") o.onProgress?.(l.progress);
      else if (typeof l.warning === "string") o.onProgress?.(`warning: ${l.warning}`);
      else if (l.protocol === DIGEST_CHILD_PROTOCOL && isReport(l.report)) report = l.report;
      else broken ||= line.slice(0, 200);
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        take(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
      if (pending.length > MAX_LINE_CHARS) {
        broken ||= "a line longer than the bridge ever prints";
        pending = "";
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_STDERR_CHARS);
    });
    child.on("error", (err) => resolve(failed(`could not start the digest: ${err.message}`)));
    child.on("close", (code, signal) => {
      take(pending);
      if (report) resolve(report);
      else if (broken) resolve(failed(`the bridge printed something that is not the digest's: ${broken}`));
      else
        resolve(
          failed(`the digest ended (${signal ?? `exit ${String(code)}`}) without a report${stderr.trim() ? `: ${stderr.trim().split("\n").pop()}` : ""}`),
        );
    });
    child.stdin.on("error", () => {
      /* a bridge that exits before reading its settings is reported by "close" */
    });
    child.stdin.end(JSON.stringify(o.config));
  });
}

function isReport(v: unknown): v is DigestReport {
  const r = v as Partial<DigestReport> | undefined;
  return !!r && typeof r === "object" && typeof r.ok === "boolean" && Array.isArray(r.results) && Array.isArray(r.failures) && typeof r.left === "number";
}
