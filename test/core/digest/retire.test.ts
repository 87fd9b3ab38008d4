import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { archiveUnused, MAX_ARCHIVED_PER_NIGHT, restoredText } from "../../../src/core/digest/retire";
import { runDigest } from "../../../src/core/digest/run";
import { lintScope, lintVault } from "../../../src/core/lint/lint";
import { vaultFiles } from "../../../src/core/paths";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { runBridge, vaultWith } from "../../helpers";

const NOW = new Date("2026-12-06T03:00:00Z");
const DAY = 86_400_000;
const card = (name: string, body = `${name} body.`) => `---\nname: ${name}\ndescription: ${name}\ntype: reference\ntags: [t]\n---\n${body}\n`;

/** A vault whose cards were all last written 200 days ago, with a recall log that began 120 days ago. */
function oldVault(files: Record<string, string>, recalled: Record<string, number> = {}, logDays = 120): string {
  const vault = vaultWith(files);
  const then = new Date(NOW.getTime() - 200 * DAY);
  for (const p of Object.keys(files)) utimesSync(join(vault, p), then, then);
  const lines = [{ t: new Date(NOW.getTime() - logDays * DAY).toISOString(), session: "s", prompt: "x", cards: [], ms: 1 }];
  for (const [path, daysAgo] of Object.entries(recalled))
    lines.push({ t: new Date(NOW.getTime() - daysAgo * DAY).toISOString(), session: "s", prompt: "y", cards: [{ path, score: 5 }] as never[], ms: 1 });
  mkdirSync(vaultFiles.dir(vault), { recursive: true });
  writeFileSync(vaultFiles.usageLog(vault), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return vault;
}

describe("archiveUnused", () => {
  it("archives a card not recalled, read or linked in 90 days, and no other", () => {
    const vault = oldVault(
      {
        "reference/recalled.md": card("recalled", "Links [[linked]]."),
        "reference/linked.md": card("linked"),
        "reference/unused.md": card("unused"),
        "reference/recalled-long-ago.md": card("recalled long ago"),
        "moc/knowledge-overview.md": "---\nname: Overview\ndescription: d\ntype: moc\ngenerated: vault-memory\n---\n- [[unused]]\n- [[recalled-long-ago]]\n",
        "reference/already.md": "---\nname: already\ndescription: d\ntype: reference\ntags: [t]\nstatus: archived\n---\nx\n",
      },
      { "reference/recalled.md": 10, "reference/recalled-long-ago.md": 100 },
    );
    const before = readFileSync(join(vault, "reference/unused.md"), "utf8");
    const r = archiveUnused(vault, defaultConfig(), new NoteCache(vault), NOW);
    // A link from an overview page does not count: it links to every card.
    expect(r.archived.map((a) => a.path).sort()).toEqual(["reference/recalled-long-ago.md", "reference/unused.md"]);
    expect(r.failed).toEqual([]);
    const after = readFileSync(join(vault, "reference/unused.md"), "utf8");
    expect(after).toMatch(
      /^status: archived\narchived: "2026-12-06"\narchived-reason: not recalled, read or linked in 90 days \(archived by the nightly digest\)\n---\n/m,
    );
    // Restored in one step, byte for byte.
    expect(restoredText("reference/unused.md", after)).toBe(before);
    expect(() => restoredText("reference/linked.md", readFileSync(join(vault, "reference/linked.md"), "utf8"))).toThrow(/is not archived/);
  });

  it("waits until this computer's recall log covers the whole span", () => {
    const vault = oldVault({ "reference/unused.md": card("unused") }, {}, 30);
    const r = archiveUnused(vault, defaultConfig(), new NoteCache(vault), NOW);
    expect(r.archived).toEqual([]);
    expect(r.waiting).toMatch(/the recall log must cover the last 90 days before a card is judged unused \(it begins 2026-11-06\)/);
    const none = vaultWith({ "reference/unused.md": card("unused") });
    expect(archiveUnused(none, defaultConfig(), new NoteCache(none), NOW).waiting).toMatch(/there is none yet/);
  });

  it(`archives at most ${MAX_ARCHIVED_PER_NIGHT} a night, the longest unused first, and writes nothing on a dry run`, () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`reference/c${String(i).padStart(2, "0")}.md`] = card(`c${i}`);
    const vault = oldVault(files);
    const dry = archiveUnused(vault, defaultConfig(), new NoteCache(vault), NOW, true);
    expect(dry.archived).toHaveLength(MAX_ARCHIVED_PER_NIGHT);
    expect(dry.more).toBe(10);
    expect(readdirSync(join(vault, "reference")).every((f) => !readFileSync(join(vault, "reference", f), "utf8").includes("archived"))).toBe(true);
  });

  it("leaves a card the person saved since the night read it", () => {
    const vault = oldVault({ "reference/unused.md": card("unused") });
    const notes = new NoteCache(vault);
    notes.list();
    notes.text(notes.list()[0]);
    writeFileSync(join(vault, "reference/unused.md"), card("unused", "Edited just now."));
    const r = archiveUnused(vault, defaultConfig(), notes, NOW);
    expect(r.archived).toEqual([]);
    expect(r.failed).toEqual([{ path: "reference/unused.md", reason: "it changed while the night ran" }]);
    expect(readFileSync(join(vault, "reference/unused.md"), "utf8")).toBe(card("unused", "Edited just now."));
  });
});

describe("the night with archiving on", () => {
  it("archives the unused cards, lists them in the report with how to restore one, and restore gives each back", async () => {
    const vault = oldVault({ "reference/unused.md": card("unused"), "reference/recalled.md": card("recalled") }, { "reference/recalled.md": 5 });
    const before = readFileSync(join(vault, "reference/unused.md"), "utf8");
    const config = defaultConfig();
    config.enrich.perNight = 0;
    config.digest.command = ["/bin/sh", "-c", "cat >/dev/null; echo '{}'"];
    config.digest.archiveUnused = true;
    const r = await runDigest({ vault, config, now: NOW });
    expect(r.retired?.archived.map((a) => a.path)).toEqual(["reference/unused.md"]);
    const report = readFileSync(join(vault, r.reportPath!), "utf8");
    expect(report).toContain("## Cards archived as unused (1)\n- [[unused]] — last used never, as far as the recall log goes");
    expect(report).toContain("vault-memory restore --vault <vault> --card <path>");
    const restored = runBridge(["restore", "--vault", vault, "--card", "reference/unused.md"]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^restored reference\/unused\.md: its status, archived date and reason are removed/);
    expect(readFileSync(join(vault, "reference/unused.md"), "utf8")).toBe(before);
    const again = runBridge(["restore", "--vault", vault, "--card", "reference/unused.md"]);
    expect(again.status).toBe(1);
    expect(again.stderr.trim()).toBe("vault-memory restore: reference/unused.md is not archived");
  });

  it("archives nothing while it is off, the default", async () => {
    const vault = oldVault({ "reference/unused.md": card("unused") });
    const config = defaultConfig();
    config.enrich.perNight = 0;
    config.digest.command = ["/bin/sh", "-c", "cat >/dev/null; echo '{}'"];
    const r = await runDigest({ vault, config, now: NOW });
    expect(r.retired).toBeUndefined();
    expect(readFileSync(join(vault, "reference/unused.md"), "utf8")).not.toContain("archived");
  });
});

describe("the night's report and a card that may contradict an older one", () => {
  it("lists it, naming the older card, and changes neither", async () => {
    const old =
      "---\nname: Database\ndescription: d\ntype: project\nproject: billing-api\ntags: [t]\nupdated: 2026-01-10\n---\nWe use MySQL for billing-api invoices and the webhook payload tables.\n";
    const newer =
      "---\nname: Database again\ndescription: d\ntype: project\nproject: billing-api\ntags: [t]\nupdated: 2026-06-01\n---\nWe use Postgres for billing-api invoices and the webhook payload tables instead of MySQL.\n";
    const vault = vaultWith({ "projects/db-old.md": old, "projects/db-new.md": newer });
    const config = defaultConfig();
    config.enrich.perNight = 0;
    config.digest.command = ["/bin/sh", "-c", "cat >/dev/null; echo '{}'"];
    const r = await runDigest({ vault, config, now: NOW });
    expect(r.contradictions?.map((c) => c.path)).toEqual(["projects/db-new.md"]);
    expect(readFileSync(join(vault, r.reportPath!), "utf8")).toMatch(
      /## Cards that may contradict older ones \(1\)\n- \[\[db-new\]\] may contradict the older projects\/db-old\.md/,
    );
    expect(readFileSync(join(vault, "projects/db-old.md"), "utf8")).toBe(old);
  });
});

describe("lint's unused-card finding", () => {
  it("names what the night archives: the scope's cards, their links followed among themselves alone", () => {
    const config = defaultConfig();
    config.memoryFolder = "memory";
    config.lint.excludeFolders = ["memory/drafts"];
    const vault = oldVault({
      "memory/reference/deploy.md": card("deploy"),
      "memory/reference/kept.md": card("kept"),
      "memory/reference/alone.md": card("alone"),
      // A person's journal, outside the memory folder: its link keeps nothing in use.
      "journal/monday.md": "Fixed it with [[deploy]].\n",
      // A card in a folder lint leaves out: the night follows its link all the same.
      "memory/drafts/notes.md": card("notes", "See [[kept]]."),
    });
    const night = archiveUnused(vault, config, new NoteCache(vault), NOW, true).archived.map((a) => a.path);
    const findings = lintVault(vault, config.lint, NOW.getTime(), new NoteCache(vault), lintScope(config));
    const flagged = findings.filter((f) => f.rule === "unused-card").map((f) => f.file);
    expect(night.sort()).toEqual(["memory/drafts/notes.md", "memory/reference/alone.md", "memory/reference/deploy.md"]);
    // The same, less the card in the folder lint does not report on.
    expect(flagged.sort()).toEqual(["memory/reference/alone.md", "memory/reference/deploy.md"]);
  });
});
