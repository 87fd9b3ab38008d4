/** Command-line flags: `--name value`, `--flag`, and the command word. */

export interface Args {
  command: string;
  flags: Map<string, string | true>;
}

export function parseArgs(argv: readonly string[]): Args {
  const flags = new Map<string, string | true>();
  let command = "";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) flags.set(a.slice(2), argv[++i]);
      else flags.set(a.slice(2), true);
    } else if (command === "") command = a;
  }
  return { command, flags };
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
