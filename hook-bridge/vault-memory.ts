/**
 * The hook bridge: the small Node program Claude Code's hooks and cron jobs run.
 *
 * A CommonJS entry of a few lines: an ES module entry costs Node's module loader on every start,
 * and a bundle holding every command costs parsing all of it. The prompt hook loads only recall
 * (`vault-memory-recall.cjs`, through V8's code cache); other commands load the rest.
 */

import { writeSync } from "node:fs";
import { join } from "node:path";
import { requireCached } from "./src/code-cache";
import type { LoadedFile, RecallHook } from "./src/prompt-hook/entry";

/** Each file run through the code cache, by name, with its build (esbuild.config.mjs). */
declare const __VM_BUILDS__: Record<string, string>;

interface RecallFile {
  recall: (argv: readonly string[], hook: RecallHook) => number | Promise<number>;
}
interface Commands {
  runCli(argv: readonly string[]): Promise<number>;
}

function main(argv: string[]): Promise<number> {
  if (argv[0] === "recall") {
    // Each file once, whoever asks for it first.
    const loaded = new Map<string, LoadedFile>();
    const load = (file: string): LoadedFile => {
      let m = loaded.get(file);
      if (!m) {
        const build = __VM_BUILDS__[file];
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of the bridge without a code cache, loaded on first use
        m = build ? requireCached<unknown>(join(__dirname, file), build, require) : { exports: require(join(__dirname, file)) as unknown, complete: () => {} };
        loaded.set(file, m);
      }
      return m;
    };
    const file = load("vault-memory-recall.cjs");
    return Promise.resolve((file.exports as RecallFile).recall(argv, { load, scored: file.complete }));
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
