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
import { appendLog } from "../../../src/core/io/log";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { refreshSnapshot } from "../../../src/core/snapshot/refresh";

/** Changed cards `index --changed` takes card by card; past it, a whole index is as quick. */
export const MAX_CHANGED_CARDS = 200;

export async function indexCommand(args: Args): Promise<number> {
  const vault = vaultFlag(args);
  const config = configOf(args, vault, (p) => writeSync(2, `warning: ${p}\n`));
  const budget = budgetFlag(args);
  if (args.flags.has("changed")) {
    // Only what changed since the snapshot, when that is little; everything otherwise.
    const r = refreshSnapshot(vault, config, { maxChanged: MAX_CHANGED_CARDS });
    if (r.kind === "current" || r.kind === "overlay") {
      writeSync(1, `${r.kind === "current" ? "the snapshot is current" : "brought the snapshot up to date"}: ${r.reason}\n`);
      // A session start in a large vault runs this detached, its output unread: the log says
      // when changed cards became recallable.
      if (r.kind === "overlay") appendLog(vaultFiles.log(vault), "index", `brought the snapshot up to date: ${r.reason}`);
      return 0;
    }
    writeSync(2, `${r.reason}; indexing everything\n`);
  }

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
