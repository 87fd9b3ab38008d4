/** `index`: builds the snapshot from the vault on disk, without Obsidian. */

import { writeSync } from "node:fs";
import type { Args } from "../args";
import { vaultFlag } from "../vault";
import { vaultConfig } from "../settings";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { vaultFiles } from "../../../src/core/paths";
import { writeSnapshot } from "../../../src/core/snapshot/write";

export function indexCommand(args: Args): number {
  const vault = vaultFlag(args);
  const config = vaultConfig(vault);

  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  const { index, failed } = buildIndexFromDisk(vault, config, ({ done, total }) => {
    if (tty) writeSync(2, `\rindexing ${done}/${total} notes`);
  });
  if (tty) writeSync(2, "\r\x1b[K");
  const target = vaultFiles.snapshot(vault);
  const header = writeSnapshot(target, index, config.recall);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);

  for (const f of failed) writeSync(2, `skipped ${f.path}: ${f.reason}\n`);
  const mb = ((header.bodyBytes + 1024) / 1e6).toFixed(1);
  writeSync(1, `indexed ${header.cards} cards, ${header.terms} terms in ${seconds} s → ${target} (${mb} MB)\n`);
  return 0;
}
