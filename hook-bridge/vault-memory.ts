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
import type { Early, EarlySemantic } from "./src/early";
import { semanticGlance } from "./src/glance";
import { fnv1aWordsScript } from "../src/core/io/hash";

/** Each file run through the code cache, by name, with its build (esbuild.config.mjs). */
declare const __VM_BUILDS__: Record<string, string>;

interface Hot {
  recall: (argv: readonly string[], scored: () => void, load: (file: string) => CachedModule<unknown>, early: Early | undefined) => number | Promise<number>;
}
interface Commands {
  runCli(argv: readonly string[]): Promise<number>;
}

function main(argv: string[]): Promise<number> {
  if (argv[0] === "recall") {
    // One module per file, whoever asks first: the entry, or recall's code through its seams.
    const loaded = new Map<string, CachedModule<unknown>>();
    const cached = <T>(file: string, hash?: (bytes: Uint8Array) => number): CachedModule<T> => {
      let m = loaded.get(file);
      if (!m) loaded.set(file, (m = requireCached<unknown>(join(__dirname, file), __VM_BUILDS__[file] ?? "", require, hash)));
      return m as CachedModule<T>;
    };
    // With semantic recall on, the prompt's vector is asked for before recall's code loads (its
    // cache checked in JavaScript: the process's first WebAssembly then comes after the request).
    let early: Early | undefined;
    try {
      if (semanticGlance(argv)) early = cached<EarlySemantic>("vault-memory-semantic.cjs", fnv1aWordsScript).exports.beginRecall(argv);
    } catch {
      // The semantic code could not be loaded: recall goes on without it, and says why when it asks.
    }
    const go = (): number | Promise<number> => {
      const hot = cached<Hot>("vault-memory-hot.cjs");
      return hot.exports.recall(argv, hot.complete, cached, early);
    };
    // One turn of the event loop first: a connection to this computer is made by then, and the
    // request leaves in it, rather than once recall's code has loaded and scored.
    return early?.ask ? new Promise<void>((resolve) => setImmediate(resolve)).then(go) : Promise.resolve(go());
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
