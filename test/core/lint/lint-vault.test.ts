import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { lintVault, readNotesHere, type ReadNotes } from "../../../src/core/lint/lint";
import { scanForSecrets } from "../../../src/core/lint/secrets";
import { CORPUS, copyVault, HAS_CORPUS, NO_CORPUS, runBridge, tempDir } from "../../helpers";

const SETTINGS = defaultConfig().lint;

/** A vault past the size where the bridge scans for secrets on a second thread, with secrets here and there. */
function largeVault(): string {
  const vault = join(tempDir(), "large");
  const secrets = ["DB_PASSWORD=hunter2hunter2", "export GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "Authorization: Basic dXNlcjpwYXNzd29yZA=="];
  for (let i = 0; i < 1300; i++) {
    const folder = ["reference", "debugging", "meta/digest", "projects/x"][i % 4];
    mkdirSync(join(vault, folder), { recursive: true });
    const secret = i % 97 === 0 ? `\nline\n${secrets[i % secrets.length]}\n` : "";
    const name = i % 50 === 0 ? "shared" : `n${i}`;
    writeFileSync(join(vault, folder, `${name}.md`), `---\nname: n${i}\ntags: [t]\n---\n# N${i}\n\nSee [[n${i + 1}]] and [[shared]].${secret}\n`);
  }
  writeFileSync(join(vault, "MEMORY.md"), "- [[n1]]\n");
  return vault;
}

describe("lintVault with a source of notes", () => {
  const vault = largeVault();
  const inThread = lintVault(vault, SETTINGS, 0);

  it("gives the same findings when the source scanned some notes only", () => {
    const partial: ReadNotes = (files) => ({
      ...readNotesHere(files),
      secretScans: () => new Map(files.filter((_, i) => i % 3 === 0).map((f) => [f.path, scanForSecrets(readFileSync(f.abs, "utf8"))])),
    });
    expect(lintVault(vault, SETTINGS, 0, partial)).toEqual(inThread);
    expect(inThread.filter((f) => f.rule === "secret-in-card").length).toBeGreaterThan(5);
  });

  it("takes the texts it is given, and what the source says over scanning again", () => {
    const lying: ReadNotes = (files) => ({
      text: (i) => (files[i].path === "reference/n8.md" ? "no frontmatter, no link" : readFileSync(files[i].abs, "utf8")),
      secretScans: () => new Map([["reference/n4.md", { kinds: ["made-up"], line: 3 }]]),
    });
    const found = lintVault(vault, SETTINGS, 0, lying);
    expect(found.filter((f) => f.rule === "secret-in-card" && f.file === "reference/n4.md").map((f) => [f.line, f.message])).toEqual([
      [3, "looks like a secret (made-up): remove it or wrap it in <private>"],
    ]);
    expect(found.filter((f) => f.file === "reference/n8.md").map((f) => f.rule)).toContain("missing-frontmatter");
  });

  it("gives from the CLI, which reads and scans on a worker thread, what it gives in one thread", () => {
    const r = runBridge(["lint", "--vault", vault, "--json"]);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(lintVault(vault, SETTINGS))));
  });
});

describe.skipIf(!HAS_CORPUS)(`lint of every help vault at once${HAS_CORPUS ? "" : ` (${NO_CORPUS})`}`, () => {
  it("finds from the CLI what lintVault finds in one thread", () => {
    const vault = copyVault(CORPUS, "all-help");
    const r = runBridge(["lint", "--vault", vault, "--json"]);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(lintVault(vault, SETTINGS))));
  });
});

describe("lint's scope", () => {
  it("reports on the memory folder's cards and the root MEMORY.md, and still resolves links to the rest", () => {
    const vault = join(tempDir(), "scoped");
    mkdirSync(join(vault, "journal"), { recursive: true });
    mkdirSync(join(vault, "claude", "reference"), { recursive: true });
    writeFileSync(join(vault, "journal", "monday.md"), "---\nmood: : tired\n---\nFrontmatter no one can read: not a card.\n");
    writeFileSync(join(vault, "MEMORY.md"), "# Memory\n" + "- line\n".repeat(250));
    writeFileSync(
      join(vault, "claude", "reference", "card.md"),
      "---\nname: Card\ndescription: d\ntype: reference\ntags: [t]\n---\nSee [[monday]] and [[not written]].\n",
    );
    const config = { ...defaultConfig(), memoryFolder: "claude" };
    // The whole vault, by default: the journal note is reported.
    const whole = JSON.parse(runBridge(["lint", "--vault", vault, "--json"]).stdout) as { file: string }[];
    expect(whole.some((f) => f.file === "journal/monday.md")).toBe(true);
    mkdirSync(join(vault, ".vault-memory"), { recursive: true });
    writeFileSync(join(vault, ".vault-memory", "config.json"), JSON.stringify({ memoryFolder: "claude" }));
    const scoped = JSON.parse(runBridge(["lint", "--vault", vault, "--json"]).stdout) as { file: string; rule: string }[];
    expect(scoped.some((f) => f.file.startsWith("journal/"))).toBe(false);
    expect(scoped.map((f) => f.rule)).toEqual(expect.arrayContaining(["memory-index-too-long", "missing-link-target"]));
    // [[monday]] resolves to the journal note: the card is no orphan.
    expect(scoped.filter((f) => f.rule === "orphan")).toEqual([]);
    expect(
      lintVault(vault, config.lint, undefined, undefined, { reports: (p) => p.startsWith("claude/") || p === "MEMORY.md", memoryFolder: "claude" }).map(
        (f) => f.file,
      ),
    ).toEqual(scoped.map((f) => f.file));
  });
});
