/**
 * What the settings tab says of semantic recall's vectors: the model that made them, how many
 * cards have them, whether the vault is calibrated for it, and how many recall hints count. Its own file, read with promises
 * so that the window never waits on the disk; the prompt hook never loads it.
 */

import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { vectorsPathOf, type VectorsHeader } from "./vectors";

const HEADER_BYTES = 4096;

/** One sentence on the vectors beside the snapshot at `snapshotPath`, for the model set on this computer. */
export async function vectorsStatus(snapshotPath: string, model: string): Promise<string> {
  let h: VectorsHeader | undefined;
  try {
    // Not blocking, and a regular file only: a FIFO at the path would otherwise hang the read.
    const f = await open(vectorsPathOf(snapshotPath), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      if ((await f.stat()).isFile()) {
        const buf = Buffer.alloc(HEADER_BYTES);
        const { bytesRead } = await f.read(buf, 0, HEADER_BYTES, 0);
        const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
        if (nl > 0) h = JSON.parse(buf.subarray(0, nl).toString("utf8")) as VectorsHeader;
      }
    } finally {
      await f.close();
    }
  } catch {
    h = undefined;
  }
  if (!h || typeof h.model !== "string" || typeof h.cards !== "number") return "No vectors yet: they are made after the next full index, with the server up.";
  if (h.model !== model) return `The vectors were made by ${h.model}, and ${model} is set: recall uses words alone until the next full index.`;
  const made = `${h.embedded ?? "Some"} of ${h.cards} cards embedded by ${h.model}`;
  const c = h.calibration;
  if (!c) return `${made}; not calibrated yet, so meaning is not used: index again with the server up.`;
  const hints = typeof h.questions === "number" && h.questions > 0 ? `, with ${h.questions} recall hints as questions` : "";
  return `${made}; calibrated on ${c.prompts} background prompts${hints}.`;
}
