/**
 * The hook bridge: the small Node program Claude Code's hooks and cron jobs run.
 *
 * A small CommonJS entry: an ES module entry costs Node's module loader on every start, and a
 * bundle holding every command costs parsing all of it. The prompt hook first asks the resident
 * recall server (src/resident), which loads nothing; without one it loads only recall
 * (`vault-memory-recall.cjs`, through V8's code cache); other commands load the rest.
 */

import { writeSync } from "node:fs";
import { join } from "node:path";
import { privateCacheDir, requireCached } from "./src/code-cache";
import { askResident, NO_SERVER, residentFor, residentIdleMs, residentRunning, startResident } from "./src/resident/client";
import { readStdinSync } from "./src/stdin";
import type { LoadedFile, RecallHook } from "./src/prompt-hook/entry";
import type { RunRecall, ServeOptions } from "./src/resident/server";

/** Each file run through the code cache, by name, with its build (esbuild.config.mjs). */
declare const __VM_BUILDS__: Record<string, string>;

interface RecallFile {
  recall: (argv: readonly string[], hook: RecallHook) => number | Promise<number>;
}
interface Commands {
  runCli(argv: readonly string[]): Promise<number>;
  serveRecall(opts: ServeOptions): Promise<number>;
}

// The prompt hook's deadline (prompt-hook/ask.ts) unless its command line sets one; a failed
// command's is half of it. Told apart by the payload's event, without parsing the payload.
const DEADLINE_MS = 2000;
const FAILURE = /"hook_event_name"\s*:\s*"PostToolUseFailure"/;

/** Recall, run in this process: the recall file and the others it asks for, each loaded once. */
function recaller(): RunRecall {
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
  return (argv, io = {}) => {
    const file = load("vault-memory-recall.cjs");
    return Promise.resolve((file.exports as RecallFile).recall(argv, { load, scored: file.complete, ...io }));
  };
}

/** The prompt hook: the resident server's answer when one gives it, else recall here, then a server for the next prompt. */
async function recallHook(argv: readonly string[]): Promise<number> {
  const resident = residentFor(argv, privateCacheDir);
  if (!resident) return recaller()(argv);
  let stdin = "";
  let unread: Error | undefined;
  try {
    stdin = readStdinSync();
  } catch (err) {
    unread = err instanceof Error ? err : new Error(String(err));
  }
  const read = (): string => {
    if (unread !== undefined) throw unread;
    return stdin;
  };
  let missed: string | undefined;
  if (unread === undefined) {
    const answer = askResident(resident, stdin, FAILURE.test(stdin) ? DEADLINE_MS / 2 : DEADLINE_MS);
    if ("out" in answer) {
      if (answer.out) writeSync(1, answer.out);
      return 0;
    }
    // Otherwise recalled here, even past the deadline: no cards are printed then, but a "remember
    // this" is still kept, and Claude told so, and the log says why.
    if (answer.missed !== NO_SERVER) missed = answer.missed;
  }
  const code = await recaller()(argv, { stdin: read, missed });
  startResident(resident, __filename);
  return code;
}

function main(argv: string[]): Promise<number> {
  if (argv[0] === "recall") return recallHook(argv);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for the commands that need it
  const commands = (): Commands => require(join(__dirname, "vault-memory-commands.cjs")) as Commands;
  if (argv[0] === "recall-server") {
    // Started by a hook (resident/client.ts): its folder, then the hook's command line.
    const [dir = "", ...hookArgv] = argv.slice(1);
    const files = ["vault-memory.cjs", ...Object.keys(__VM_BUILDS__), "vault-memory-commands.cjs"].map((f) => join(__dirname, f));
    return commands().serveRecall({ dir, privateDir: privateCacheDir(), files, argv: hookArgv, run: recaller(), idleMs: residentIdleMs() });
  }
  if (argv[0] === "remind")
    return commands()
      .runCli(argv)
      .then((code) => (warmResident(argv), code));
  return commands().runCli(argv);
}

/**
 * At a session's start, a server for the prompt hook, so that the first prompt finds one: the
 * hooks are installed with the same flags (src/core/install/hook-commands.ts), so the prompt
 * hook's command line is this one's with `recall` for `remind`. Starting one costs a hook about
 * 6 ms, which the session start, unlike a prompt, does not feel.
 */
function warmResident(argv: readonly string[]): void {
  const resident = residentFor(["recall", ...argv.slice(1)], privateCacheDir);
  if (resident && !residentRunning(resident)) startResident(resident, __filename);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // Only reached if error handling itself failed; hooks still exit 0.
    writeSync(2, `vault-memory: ${String(err)}\n`);
    process.exit(0);
  },
);
