/** `index`: builds the snapshot from the vault on disk, without Obsidian; and the cards' vectors, when semantic recall is on. */

import { writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { configOf } from "../settings";
import { recallRulesOf } from "../../../src/core/config";
import { budgetFlag, embedVaultCommand } from "./embed";
import { skippedLine } from "../skipped";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { vaultFiles } from "../../../src/core/paths";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { NoteCache } from "../../../src/core/vault/note-cache";

export async function indexCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const config = configOf(args, vault, (p) => writeSync(2, `warning: ${p}\n`));
  const budget = budgetFlag(args);

  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  // Kept only for the embedding that follows: holding every note's text and card doubled the
  // peak memory of a 50,000-note index.
  const notes = config.embed.enabled ? new NoteCache(vault) : undefined;
  const { index, failed, scan } = buildIndexFromDisk(
    vault,
    config,
    ({ done, total }) => {
      if (tty) writeSync(2, `\rindexing ${done}/${total} notes`);
    },
    notes,
  );
  if (tty) writeSync(2, "\r\x1b[K");
  const target = vaultFiles.snapshot(vault);
  const header = writeSnapshot(target, index, recallRulesOf(config), new Date(), scan);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);

  for (const f of failed) writeSync(2, skippedLine(f));
  const mb = ((header.bodyBytes + 1024) / 1e6).toFixed(1);
  writeSync(1, `indexed ${header.cards} cards, ${header.terms} terms in ${seconds} s → ${target} (${mb} MB)\n`);
  // The snapshot is written: a server that fails or is slow costs the cards' meaning, not the index.
  if (notes && !(await embedVaultCommand(vault, config, notes, tty, header.headerSum ?? "", budget))) {
    writeSync(2, `warning: the snapshot is written and recall works by words; the meaning of the cards without vectors was skipped (run embed to try again)\n`);
  }
  return 0;
}
