/** What the last digest run did, in one small file every machine and both the plugin and the CLI read. */

import { readTextFile } from "../io/read-file";
import { writeFileAtomic } from "../io/atomic";
import { vaultFiles } from "../paths";

export interface DigestStatus {
  startedAt: string;
  finishedAt: string;
  ok: boolean;
  error?: string;
  created: number;
  extended: number;
  skipped: number;
  enriched: number;
  /** Entries whose answer was refused or whose call failed; they stay in the queue. */
  failed: number;
  left: number;
  git?: string;
  /** Why the report command failed, or the report's mail did not go. */
  notify?: string;
}

export function writeDigestStatus(vault: string, status: DigestStatus): void {
  writeFileAtomic(vaultFiles.digestStatus(vault), JSON.stringify(status, null, 2) + "\n");
}

/** The last run's status, as far as the file holds one; undefined when there is none or it is unreadable. */
export function readDigestStatus(vault: string): Partial<DigestStatus> | undefined {
  try {
    // A few hundred bytes; anything else at its name (a FIFO, a huge file) is no status.
    const s: unknown = JSON.parse(readTextFile(vaultFiles.digestStatus(vault), { maxBytes: 1 << 20 }));
    if (!s || typeof s !== "object" || Array.isArray(s)) return undefined;
    return s;
  } catch {
    return undefined;
  }
}
