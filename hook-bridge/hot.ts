/** The prompt hook's code: recall and nothing else, loaded through the code cache by the entry. */

import { parseArgs } from "./src/args";
import { recallCommand } from "./src/commands/recall";
import { recallWithoutVault, rememberReply, rememberSession } from "./src/cold";

export function recall(argv: readonly string[], scored: () => void): number | Promise<number> {
  return recallCommand(parseArgs(argv), { recallWithoutVault, rememberReply, rememberSession, scored });
}
