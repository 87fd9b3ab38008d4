/** Runs `import --json` in a Node process of its own and follows it (io/bridge-child.ts): Obsidian's "Import earlier sessions". */

import { runBridgeChild } from "../io/bridge-child";
import type { ImportReport } from "./import";

/** Names the shape of `import --json`'s last line, so a bridge of another release is told apart from a broken one. */
export const IMPORT_CHILD_PROTOCOL = 1;

/** The import's own budget is ten minutes; past fifteen it is stuck on something that does not bound. */
export const IMPORT_CHILD_TIMEOUT_MS = 15 * 60_000;

export interface ImportChildOptions {
  node: string;
  bridge: string;
  vault: string;
  /** The settings the import runs with (the whole VaultMemoryConfig), handed on stdin with `--config -`. */
  config: object;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
}

/** The import's report, or, with `error` set and nothing counted, why there is none. */
export type ImportOutcome = ImportReport & { error?: string };

export function runImportChild(o: ImportChildOptions): Promise<ImportOutcome> {
  return runBridgeChild<ImportOutcome>({
    ...o,
    args: ["import", "--vault", o.vault, "--json", "--config", "-"],
    input: JSON.stringify(o.config),
    timeoutMs: o.timeoutMs ?? IMPORT_CHILD_TIMEOUT_MS,
    what: "import",
    afterStop: "; what it queued stays queued, and the next import goes on from there",
    protocol: IMPORT_CHILD_PROTOCOL,
    isReport,
    failed: (error) => ({ from: "", dryRun: false, found: 0, queued: [], known: 0, short: 0, excluded: 0, outside: 0, refused: [], left: 0, error }),
  });
}

function isReport(v: unknown): v is ImportOutcome {
  const r = v as Partial<ImportReport> | undefined;
  return !!r && typeof r === "object" && typeof r.found === "number" && Array.isArray(r.queued) && Array.isArray(r.refused);
}
