/** The prompt hook's code: recall and nothing else, loaded through the code cache by the entry. */

import { badFlags, parseArgs } from "./src/args";
import { logRefusedHook } from "./src/no-vault";
import { commandUsage } from "./src/usage";
import { writeSync } from "node:fs";
import { recallCommand } from "./src/commands/recall";
import { recallWithoutVault, rememberReply, rememberSession } from "./src/cold";
import { useLoader, type Loader } from "./src/beside";
import type { Early } from "./src/early";

/**
 * `load` is the entry's way to load the bridge's other files through its code cache; `early`,
 * what the entry did before this code loaded (see early.ts).
 */
export function recall(argv: readonly string[], scored: () => void, load?: Loader, early?: Early): number | Promise<number> {
  if (load) useLoader(load);
  if (parseArgs(argv).flags.has("help")) {
    writeSync(1, commandUsage("recall"));
    return 0;
  }
  const bad = badFlags(argv, "recall");
  if (bad) {
    logRefusedHook(parseArgs(argv), bad);
    return 0;
  }
  return recallCommand(parseArgs(argv), { recallWithoutVault, rememberReply, rememberSession, scored, early });
}
