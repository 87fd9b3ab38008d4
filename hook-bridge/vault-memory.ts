/** The hook bridge: the small Node program Claude Code's hooks and cron jobs run. */

import { writeSync } from "node:fs";
import { parseArgs } from "./src/args";
import { recallCommand } from "./src/commands/recall";
import { recallWithoutVault, rememberReply, rememberSession, runCli } from "./src/cold";

function main(argv: string[]): Promise<number> {
  // The prompt hook skips the dispatcher so that nothing but recall is loaded on every prompt.
  if (argv[0] === "recall") return Promise.resolve(recallCommand(parseArgs(argv), { recallWithoutVault, rememberReply, rememberSession }));
  return runCli(argv);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // Only reached if error handling itself failed; hooks still exit 0.
    writeSync(2, `vault-memory: ${String(err)}\n`);
    process.exit(0);
  },
);
