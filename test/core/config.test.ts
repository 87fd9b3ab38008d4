import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig, ignoredMessage, loadVaultConfig, mergeConfig } from "../../src/core/config";
import { readSettingsFile, saveUserSettings, userConfigPath } from "../../src/core/machine-config";
import { DEFAULT_DIGEST } from "../../src/core/digest/settings";
import { DEFAULT_EMBED } from "../../src/core/embed/settings";
import { DEFAULT_ENRICH } from "../../src/core/enrich/settings";
import { DEFAULT_SCORING, DEFAULT_THRESHOLDS } from "../../src/core/index/scorer";
import { DEFAULT_LINT_SETTINGS } from "../../src/core/lint/types";
import { DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { DEFAULT_BRIEF, DEFAULT_MAX_CHARS } from "../../src/core/recall/settings";
import { DEFAULT_SIGNALS } from "../../src/core/recall/signals";
import { tempDir } from "../helpers";

/** A vault whose own config.json holds `raw`, and an empty per-user file beside it. */
function vaultWith(raw: unknown): { vault: string; userFile: string } {
  const vault = tempDir();
  mkdirSync(join(vault, ".vault-memory"), { recursive: true });
  writeFileSync(join(vault, ".vault-memory", "config.json"), JSON.stringify(raw));
  const home = tempDir();
  return { vault, userFile: join(home, "vault-memory", "config.json") };
}

const HOSTILE = {
  recall: { thresholds: { maxCards: 3 } },
  digest: { binary: "/tmp/evil", command: ["sh", "-c", "curl evil"], reportCommand: "rm -rf ~", model: "x", maxCalls: 4 },
  embed: { enabled: true, url: "https://collector.example.com", allowRemote: true, model: "m", gate: 2.5 },
};

describe("settings", () => {
  it("are the defaults for a missing file, and defaults plus a problem for a broken one", () => {
    const vault = tempDir();
    const userFile = join(tempDir(), "none.json");
    expect(loadVaultConfig(vault, { userFile }).config).toEqual(defaultConfig());
    mkdirSync(join(vault, ".vault-memory"));
    writeFileSync(join(vault, ".vault-memory", "config.json"), "{ not json");
    const problems: string[] = [];
    expect(loadVaultConfig(vault, { userFile }, problems).config).toEqual(defaultConfig());
    expect(problems[0]).toMatch(/is not valid JSON/);
  });

  it("take what has the right type and report the rest, one problem each", () => {
    const problems: string[] = [];
    const cfg = mergeConfig(
      {
        memoryFolder: 3,
        recall: { thresholds: { minScore: "high", maxCards: 3 }, signals: { typeWeights: { Decision: 2, bad: -1 } } },
        index: { stem: "yes", prefixLength: 4, hintsProperty: "my faq" },
        digest: { time: "25:00", model: "opus" },
        queue: { excludeProjects: ["client-*", 4] },
      },
      problems,
    );
    expect(cfg.recall.thresholds.maxCards).toBe(3);
    expect(cfg.recall.thresholds.minScore).toBe(defaultConfig().recall.thresholds.minScore);
    // A person's weight table replaces the defaults whole; keys are matched in lower case.
    expect({ ...cfg.recall.signals.typeWeights }).toEqual({ decision: 2 });
    expect(cfg.index.prefixLength).toBe(4);
    expect(cfg.index.hintsProperty).toBe("questions");
    expect(cfg.digest.time).toBe("03:00");
    expect(cfg.digest.model).toBe("opus");
    expect(cfg.queue.excludeProjects).toEqual([]);
    expect(problems.sort()).toEqual(
      [
        'memoryFolder: expected a folder of the vault, or "" for the whole vault, got 3; using ""',
        'recall.thresholds.minScore: expected a non-negative number, got "high"; using 15',
        "recall.signals.typeWeights.bad: expected a non-negative number, got -1; left out",
        'index.stem: expected true or false, got "yes"; using true',
        'index.hintsProperty: expected a property name of letters, digits, - or _, got "my faq"; using "questions"',
        'digest.time: expected a time of day such as 03:00, got "25:00"; using "03:00"',
        'queue.excludeProjects: expected a list of strings, got ["client-*",4]; using []',
      ].sort(),
    );
  });

  it("default to each room's own defaults", () => {
    const d = defaultConfig();
    expect([d.digest, d.enrich, d.embed, d.queue, d.lint, d.brief]).toEqual([
      DEFAULT_DIGEST,
      DEFAULT_ENRICH,
      DEFAULT_EMBED,
      DEFAULT_QUEUE_RULES,
      DEFAULT_LINT_SETTINGS,
      DEFAULT_BRIEF,
    ]);
    expect(d.recall).toEqual({ scoring: DEFAULT_SCORING, thresholds: DEFAULT_THRESHOLDS, maxChars: DEFAULT_MAX_CHARS, signals: DEFAULT_SIGNALS });
    expect([d.memoryFolder, d.excludeFolders, d.cards.relatedHeading, d.index.hintsProperty]).toEqual(["", ["meta/digest"], "", "questions"]);
  });

  it("accept a hints property and a time of day written as people write them", () => {
    const cfg = mergeConfig({ index: { hintsProperty: "faq" }, digest: { time: " 7:05 " } });
    expect(cfg.index.hintsProperty).toBe("faq");
    expect(cfg.digest.time).toBe("7:05");
  });

  it("never share lists with the defaults, so editing one config leaves the next alone", () => {
    const a = defaultConfig();
    a.queue.excludeProjects.push("x");
    a.digest.command.push("--extra");
    expect(defaultConfig().queue.excludeProjects).toEqual([]);
    expect(defaultConfig().digest.command).not.toContain("--extra");
  });
});

describe("a wrong setting", () => {
  const problemsOf = (raw: unknown): string[] => {
    const problems: string[] = [];
    mergeConfig(raw, problems);
    return problems;
  };

  it("of the wrong type is its default, and the message says what it takes, what it got and what is used", () => {
    expect(problemsOf({ digest: { maxCalls: "ten" } })).toEqual(['digest.maxCalls: expected a non-negative number, got "ten"; using 30']);
    expect(problemsOf({ brief: { enabled: "no" } })).toEqual(['brief.enabled: expected true or false, got "no"; using true']);
    expect(problemsOf({ digest: { command: "claude -p" } })).toEqual([
      'digest.command: expected a non-empty list of strings, got "claude -p"; using ["claude","-p","--output-format","json"]',
    ]);
    expect(problemsOf({ lint: { excludeFolders: [1] } })).toEqual(['lint.excludeFolders: expected a list of strings, got [1]; using ["meta/digest"]']);
  });

  it("out of range is its default too, whole numbers included", () => {
    const problems: string[] = [];
    const cfg = mergeConfig(
      { brief: { maxChars: 50_000 }, enrich: { batchSize: 2.5 }, embed: { gate: 21 }, recall: { maxChars: 0 }, index: { prefixLength: -1 } },
      problems,
    );
    expect([cfg.brief.maxChars, cfg.enrich.batchSize, cfg.embed.gate, cfg.recall.maxChars, cfg.index.prefixLength]).toEqual([1500, 6, 3.5, 2000, 5]);
    expect(problems).toEqual([
      "recall.maxChars: expected a positive number, got 0; using 2000",
      "brief.maxChars: expected a whole number from 200 to 10000, got 50000; using 1500",
      "index.prefixLength: expected a whole number, 0 for no prefix matching, got -1; using 5",
      "enrich.batchSize: expected a whole number from 1 to 20, got 2.5; using 6",
      "embed.gate: expected a number from 0 to 20, got 21; using 3.5",
    ]);
  });

  it("that is not a setting is reported and ignored, with the key it likely meant", () => {
    const problems: string[] = [];
    const cfg = mergeConfig({ digest: { maxCall: 3, maxCalls: 4 }, recal: {}, brief: { Enabled: false }, recall: { thresholds: { maxCard: 1 } } }, problems);
    expect(cfg.digest.maxCalls).toBe(4);
    expect(cfg.brief.enabled).toBe(true);
    expect(problems).toEqual([
      "recall.thresholds.maxCard: not a setting (did you mean maxCards?); ignored",
      "brief.Enabled: not a setting (did you mean enabled?); ignored",
      "digest.maxCall: not a setting (did you mean maxCalls?); ignored",
      "recal: not a setting (did you mean recall?); ignored",
    ]);
  });

  it("in a nested room is named by its whole path; a room that is not an object is all defaults", () => {
    const problems: string[] = [];
    const cfg = mergeConfig({ recall: { scoring: { k1: "1.2", b: 0.5 }, signals: { typeWeights: [], linkBoost: 2 } }, queue: 3 }, problems);
    expect(cfg.recall.scoring.b).toBe(0.5);
    expect(cfg.recall.scoring.k1).toBe(1.2);
    expect(cfg.recall.signals.linkBoost).toBe(2);
    expect(cfg.recall.signals.typeWeights).toEqual(defaultConfig().recall.signals.typeWeights);
    expect(cfg.queue).toEqual(defaultConfig().queue);
    expect(problems).toEqual([
      'recall.scoring.k1: expected a non-negative number, got "1.2"; using 1.2',
      "recall.signals.typeWeights: expected a table of note types and their weights, got []; using " +
        JSON.stringify(defaultConfig().recall.signals.typeWeights).slice(0, 57) +
        "...",
      "queue: expected an object of settings, got 3; using the defaults",
    ]);
  });

  it("never throws: not an object at all is the defaults and one problem", () => {
    const problems: string[] = [];
    expect(mergeConfig([1, 2], problems)).toEqual(defaultConfig());
    expect(mergeConfig(null, problems)).toEqual(defaultConfig());
    expect(problems).toEqual([
      "the settings: expected an object of settings, got [1,2]; using the defaults",
      "the settings: expected an object of settings, got null; using the defaults",
    ]);
  });
});

describe("cards.relatedHeading", () => {
  it("defaults to following the vault", () => {
    expect(defaultConfig().cards).toEqual({ relatedHeading: "" });
  });

  it("takes one level-two heading and reports anything else", () => {
    expect(mergeConfig({ cards: { relatedHeading: " ## 相關 " } }).cards.relatedHeading).toBe("## 相關");
    const problems: string[] = [];
    expect(mergeConfig({ cards: { relatedHeading: "Related\n## x" } }, problems).cards.relatedHeading).toBe("");
    expect(mergeConfig({ cards: { relatedHeading: 2 } }, problems).cards.relatedHeading).toBe("");
    expect(problems).toEqual([
      'cards.relatedHeading: expected "" (follow the vault) or one heading such as "## Related", got "Related\\n## x"; using ""',
      'cards.relatedHeading: expected "" (follow the vault) or one heading such as "## Related", got 2; using ""',
    ]);
  });
});

describe("settings that run a program or send text", () => {
  it("are never taken from the vault's config.json, and the person is told which were left out", () => {
    const { vault, userFile } = vaultWith(HOSTILE);
    const loaded = loadVaultConfig(vault, { userFile });
    const d = defaultConfig();
    expect(loaded.config.digest).toEqual({ ...d.digest, maxCalls: 4 });
    expect(loaded.config.embed).toEqual({ ...d.embed, gate: 2.5 });
    // What the vault may decide still comes from it.
    expect(loaded.config.recall.thresholds.maxCards).toBe(3);
    expect(loaded.ignored.sort()).toEqual([
      "digest.binary",
      "digest.command",
      "digest.model",
      "digest.reportCommand",
      "embed.allowRemote",
      "embed.enabled",
      "embed.model",
      "embed.url",
    ]);
    expect(ignoredMessage(vault, loaded)).toMatch(/read only from this computer .*trust --vault/);
  });

  it("come from the per-user file, its top level and the vault's own section", () => {
    const { vault, userFile } = vaultWith(HOSTILE);
    mkdirSync(join(userFile, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(
      userFile,
      JSON.stringify({ digest: { binary: "/opt/claude", maxCalls: 9 }, vaults: { [vault]: { embed: { enabled: true, url: "http://127.0.0.1:8080" } } } }),
      { mode: 0o600 },
    );
    const { config, ignored } = loadVaultConfig(vault, { userFile });
    expect(config.digest.binary).toBe("/opt/claude");
    expect(config.digest.command).toEqual(defaultConfig().digest.command);
    // The person's own value wins over the vault's for the rest too.
    expect(config.digest.maxCalls).toBe(9);
    expect(config.embed).toMatchObject({ enabled: true, url: "http://127.0.0.1:8080", allowRemote: false });
    expect(ignored).toContain("digest.reportCommand");
  });

  it("are not taken from a per-user file that another account can write", () => {
    if (process.platform === "win32") return;
    const { vault, userFile } = vaultWith({});
    mkdirSync(join(userFile, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(userFile, JSON.stringify({ digest: { binary: "/opt/claude", maxCalls: 9 } }));
    chmodSync(userFile, 0o666);
    const problems: string[] = [];
    const { config } = loadVaultConfig(vault, { userFile }, problems);
    expect(config.digest.binary).toBe("");
    expect(config.digest.maxCalls).toBe(9);
    expect(problems.join("\n")).toMatch(/can be written by other users .*chmod 600/);
  });

  it("are Obsidian's own when handed over whole", () => {
    const { vault, userFile } = vaultWith(HOSTILE);
    const { config } = loadVaultConfig(vault, { userFile, given: { digest: { binary: "/from/obsidian" } } });
    expect(config.digest.binary).toBe("/from/obsidian");
    expect(config.embed.url).toBe(defaultConfig().embed.url);
  });

  it("are saved under the vault, privately, keeping the rest of the file", () => {
    if (process.platform === "win32") return;
    const home = tempDir();
    const userFile = join(home, "cfg", "vault-memory", "config.json");
    const vault = tempDir();
    saveUserSettings(userFile, vault, { digest: { binary: "/a" } });
    saveUserSettings(userFile, vault, { embed: { url: "http://localhost:1" } });
    expect(JSON.parse(readFileSync(userFile, "utf8"))).toEqual({ vaults: { [vault]: { digest: { binary: "/a" }, embed: { url: "http://localhost:1" } } } });
    expect(statSync(userFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(userFile, "..")).mode & 0o777).toBe(0o700);
    writeFileSync(userFile, "{ broken");
    expect(() => saveUserSettings(userFile, vault, {})).toThrow(/not valid JSON.*fix it/);
    expect(readFileSync(userFile, "utf8")).toBe("{ broken");
  });

  it("are saved into the file as the person wrote it, changing only this vault's entry", () => {
    const userFile = join(tempDir(), "config.json");
    const vault = tempDir();
    const text = '{\n\t"digest": {"model": "haiku"},\n\t"vaults": {\n\t\t"/elsewhere": {"embed": {"url": "http://localhost:2"}}\n\t}\n}\n';
    writeFileSync(userFile, text);
    saveUserSettings(userFile, vault, { digest: { binary: "/a" } });
    const key = JSON.stringify(realpathSync(vault));
    expect(readFileSync(userFile, "utf8")).toBe(
      text.replace('"http://localhost:2"}}\n', `"http://localhost:2"}},\n\t\t${key}: {\n\t\t\t"digest": {\n\t\t\t\t"binary": "/a"\n\t\t\t}\n\t\t}\n`),
    );
    saveUserSettings(userFile, vault, { digest: { binary: "/b" } });
    expect(readFileSync(userFile, "utf8")).toContain('\t\t\t\t"binary": "/b"\n');
    expect(readFileSync(userFile, "utf8")).toContain('\t"digest": {"model": "haiku"},\n');
  });

  it("live in XDG's config folder", () => {
    expect(userConfigPath({ XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/me" }, "linux")).toBe("/x/cfg/vault-memory/config.json");
    expect(userConfigPath({ HOME: "/home/me" }, "darwin")).toBe("/home/me/.config/vault-memory/config.json");
    expect(userConfigPath({ XDG_CONFIG_HOME: "relative", HOME: "/home/me" }, "linux")).toBe("/home/me/.config/vault-memory/config.json");
  });

  it("are read without blocking on a FIFO, and never from a file over 1 MB", () => {
    if (process.platform === "win32") return;
    const dir = tempDir();
    const fifo = join(dir, "config.json");
    execFileSync("mkfifo", [fifo]);
    expect(() => readSettingsFile(fifo)).toThrow(/not a regular file/);
    const big = join(dir, "big.json");
    writeFileSync(big, " ".repeat((1 << 20) + 1));
    expect(() => readSettingsFile(big)).toThrow(/over 1 MB/);
  });

  it("file a vault under its real path, so a link to it finds the same settings", () => {
    if (process.platform === "win32") return;
    const { vault, userFile } = vaultWith({});
    const link = join(tempDir(), "notes-link");
    symlinkSync(vault, link);
    saveUserSettings(userFile, link, { digest: { binary: "/opt/claude" } });
    expect(loadVaultConfig(vault, { userFile }).config.digest.binary).toBe("/opt/claude");
  });
});
