/** A note left by a recall that found the snapshot damaged, so the next session start rebuilds it. */

import { statSync } from "node:fs";
import { readTextFile } from "../io/read-file";
import { writeFileAtomic } from "../io/atomic";
import { vaultFiles } from "../paths";

interface DamageNote {
  /** The damaged file's size and modification time: a snapshot written since is another file. */
  size: number;
  mtimeMs: number;
  reason: string;
  at: string;
}

const notePath = vaultFiles.snapshotDamage;

/**
 * Records that the snapshot at `snapshot` failed a check. Recall itself never rebuilds (it has
 * milliseconds, and only read part of the file); remind, which reads only the header, would
 * otherwise never learn that a segment in the middle is bad.
 */
export function noteSnapshotDamage(vault: string, snapshot: string, reason: string): void {
  try {
    const st = statSync(snapshot);
    const note: DamageNote = { size: st.size, mtimeMs: st.mtimeMs, reason, at: new Date().toISOString() };
    writeFileAtomic(notePath(vault), JSON.stringify(note) + "\n");
  } catch {
    /* the snapshot is gone, and a missing one is rebuilt anyway */
  }
}

/** Why the current snapshot was found damaged, or undefined when it was not (or was rewritten since). */
export function snapshotDamage(vault: string, snapshot: string): string | undefined {
  try {
    const note = JSON.parse(readTextFile(notePath(vault), { maxBytes: 1 << 16 })) as Partial<DamageNote>;
    const st = statSync(snapshot);
    return note.size === st.size && note.mtimeMs === st.mtimeMs ? String(note.reason) : undefined;
  } catch {
    return undefined;
  }
}
