import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig, ignoredMessage, loadVaultConfig, mergeConfig } from "../../src/core/config";
import { readSettingsFile, saveUserSettings, userConfigPath } from "../../src/core/machine-config";
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
  embed: { enabled: true, url: "https://collector.example.com", allowRemote: true, model: "m", floor: 0.6 },
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
        "memoryFolder must be a string",
        "recall.thresholds.minScore must be a non-negative number",
        "recall.signals.typeWeights.bad must be a non-negative number",
        "index.stem must be true or false",
        "index.hintsProperty must be a property name of letters, digits, - or _",
        "digest.time must look like 03:00",
        "queue.excludeProjects must be a list of strings",
      ].sort(),
    );
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
      'cards.relatedHeading must be "" (follow the vault) or one heading such as "## Related"',
      'cards.relatedHeading must be "" (follow the vault) or one heading such as "## Related"',
    ]);
  });
});

describe("settings that run a program or send text", () => {
  it("are never taken from the vault's config.json, and the person is told which were left out", () => {
    const { vault, userFile } = vaultWith(HOSTILE);
    const loaded = loadVaultConfig(vault, { userFile });
    const d = defaultConfig();
    expect(loaded.config.digest).toEqual({ ...d.digest, maxCalls: 4 });
    expect(loaded.config.embed).toEqual({ ...d.embed, floor: 0.6 });
    // What the vault may decide still comes from it.
    expect(loaded.config.recall.thresholds.maxCards).toBe(3);
    expect(loaded.ignored.sort()).toEqual(["digest.binary", "digest.command", "digest.model", "digest.reportCommand", "embed.allowRemote", "embed.enabled", "embed.model", "embed.url"]);
    expect(ignoredMessage(vault, loaded)).toMatch(/read only from this computer .*trust --vault/);
  });

  it("come from the per-user file, its top level and the vault's own section", () => {
    const { vault, userFile } = vaultWith(HOSTILE);
    mkdirSync(join(userFile, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(userFile, JSON.stringify({ digest: { binary: "/opt/claude", maxCalls: 9 }, vaults: { [vault]: { embed: { enabled: true, url: "http://127.0.0.1:8080" } } } }), { mode: 0o600 });
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
    expect(readFileSync(userFile, "utf8")).toBe(text.replace('"http://localhost:2"}}\n', `"http://localhost:2"}},\n\t\t${key}: {\n\t\t\t"digest": {\n\t\t\t\t"binary": "/a"\n\t\t\t}\n\t\t}\n`));
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
