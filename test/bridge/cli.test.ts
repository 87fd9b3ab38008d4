import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { copyVault, hookJson, markdownFiles, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";

// A vault path with spaces and non-ASCII characters, as people name their vaults.
let vault: string;
beforeAll(() => {
  vault = copyVault(SAMPLE_VAULT, "My Vault 記憶 ノート");
  const r = runBridge(["index", "--vault", vault]);
  expect(r.status).toBe(0);
});

const recallFor = (prompt: string, v = vault) => runBridge(["recall", "--vault", v], hookJson(prompt));
const logOf = (v: string): string => (existsSync(vaultFiles.log(v)) ? readFileSync(vaultFiles.log(v), "utf8") : "");

describe("index", () => {
  it("prints a one-line summary and writes the snapshot into the hidden folder", () => {
    const v = copyVault(SAMPLE_VAULT);
    const r = runBridge(["index", "--vault", v]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^indexed 15 cards, \d+ terms in [\d.]+ s → .*snapshot\.jsonl \([\d.]+ MB\)\n$/);
    expect(existsSync(vaultFiles.snapshot(v))).toBe(true);
  });

  it("explains a missing vault and exits non-zero", () => {
    const r = runBridge(["index", "--vault", join(tempDir(), "nope")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("vault folder not found");
  });

  it("uses the thresholds from the vault's config.json", () => {
    const v = copyVault(SAMPLE_VAULT);
    runBridge(["index", "--vault", v]);
    const before = recallFor("vite github pages 部署 base", v)
      .stdout.split("\n")
      .filter((l) => l.startsWith("- ")).length;
    writeFileSync(vaultFiles.config(v), JSON.stringify({ recall: { thresholds: { maxCards: 1 } } }));
    runBridge(["index", "--vault", v]);
    const after = recallFor("vite github pages 部署 base", v)
      .stdout.split("\n")
      .filter((l) => l.startsWith("- ")).length;
    expect(before).toBeGreaterThan(1);
    expect(after).toBe(1);
  });
});

describe("recall as the UserPromptSubmit hook", () => {
  it("prints the matching card's absolute path and description", () => {
    const r = recallFor("为什么排程跑不起来");
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`- ${join(vault, "debugging", "launchd-cron-path.md")} — launchd / cron`);
  });

  it("prints nothing for chit-chat", () => {
    for (const p of ["好的继续", "ok continue"]) expect(recallFor(p)).toMatchObject({ status: 0, stdout: "" });
  });

  it.each([
    ["empty stdin", ""],
    ["not JSON", "prompt: hi"],
    ["JSON without a prompt", '{"session_id":"x"}'],
    ["a prompt that is not a string", '{"prompt":42}'],
    ["truncated JSON", '{"prompt":"vite 部署'],
  ])("exits 0 silently on %s, and logs why", (_, input) => {
    const v = copyVault(SAMPLE_VAULT);
    runBridge(["index", "--vault", v]);
    const r = runBridge(["recall", "--vault", v], input);
    expect(r).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(logOf(v)).toMatch(/recall stdin is not a UserPromptSubmit or PostToolUseFailure hook payload/);
  });

  it.each<[string, (snapshot: string) => void, RegExp]>([
    ["missing", () => {}, /cannot open snapshot/],
    ["cut short", (p) => writeFileSync(p, readFileSync(p).subarray(0, 300)), /cut short|no end/],
    ["corrupt", (p) => writeFileSync(p, "garbage\n"), /not valid JSON/],
    ["from an older version", (p) => writeFileSync(p, readFileSync(p, "utf8").replace(/"version":\d+/, '"version":1')), /run the index command again/],
  ])("exits 0 silently with a %s snapshot, and logs why", (name, damage, reason) => {
    const v = copyVault(SAMPLE_VAULT);
    if (name !== "missing") {
      runBridge(["index", "--vault", v]);
      damage(vaultFiles.snapshot(v));
    }
    const r = recallFor("为什么排程跑不起来", v);
    expect(r).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(logOf(v)).toMatch(reason);
  });

  it("exits 0 silently without a vault", () => {
    expect(runBridge(["recall"], hookJson("vite"))).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(runBridge(["recall", "--vault", join(tempDir(), "missing")], hookJson("vite"))).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  it("gives up, silently, when past its deadline", () => {
    const r = runBridge(["recall", "--vault", vault, "--deadline-ms", "0"], hookJson("为什么排程跑不起来"));
    expect(r).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(logOf(vault)).toMatch(/gave up/);
  });

  it("starts no child process", () => {
    // A preload that makes every child_process entry point leave a mark.
    const dir = tempDir();
    const mark = join(dir, "spawned");
    const preload = join(dir, "trap.cjs");
    writeFileSync(
      preload,
      `const cp = require("node:child_process"); const fs = require("node:fs");
       for (const k of ["spawn","spawnSync","exec","execSync","execFile","execFileSync","fork"]) { const o = cp[k]; cp[k] = function (...a) { fs.writeFileSync(${JSON.stringify(mark)}, k); return o.apply(this, a); }; }`,
    );
    const r = runBridge(["recall", "--vault", vault], hookJson("为什么排程跑不起来"), { NODE_OPTIONS: `--require ${JSON.stringify(preload)}` });
    expect(r.stdout).toContain("launchd-cron-path.md");
    expect(existsSync(mark)).toBe(false);
  });

  it("never exits 2, which would erase the person's prompt", () => {
    for (const input of ["", "{", hookJson("x".repeat(100_000)), hookJson("\u0000\uffff\ud800")]) {
      expect(runBridge(["recall", "--vault", vault], input).status).toBe(0);
    }
  });
});

describe("usage", () => {
  it("lists the commands", () => {
    const r = runBridge(["help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/index .*\n.*recall/s);
  });

  it("rejects an unknown command with exit 2, a word every object has included", () => {
    expect(runBridge(["frobnicate"]).status).toBe(2);
    for (const word of ["constructor", "__proto__", "hasOwnProperty"]) {
      const r = runBridge([word]);
      expect([r.status, r.stderr.split("\n")[0]], word).toEqual([2, `unknown command "${word}"`]);
    }
  });
});

describe("a wrong setting in the vault's config.json", () => {
  it("is a warning naming the key, what it takes and what is used, and the command runs", () => {
    const v = copyVault(SAMPLE_VAULT);
    mkdirSync(join(v, ".vault-memory"), { recursive: true });
    writeFileSync(join(v, ".vault-memory", "config.json"), JSON.stringify({ lint: { unusedDays: "ninety" }, recal: {} }));
    const r = runBridge(["lint", "--vault", v], "", { XDG_CONFIG_HOME: tempDir() });
    expect(r.status).not.toBe(2);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("warning: "))).toEqual([
      'warning: lint.unusedDays: expected a non-negative number, got "ninety"; using 90',
      "warning: recal: not a setting (did you mean recall?); ignored",
    ]);
  });
});

describe("lint from a terminal", () => {
  it("points to Obsidian for fixes instead of offering one the command cannot apply", () => {
    const v = copyVault(SAMPLE_VAULT);
    writeFileSync(
      join(v, "reference", "no-tags.md"),
      "---\nname: No tags\ndescription: A card without tags\ntype: reference\n---\n# No tags\n\nSee [[hook-output-rules]].\n",
    );
    const r = runBridge(["lint", "--vault", v]);
    expect(r.stdout).toContain("reference/no-tags.md");
    expect(r.stdout).not.toContain("[fix available]");
    expect(r.stdout).toContain("[fix in Obsidian]");
    expect(r.stdout).toMatch(/\d+ of these can be fixed from Obsidian: Vault Memory: Open lint report\./);
  });
});

describe("the command line refuses what it does not take", () => {
  it("exits 2 with the command's usage on an unknown flag, writing nothing", () => {
    const v = copyVault(SAMPLE_VAULT);
    const before = markdownFiles(v).map((p) => readFileSync(join(v, p), "utf8"));
    // Once a typo ran the command as if the flag were not there: enrich wrote hints.
    const enrich = runBridge(["enrich", "--dryrun", "--vault", v]);
    expect(enrich.status).toBe(2);
    expect(enrich.stderr).toContain("enrich has no flag --dryrun");
    expect(enrich.stderr).toContain("usage: vault-memory enrich");
    const index = runBridge(["index", "--vault", v, "--bogus-flag"]);
    expect(index.status).toBe(2);
    expect(existsSync(vaultFiles.snapshot(v))).toBe(false);
    expect(markdownFiles(v).map((p) => readFileSync(join(v, p), "utf8"))).toEqual(before);
  });

  it.each([
    [["digest", "--limit"], "--limit needs a value"],
    [["lint", "--json=yes"], "--json takes no value"],
    [["lint", "now"], 'unexpected argument "now"'],
    [["lint", "--json", "--vault"], "--vault needs a value"],
  ])("refuses %j", (argv, message) => {
    const r = runBridge([...argv, "--vault", vault]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it.each([
    [["digest", "--dry-run", "--limit", "ten"], '--limit takes a non-negative number, not "ten"', "usage: vault-memory digest"],
    [["index", "--embed-budget-sec", "abc"], '--embed-budget-sec takes a non-negative number, not "abc"', "usage: vault-memory index"],
  ])("exits 2 with the usage when %j gives a number flag something else", (argv, message, usage) => {
    const r = runBridge([...argv, "--vault", vault]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(usage);
  });

  it("says which --only id waits nowhere", () => {
    const r = runBridge(["digest", "--dry-run", "--vault", vault, "--only", "nosuchid"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no conversation waits in the queue as nosuchid/);
  });

  it.each([
    "index",
    "recall",
    "queue",
    "remember",
    "remind",
    "lint",
    "digest",
    "enrich",
    "embed",
    "trust",
    "install",
    "uninstall",
    "mcp",
    "schedule",
    "sync",
    "import",
    "status",
  ])("%s --help prints its usage and does nothing", (command) => {
    const r = runBridge([command, "--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`usage: vault-memory ${command}`);
    expect(r.stdout).toContain("--vault");
  });

  it("schedule --help lists its subcommands and flags, and the command list names it", () => {
    expect(runBridge(["schedule", "install", "--help"]).stdout).toMatch(
      /install \[--at HH:MM\] \[--platform linux\|macos\|windows\|cron\] \[--dry-run\] \[--yes\].*remove \[--yes\].*status:/s,
    );
    expect(runBridge(["schedule", "--help"]).stdout).toContain("flags: --vault --config --at --platform --dry-run --yes --help");
    expect(runBridge(["help"]).stdout).toMatch(/^ {2}schedule run the nightly digest from this computer's scheduler/m);
    expect(runBridge(["digest", "--help"]).stdout).toContain("--if-due HH:MM");
  });

  it("digest --if-due refuses a time that is not HH:MM, exit 2", () => {
    const r = runBridge(["digest", "--vault", vault, "--if-due", "3am"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--if-due takes a time of day as HH:MM, not "3am"');
  });

  it("a hook with a flag it does not take does nothing, prints nothing and logs why", () => {
    const v = copyVault(SAMPLE_VAULT);
    expect(runBridge(["index", "--vault", v]).status).toBe(0);
    const r = runBridge(["recall", "--vault", v, "--max-card", "3"], hookJson("why does my nightly job fail under launchd?"));
    expect([r.status, r.stdout]).toEqual([0, ""]);
    expect(logOf(v)).toContain("recall has no flag --max-card; did nothing");
    // The next session start tells the person, once.
    const start = () => runBridge(["remind", "--vault", v], JSON.stringify({ hook_event_name: "SessionStart", source: "startup", session_id: "s1" })).stdout;
    const said = (out: string): string => (out ? ((JSON.parse(out) as { systemMessage?: string }).systemMessage ?? "") : "");
    expect(said(start())).toContain("a hook was given a command line it does not take and did nothing (recall: recall has no flag --max-card)");
    expect(said(start())).not.toContain("does not take");
  });
});

describe("where the vault is", () => {
  it("says a --vault that names a file is not a folder", () => {
    const file = join(tempDir(), "notes.md");
    writeFileSync(file, "x");
    const r = runBridge(["lint", "--vault", file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file} is a file, not a vault folder`);
  });

  it("expands ~ in the vault setting, and refuses a relative one with the reason", () => {
    const home = tempDir();
    const v = copyVault(SAMPLE_VAULT);
    const inHome = join(home, "vault");
    renameSync(v, inHome);
    const ok = runBridge(["lint"], "", { HOME: home, VAULT_MEMORY_VAULT: "~/vault" });
    // It linted the vault (a fresh copy has no snapshot yet), which it cannot find unexpanded.
    expect(ok.stdout).toContain("stale-snapshot");
    const rel = runBridge(["lint"], "", { VAULT_MEMORY_VAULT: "notes/vault" });
    expect(rel.status).toBe(2);
    expect(rel.stderr).toContain('the vault setting "notes/vault" is a relative path');
  });
});
