/** A snapshot kept open by a long-lived process, reopened whenever a file of it on disk is replaced or rewritten. */

import { fileIdentity } from "../io/read-file";
import { overlayPathOf } from "./format";
import { SnapshotReader } from "./read";

export class LiveSnapshot {
  private reader: SnapshotReader | undefined;
  private identity: string | undefined;

  constructor(readonly path: string) {}

  /**
   * The reader for the files as they are now. Writers replace them by rename, so the inode
   * changes; a copy over one or an edit in place changes size or mtime. Any of the three, in the
   * base or in its overlay (which the plugin and write_card replace on every batch of edits while
   * the base stays as it was), means the open reader describes files that are gone. Throws SnapshotError.
   */
  current(): SnapshotReader {
    const now = `${fileIdentity(this.path)}|${fileIdentity(overlayPathOf(this.path))}`;
    if (this.reader && now === this.identity) return this.reader;
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
