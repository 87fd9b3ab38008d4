/** Command-line flags: `--name value`, `--name=value`, `--flag`, and the command word, by Node's util.parseArgs. */

import { parseArgs as parseNodeArgs, type ParseArgsConfig } from "node:util";

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export interface Args {
  command: string;
  /** The word after the command, for commands that have subcommands (`schedule install`). */
  sub?: string;
  flags: Map<string, string | true>;
}

/**
 * The command word, the word after it, and the flags, leniently: an unknown flag is kept as given
 * (badFlags is what refuses it), so that `--help` and the hooks' logging still see the command.
 */
export function parseArgs(argv: readonly string[]): Args {
  return readCommandLine(argv).args;
}

/**
 * The command line read once for both uses: its Args, and why it is refused (badFlags), if it is.
 * A line that is right and opens with its command, as every hook's does, is parsed strictly
 * once; only a refused one is parsed again, leniently, for its flags.
 */
export function readCommandLine(argv: readonly string[]): { args: Args; bad?: string } {
  // A line that opens with its command, as every hook's does, is parsed once. Otherwise first
  // with every flag that takes a value, so that `--vault DIR recall` finds the command.
  const first = flagsOf(argv[0]) ? undefined : lenient(argv, VALUE_OPTIONS);
  const command = first ? (first.positionals[0] ?? "") : argv[0];
  const known = flagsOf(command);
  if (!known) return { args: argsOf(command, first!) };
  const options = optionsOf(known);
  // Only a line that opens with its command: plainLine reads the rest as its flags.
  const plain = first ? undefined : plainLine(argv, options);
  if (plain) return { args: argsOf(command, plain), bad: strayWords(argv, command, plain.positionals) };
  let strict: Parsed;
  try {
    strict = parseNodeArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (err) {
    return { args: argsOf(command, lenient(argv, options)), bad: refusal(err, command, options) };
  }
  return { args: argsOf(command, strict), bad: strayWords(argv, command, strict.positionals) };
}

type Parsed = { values: Record<string, unknown>; positionals: string[] };

/**
 * A line as every hook writes it, read without util.parseArgs: the command, then only its own
 * long flags, `--name value` or `--name=value` for one that takes a value and `--name` for one
 * that does not. What util.parseArgs reads it as, strictly, with nothing to refuse. Undefined for
 * any other line (a short flag, a stray word, a value that looks like a flag), which
 * util.parseArgs reads: loading it compiled some twenty functions of Node's on every prompt.
 */
function plainLine(argv: readonly string[], options: ParseArgsOptionsConfig): Parsed | undefined {
  const values: Record<string, unknown> = {};
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i];
    if (!word.startsWith("--") || word === "--") return undefined;
    const eq = word.indexOf("=");
    const name = word.slice(2, eq < 0 ? undefined : eq);
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) return undefined;
    if (option.type === "boolean") {
      if (eq >= 0) return undefined;
      values[name] = true;
    } else if (eq >= 0) values[name] = word.slice(eq + 1);
    else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("-")) return undefined;
      values[name] = value;
      i++;
    }
  }
  return { values, positionals: [argv[0]] };
}

function argsOf(command: string, { values, positionals }: Parsed): Args {
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== false) flags.set(name, typeof value === "string" ? value : true);
  return { command, sub: positionals[1], flags };
}

function lenient(argv: readonly string[], options: ParseArgsOptionsConfig): Parsed {
  return parseNodeArgs({ args: [...argv], options, strict: false, allowPositionals: true });
}

/** A mistake in the command line: the command exits 2 and shows its usage. */
export class UsageError extends Error {}

export function stringFlag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function numberFlag(args: Args, name: string): number | undefined {
  const v = stringFlag(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0) throw new UsageError(`--${name} takes a non-negative number, not "${v}"`);
  return n;
}

/** Flags that take a value, and flags that stand alone; every command also takes --help. */
export const VALUE = new Set([
  "vault",
  "config",
  "max-cards",
  "min-score",
  "max-chars",
  "deadline-ms",
  "limit",
  "only",
  "settings",
  "embed-budget-sec",
  "if-due",
  "at",
  "platform",
  "from",
  "since",
  "project",
  "card",
]);

/** The flags each command reads (see USAGE); any other is a typo that would otherwise be ignored. */
export const COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  index: ["vault", "config", "embed-budget-sec", "changed"],
  recall: ["vault", "config", "max-cards", "min-score", "max-chars", "deadline-ms"],
  queue: ["vault", "config"],
  remember: ["vault", "config"],
  remind: ["vault", "config"],
  lint: ["vault", "config", "json"],
  digest: ["vault", "config", "dry-run", "limit", "only", "json", "if-due"],
  enrich: ["vault", "config", "dry-run", "limit"],
  embed: ["vault", "config", "embed-budget-sec"],
  trust: ["vault", "config", "yes"],
  install: ["vault", "config", "settings", "yes", "dry-run"],
  uninstall: ["vault", "config", "settings", "yes", "dry-run"],
  mcp: ["vault", "config"],
  schedule: ["vault", "config", "at", "platform", "dry-run", "yes"],
  sync: ["vault", "config", "force", "dry-run", "json"],
  import: ["vault", "config", "from", "since", "project", "dry-run", "json"],
  status: ["vault", "config", "json"],
  restore: ["vault", "config", "card"],
  consolidate: ["vault", "config", "dry-run", "propose"],
};

/** A command's flags; undefined for a word that is no command ("constructor" included). */
export function flagsOf(command: string | undefined): readonly string[] | undefined {
  return command !== undefined && Object.hasOwn(COMMAND_FLAGS, command) ? COMMAND_FLAGS[command] : undefined;
}

/** Commands that take one of these words after them. */
export const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  schedule: ["install", "remove", "status"],
};

/** A command's flags as util.parseArgs takes them: a string for each in VALUE, else a boolean; and --help. */
function optionsOf(names: readonly string[]): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = { help: { type: "boolean" } };
  for (const name of names) options[name] = { type: VALUE.has(name) ? "string" : "boolean" };
  return options;
}

const VALUE_OPTIONS = optionsOf([...VALUE]);

/**
 * Why `argv` is not a valid command line for its command, or undefined when it is: an unknown
 * flag (`--dryrun`), a value missing or given to a flag that takes none, a stray word. A typo
 * must not run the command as if the flag were not there: `enrich --dryrun` wrote hints.
 */
export function badFlags(argv: readonly string[], command: string): string | undefined {
  const known = flagsOf(command);
  if (!known) return undefined;
  const options = optionsOf(known);
  let positionals: string[];
  try {
    ({ positionals } = parseNodeArgs({ args: [...argv], options, strict: true, allowPositionals: true }));
  } catch (err) {
    return refusal(err, command, options);
  }
  return strayWords(argv, command, positionals);
}

/** A missing or unknown subcommand, or a word no command takes. */
function strayWords(argv: readonly string[], command: string, positionals: readonly string[]): string | undefined {
  const words = [...positionals];
  if (words[0] === command) words.shift();
  const subs = SUBCOMMANDS[command];
  if (subs) {
    const sub = words.shift();
    if (sub === undefined) return argv.includes("--help") ? undefined : `${command} needs one of ${subs.join(", ")}`;
    if (!subs.includes(sub)) return `${command} takes ${subs.join(", ")}, not "${sub}"`;
  }
  return words.length > 0 ? `unexpected argument "${words[0]}"` : undefined;
}

/** util.parseArgs' refusal in our words, which name the command and say what to do. */
function refusal(err: unknown, command: string, options: ParseArgsOptionsConfig): string {
  const message = err instanceof Error ? err.message : String(err);
  // Its messages quote the flag as given: '--dryrun', '--limit <value>', '-x'.
  const flag = /'(--?[^'\s=<]+)/.exec(message)?.[1];
  const code = (err as { code?: unknown }).code;
  if (flag && code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `${command} has no flag ${flag}`;
  if (flag && code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    // A flag that takes a value was given none (or another flag where it goes); one that takes none was given one.
    return options[flag.replace(/^--?/, "")]?.type === "string" ? `${flag} needs a value` : `${flag} takes no value`;
  }
  return message.split("\n")[0];
}
