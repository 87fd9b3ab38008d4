/** Command-line flags: `--name value`, `--flag`, and the command word. */

export interface Args {
  command: string;
  /** The word after the command, for commands that have subcommands (`schedule install`). */
  sub?: string;
  flags: Map<string, string | true>;
}

export function parseArgs(argv: readonly string[]): Args {
  const flags = new Map<string, string | true>();
  let command = "";
  let sub: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) flags.set(a.slice(2), argv[++i]);
      else flags.set(a.slice(2), true);
    } else if (command === "") command = a;
    else sub ??= a;
  }
  return { command, sub, flags };
}

export function stringFlag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function numberFlag(args: Args, name: string): number | undefined {
  const v = stringFlag(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} takes a non-negative number, not "${v}"`);
  return n;
}

/** Flags that take a value, and flags that stand alone; every command also takes --help. */
const VALUE = new Set(["vault", "config", "max-cards", "min-score", "max-chars", "deadline-ms", "limit", "only", "settings", "embed-budget-sec", "if-due", "at", "platform"]);

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
};

/** Commands that take one of these words after them. */
export const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  schedule: ["install", "remove", "status"],
};

/**
 * Why `argv` is not a valid command line for its command, or undefined when it is: an unknown
 * flag (`--dryrun`), a value missing or given to a flag that takes none, a stray word. A typo
 * must not run the command as if the flag were not there: `enrich --dryrun` wrote hints.
 */
export function badFlags(argv: readonly string[], command: string): string | undefined {
  const known = COMMAND_FLAGS[command];
  if (!known) return undefined;
  let seenCommand = false;
  let seenSub = false;
  const subs = SUBCOMMANDS[command];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) {
      if (!seenCommand && a === command) {
        seenCommand = true;
        continue;
      }
      if (subs && seenCommand && !seenSub) {
        if (!subs.includes(a)) return `${command} takes ${subs.join(", ")}, not "${a}"`;
        seenSub = true;
        continue;
      }
      return `unexpected argument "${a}"`;
    }
    const eq = a.indexOf("=");
    const name = a.slice(2, eq > 0 ? eq : undefined);
    if (name === "help") continue;
    if (!known.includes(name)) return `${command} has no flag --${name}`;
    const hasValue = eq > 0 || (i + 1 < argv.length && !argv[i + 1].startsWith("--"));
    if (VALUE.has(name)) {
      if (!hasValue) return `--${name} needs a value`;
      if (eq < 0) i++;
    } else if (eq > 0) return `--${name} takes no value`;
  }
  if (subs && !seenSub && !argv.includes("--help")) return `${command} needs one of ${subs.join(", ")}`;
  return undefined;
}
