/** `restore`: a card archived (by the night, archive_card or by hand) given back to recall, in one step. */

import { writeSync } from "node:fs";
import { stringFlag, UsageError, type Args } from "../args";
import { vaultFlag } from "../vault";
import { loadSettings } from "../settings";
import { FrontmatterError } from "../../../src/core/card/frontmatter-edit";
import { withCardsLock } from "../../../src/core/digest/apply";
import { restoredText } from "../../../src/core/digest/retire";
import { CardRefused, cardToChange, snapshotAfterWrite, vectorsAfterWrite } from "../../../src/core/digest/write-now";
import { replaceOrGiveBack } from "../../../src/core/io/atomic";
import { NoteCache } from "../../../src/core/vault/note-cache";

export async function restoreCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const card = stringFlag(args, "card");
  if (!card) throw new UsageError("restore needs --card PATH: the archived card, as the digest's report or lint names it");
  const config = loadSettings(vault, args, (p) => void writeSync(2, `warning: ${p}\n`), false).config;
  try {
    // The snapshot under the lock, as every write brings it up to date; its vectors after it.
    const { path, update } = withCardsLock(vault, () => {
      const target = cardToChange(vault, config, card, "restored");
      replaceOrGiveBack(target.abs, target.text, restoredText(target.path, target.text));
      return { path: target.path, update: snapshotAfterWrite(vault, config, new NoteCache(vault)) };
    });
    const snapshot = await vectorsAfterWrite(vault, config, update);
    writeSync(
      1,
      `restored ${path}: its status, archived date and reason are removed, and recall shows it again${snapshot === "overlay" || snapshot === "full" ? "" : ` once the index is rebuilt (${snapshot})`}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof CardRefused || err instanceof FrontmatterError) throw new Error(err.message.replace(/\.$/, ""));
    throw err;
  }
}
