import { describe, expect, it } from "vitest";
import { parseArgs as nodeParseArgs } from "node:util";
import { badFlags, COMMAND_FLAGS, numberFlag, parseArgs, readCommandLine, stringFlag, VALUE } from "../../hook-bridge/src/args";

describe("the command line, parsed", () => {
  it("finds the command, its word and its flags in any order, with values given either way", () => {
    const a = parseArgs(["--vault", "/v", "schedule", "install", "--at=3:00", "--dry-run"]);
    expect([a.command, a.sub]).toEqual(["schedule", "install"]);
    expect(stringFlag(a, "vault")).toBe("/v");
    expect(stringFlag(a, "at")).toBe("3:00");
    expect(a.flags.get("dry-run")).toBe(true);
    expect(numberFlag(parseArgs(["digest", "--limit", "3"]), "limit")).toBe(3);
    expect(() => numberFlag(parseArgs(["digest", "--limit", "many"]), "limit")).toThrow('--limit takes a non-negative number, not "many"');
  });

  it('takes "-" as a value: --config - hands the settings over on stdin', () => {
    const argv = ["digest", "--config", "-", "--vault", "/v"];
    expect(badFlags(argv, "digest")).toBeUndefined();
    expect(stringFlag(parseArgs(argv), "config")).toBe("-");
  });

  it("keeps an unknown flag, so that a hook can log what it refused", () => {
    expect(parseArgs(["recall", "--max-card", "3"]).flags.has("max-card")).toBe(true);
    expect(parseArgs(["recall", "--help"]).flags.has("help")).toBe(true);
  });
});

describe("a command line refused", () => {
  it.each([
    [["enrich", "--dryrun", "--vault", "/v"], "enrich has no flag --dryrun"],
    [["index", "--vault", "/v", "--bogus-flag"], "index has no flag --bogus-flag"],
    [["lint", "-j"], "lint has no flag -j"],
    [["lint", "--vault"], "--vault needs a value"],
    [["digest", "--limit", "--vault", "/v"], "--limit needs a value"],
    [["lint", "--json=yes"], "--json takes no value"],
    [["lint", "now"], 'unexpected argument "now"'],
    [["lint", "--json", "--", "--fix"], 'unexpected argument "--fix"'],
    [["schedule", "--vault", "/v"], "schedule needs one of install, remove, status"],
    [["schedule", "start"], 'schedule takes install, remove, status, not "start"'],
    [["schedule", "status", "now"], 'unexpected argument "now"'],
  ])("%j: %s", (argv, message) => {
    expect(badFlags(argv, argv[0])).toBe(message);
  });

  it("takes every flag each command lists, --help, and a subcommand's --help without the subcommand", () => {
    for (const [command, flags] of Object.entries(COMMAND_FLAGS)) {
      const argv = [command, ...(command === "schedule" ? ["status"] : []), "--help"];
      for (const f of flags) argv.push(...(VALUE.has(f) ? [`--${f}`, "1"] : [`--${f}`]));
      expect(badFlags(argv, command), command).toBeUndefined();
    }
    expect(badFlags(["schedule", "--help"], "schedule")).toBeUndefined();
  });

  it("leaves an unknown command to the dispatcher", () => {
    expect(badFlags(["frobnicate", "--x"], "frobnicate")).toBeUndefined();
  });
});

describe("the command line read once", () => {
  // The dispatcher and the prompt hook read it once for both answers: the refusal must be the one
  // badFlags gives on its own, for lines that pass and lines that are refused (parseArgs is
  // readCommandLine's args; the tests above hold what those are).
  const lines = [
    ["recall", "--vault", "/v", "--max-cards", "3"],
    ["--vault=/v", "recall", "--deadline-ms", "500"],
    ["recall", "--vault"],
    ["recall", "--bogus", "--vault", "/v"],
    ["enrich", "--dryrun", "--vault", "/v"],
    ["lint", "--json=yes"],
    ["index", "stray", "--changed"],
    ["schedule", "install", "--dry-run"],
    ["schedule", "nope"],
    ["schedule", "--help"],
    // A subcommand left out, on a line plainLine reads.
    ["schedule"],
    ["schedule", "--vault", "/v"],
    // A line that does not open with its command, whose first word plainLine would skip.
    ["--vault", "--vault", "recall"],
    ["--max-cards", "--vault", "index"],
    ["nosuch", "--vault", "/v"],
    // Words every object has: no command, not a table's own properties.
    ["constructor"],
    ["__proto__", "--vault", "/v"],
    ["toString", "--help"],
    [],
  ];
  for (const argv of lines) {
    it(`agrees with parseArgs and badFlags on ${JSON.stringify(argv)}`, () => {
      const { args, bad } = readCommandLine(argv);
      expect(bad).toBe(badFlags(argv, args.command));
      if (argv.length > 0) expect(args.command).toBe(argv.find((a) => !a.startsWith("-") && a !== "/v"));
    });
  }
});

describe("a hook's command line, read without util.parseArgs", () => {
  // readCommandLine reads the lines hooks write by hand (plainLine); every other line goes to
  // util.parseArgs. Either way the answer must be util.parseArgs' own, strictly read.
  const lines = [
    ["recall", "--vault", "/v"],
    ["recall", "--vault", "/v", "--deadline-ms", "900", "--max-cards=3"],
    ["recall", "--vault=/v=x", "--vault", "/w"],
    ["recall", "--help"],
    ["recall", "--vault", "-"],
    ["recall", "--vault", "--help"],
    ["recall", "--vault"],
    ["recall", "--help=yes"],
    ["recall", "-h"],
    ["recall", "--", "--vault"],
    ["recall", "--vault", "/v", "stray"],
    ["recall", "--constructor", "x"],
    ["recall", "--__proto__=x"],
    ["recall", "--vault", ""],
    ["index", "--changed", "--vault", "/v", "--embed-budget-sec", "30"],
    ["schedule", "--vault", "/v"],
  ];
  for (const argv of lines) {
    it(`reads ${JSON.stringify(argv)} as util.parseArgs does`, () => {
      const options: Record<string, { type: "string" | "boolean" }> = { help: { type: "boolean" } };
      for (const name of COMMAND_FLAGS[argv[0]]) options[name] = { type: VALUE.has(name) ? "string" : "boolean" };
      let expected: Map<string, string | true> | undefined;
      try {
        const { values } = nodeParseArgs({ args: argv, options, strict: true, allowPositionals: true });
        expected = new Map(Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? v : true]));
      } catch {
        expected = undefined;
      }
      const { args, bad } = readCommandLine(argv);
      if (expected) expect([...args.flags]).toEqual([...expected]);
      else expect(bad).toBeDefined();
    });
  }
});
