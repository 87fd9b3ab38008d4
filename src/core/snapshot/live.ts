/** A snapshot kept open by a long-lived process, reopened whenever the file on disk is replaced or rewritten. */

import { statSync } from "node:fs";
import { SnapshotReader } from "./read";

interface Identity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export class LiveSnapshot {
  private reader: SnapshotReader | undefined;
  private identity: Identity | undefined;

  constructor(readonly path: string) {}

  /**
   * The reader for the file as it is now. The plugin and `index` replace the snapshot by rename, so
   * the inode changes; a copy over it or an edit in place changes size or mtime: any of the three
   * means the open reader (and its segment cache) describes a file that is gone. Throws SnapshotError.
   */
  current(): SnapshotReader {
    let now: Identity | undefined;
    try {
      const st = statSync(this.path);
      now = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    } catch {
      /* SnapshotReader.open says why, in its own words */
    }
    const same = now && this.identity && now.ino === this.identity.ino && now.size === this.identity.size && now.mtimeMs === this.identity.mtimeMs;
    if (this.reader && same) return this.reader;
    this.close();
    this.reader = SnapshotReader.open(this.path);
    this.identity = now;
    return this.reader;
  }

  close(): void {
    this.reader?.close();
    this.reader = undefined;
    this.identity = undefined;
  }
}
