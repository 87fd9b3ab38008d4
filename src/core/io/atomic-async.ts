/** writeFileAtomic for Obsidian's main thread: the bytes and the fsync go to Node's thread pool. */

import { mkdir, open, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { tempPathFor } from "./atomic";

export async function writeFileAtomicAsync(path: string, parts: readonly Uint8Array[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  try {
    const file = await open(tmp, "w");
    try {
      for (const part of parts) {
        for (let done = 0; done < part.length;) done += (await file.write(part, done, part.length - done)).bytesWritten;
      }
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (err) {
    // The temp file is ours and holds nothing the user wrote: a full disk must not keep it.
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
