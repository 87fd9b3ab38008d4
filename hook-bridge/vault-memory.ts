/**
 * The hook bridge: the small Node program Claude Code's hooks and cron jobs run.
 *
 * A CommonJS entry of a few lines: an ES module entry costs Node's module loader on every start,
 * and a bundle holding every command costs parsing all of it. The prompt hook loads only recall
 * (`vault-memory-hot.cjs`, through V8's code cache); other commands load the rest.
 */

import { writeSync } from "node:fs";
import { join } from "node:path";
import { requireCached, type CachedModule } from "./src/code-cache";

/** Each file run through the code cache, by name, with its build (esbuild.config.mjs). */
declare const __VM_BUILDS__: Record<string, string>;

interface Hot {
  recall: (argv: readonly string[], scored: () => void, load: (file: string) => CachedModule<unknown>) => number | Promise<number>;
}
interface Commands {
  runCli(argv: readonly string[]): Promise<number>;
}

function main(argv: string[]): Promise<number> {
  if (argv[0] === "recall") {
    const cached = <T>(file: string): CachedModule<T> => requireCached<T>(join(__dirname, file), __VM_BUILDS__[file] ?? "", require);
    const hot = cached<Hot>("vault-memory-hot.cjs");
    return Promise.resolve(hot.exports.recall(argv, hot.complete, cached));
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for the commands that need it
  return (require(join(__dirname, "vault-memory-commands.cjs")) as Commands).runCli(argv);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // Only reached if error handling itself failed; hooks still exit 0.
    writeSync(2, `vault-memory: ${String(err)}\n`);
    process.exit(0);
  },
);
