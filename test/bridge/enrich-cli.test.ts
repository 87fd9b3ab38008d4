/** `enrich` through the real bridge, with the stand-in LLM command answering from recorded hints. */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../src/core/card/card";
import { hintsOf, hintState } from "../../src/core/card/hints";
import { vaultFiles } from "../../src/core/paths";
import { CORPUS, HAS_CORPUS, NO_CORPUS, ROOT, SAMPLE_VAULT, copyVault, markdownFiles, runBridge, tempDir } from "../helpers";

const STAND_IN = join(ROOT, "eval", "hints-llm.mjs");
const HINTS = resolve(CORPUS, "..", "obsidian-help-hints", "en.jsonl");

/**
 * A vault whose LLM binary is the stand-in, under the digest's default `claude -p --output-format
 * json` command: the binary in this machine's settings (a file per vault, named by --config), the
 * rest in the vault's config.json.
 */
function setUp(src: string, extra: Record<string, unknown> = {}) {
  const vault = copyVault(src);
  mkdirSync(vaultFiles.dir(vault), { recursive: true });
  writeFileSync(vaultFiles.config(vault), JSON.stringify(extra));
  machine(vault, STAND_IN);
  const log = join(tempDir(), "calls.log");
  return { vault, log };
}

const userFiles = new Map<string, string>();
/** This machine's settings for `vault`: the LLM binary. */
function machine(vault: string, binary: string): void {
  const file = join(tempDir(), "config.json");
  writeFileSync(file, JSON.stringify({ digest: { binary } }), { mode: 0o600 });
  userFiles.set(vault, file);
}

const calls = (log: string): string[][] =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string[])
    : [];
const snapshotOf = (vault: string) => Object.fromEntries(markdownFiles(vault).map((p) => [p, readFileSync(join(vault, p), "utf8")]));
const enrich = (vault: string, env: NodeJS.ProcessEnv, ...more: string[]) =>
  runBridge(["enrich", "--vault", vault, "--config", userFiles.get(vault) ?? "", ...more], "", env);

describe.skipIf(!HAS_CORPUS)(HAS_CORPUS ? "enrich on Obsidian's English help vault" : `enrich on Obsidian's English help vault (${NO_CORPUS})`, () => {
  it("gives every note its six recorded questions, changes nothing else, and a rerun writes nothing", () => {
    const { vault, log } = setUp(join(CORPUS, "en"));
    const before = snapshotOf(vault);
    const env = { VAULT_MEMORY_HINTS_FILE: HINTS, HINTS_LLM_LOG: log };
    const r = enrich(vault, env);
    expect(r.status, r.stderr).toBe(0);
    const recorded = readFileSync(HINTS, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { path: string; questions: string[] });
    expect(recorded.length).toBeGreaterThan(150);
    for (const { path, questions } of recorded) {
      const text = readFileSync(join(vault, path), "utf8");
      const card = parseCard(path, text);
      expect(hintsOf(card, "questions"), path).toEqual(questions);
      expect(hintState(card, "questions"), path).toBe("current");
      // Body and every other property exactly as they were.
      const old = parseCard(path, before[path]);
      expect(card.body, path).toBe(old.body);
      expect({ ...card.frontmatter, questions: undefined, "questions-for": undefined }, path).toEqual({
        ...old.frontmatter,
        questions: undefined,
        "questions-for": undefined,
      });
    }
    // Six cards a call, within the default budget of 30 calls.
    expect(calls(log).length).toBe(Math.ceil(Object.keys(before).length / 6));
    expect(r.stdout).toMatch(new RegExp(`enriched ${recorded.length} cards in \\d+ calls; 0 skipped; 0 cards left to enrich`));

    const after = snapshotOf(vault);
    const again = enrich(vault, env);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("enriched 0 cards in 0 calls; 0 skipped; 0 cards left to enrich");
    expect(calls(log).length).toBe(Math.ceil(Object.keys(before).length / 6));
    expect(snapshotOf(vault)).toEqual(after);
  });
});

describe("enrich on the sample vault", () => {
  /** The stand-in's answers for the sample vault: three questions per card, named after it. */
  function answers(vault: string): string {
    const file = join(tempDir(), "sample.jsonl");
    const cards = markdownFiles(vault).filter((p) => p !== "MEMORY.md" && p !== "meta/synonyms.md");
    writeFileSync(
      file,
      cards.map((path) => JSON.stringify({ path, questions: [`what is in ${path}?`, `when do I need ${path}?`, "null: [x]"] })).join("\n") + "\n",
    );
    return file;
  }

  it("stops on quota after two batches with those cards done, resumes on the next run, then has nothing to do", () => {
    const { vault, log } = setUp(SAMPLE_VAULT, { enrich: { batchSize: 3 } });
    const env = { VAULT_MEMORY_HINTS_FILE: answers(vault), HINTS_LLM_LOG: log, HINTS_LLM_FAIL_AFTER: "2" };
    const r = enrich(vault, env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/enrich stopped: stopped: quota/);
    expect(r.stdout).toMatch(/enriched 6 cards in 3 calls; 3 skipped; \d+ cards left to enrich/);
    const done = calls(log).flat();
    expect(done).toHaveLength(6);
    for (const p of done) expect(hintState(parseCard(p, readFileSync(join(vault, p), "utf8")), "questions")).toBe("current");

    const next = enrich(vault, { ...env, HINTS_LLM_FAIL_AFTER: "" });
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/0 cards left to enrich/);
    const asked = calls(log).slice(2).flat();
    expect(asked.filter((p) => done.includes(p))).toEqual([]);
    const card = readFileSync(join(vault, "debugging", "launchd-cron-path.md"), "utf8");
    expect(card).toContain(
      'questions:\n  - what is in debugging/launchd-cron-path.md?\n  - when do I need debugging/launchd-cron-path.md?\n  - "null: [x]"\nquestions-for: ',
    );
    expect(readFileSync(join(vault, "MEMORY.md"), "utf8")).toBe(readFileSync(join(SAMPLE_VAULT, "MEMORY.md"), "utf8"));

    const n = calls(log).length;
    const files = snapshotOf(vault);
    const last = enrich(vault, { ...env, HINTS_LLM_FAIL_AFTER: "" });
    expect(last.stdout).toContain("enriched 0 cards in 0 calls");
    expect(calls(log)).toHaveLength(n);
    expect(snapshotOf(vault)).toEqual(files);
  });

  it("prints what it would write on --dry-run and writes nothing; keeps to --limit", () => {
    const { vault, log } = setUp(SAMPLE_VAULT);
    const env = { VAULT_MEMORY_HINTS_FILE: answers(vault), HINTS_LLM_LOG: log };
    const files = snapshotOf(vault);
    const dry = enrich(vault, env, "--dry-run", "--limit", "2");
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/would write debugging\/launchd-cron-path\.md: what is in debugging\/launchd-cron-path\.md\? \| /);
    expect(dry.stdout).toMatch(/dry run, nothing written: would have enriched 2 cards in 1 call/);
    expect(snapshotOf(vault)).toEqual(files);
    expect(existsSync(join(vaultFiles.dir(vault), "digest.lock"))).toBe(false);
  });

  it("exits 1 without asking when a digest holds the lock, or the binary is missing", () => {
    const { vault, log } = setUp(SAMPLE_VAULT);
    const env = { VAULT_MEMORY_HINTS_FILE: answers(vault), HINTS_LLM_LOG: log };
    writeFileSync(join(vaultFiles.dir(vault), "digest.lock"), JSON.stringify({ pid: 99999, host: "other-machine", startedAt: new Date().toISOString() }));
    const locked = enrich(vault, env);
    expect(locked.status).toBe(1);
    expect(locked.stderr).toMatch(/enrich stopped: a digest or another enrich is running \(other-machine/);
    expect(locked.stdout).toMatch(/enriched 0 cards in 0 calls; 0 skipped; 1\d cards left to enrich/);
    expect(calls(log)).toEqual([]);

    const other = setUp(SAMPLE_VAULT);
    machine(other.vault, "/nonexistent/llm");
    const missing = enrich(other.vault, env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('the LLM binary "/nonexistent/llm" set in the digest settings does not exist');
  });
});

describe("enrich's hints for work on a vault of several projects", () => {
  it("writes the tasks and commands a card matters for, and the prompt hook then finds the card by an instruction that never names it", () => {
    const { vault, log } = setUp(join(ROOT, "eval", "vaults", "en-work"));
    // The vault's own questions out, as cards the digest wrote have none until enrich runs.
    for (const path of markdownFiles(vault)) {
      const file = join(vault, path);
      writeFileSync(file, readFileSync(file, "utf8").replace(/^questions:\n(?:[ \t]+- .*\n)*/m, ""));
    }
    const ask = (prompt: string) =>
      runBridge(["recall", "--vault", vault], JSON.stringify({ prompt, cwd: "/home/dev/src/billing-api", hook_event_name: "UserPromptSubmit" }));
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const task = "add a library to parse the CSV in the ETL";
    const before = ask(task);
    const r = enrich(vault, { VAULT_MEMORY_HINTS_FILE: join(ROOT, "eval", "hints", "work-en.jsonl"), HINTS_LLM_LOG: log });
    expect(r.status, r.stderr).toBe(0);
    const path = "feedback/ask-before-adding-a-dependency.md";
    const card = parseCard(path, readFileSync(join(vault, path), "utf8"));
    // Tasks during which the card matters, and the exact command it is about.
    expect(hintsOf(card, "questions")).toEqual(expect.arrayContaining([task, "pnpm add dayjs for date formatting"]));
    expect(hintState(card, "questions")).toBe("current");
    expect(runBridge(["index", "--vault", vault]).status).toBe(0);
    const after = ask(task);
    expect(before.stdout).not.toContain(path);
    expect(after.stdout.split("\n")[2]).toContain(join(vault, path));
  });
});
