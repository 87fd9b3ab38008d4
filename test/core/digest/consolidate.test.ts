import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCard } from "../../../src/core/card/card";
import { LinkResolver } from "../../../src/core/card/links";
import { defaultConfig } from "../../../src/core/config";
import { applyProposal, dismissProposal, factAnchors, findGroups, listProposals, missingFacts } from "../../../src/core/digest/consolidate";
import { consolidateVault } from "../../../src/core/digest/consolidate-run";
import { runDigest } from "../../../src/core/digest/run";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { tempDir, vaultWith } from "../../helpers";

const card = (name: string, project: string, body: string, source = "session s1") =>
  `---\nname: ${name}\ndescription: ${name}\ntype: reference\ntags: [db]\n${project ? `project: ${project}\n` : ""}${source ? `source: ${source}\n` : ""}updated: 2026-05-01\n---\n${body}\n`;

// Three fragments of one subject, each with facts of its own.
const FRAGMENTS = {
  "reference/pgbouncer-mode.md": card(
    "PgBouncer transaction mode",
    "billing-api",
    "PgBouncer runs in transaction mode in front of Postgres for billing-api; the pool is `default_pool_size=20`.",
  ),
  "reference/pgbouncer-prisma.md": card(
    "PgBouncer and Prisma",
    "billing-api",
    "PgBouncer runs in transaction mode in front of Postgres for billing-api, so Prisma needs `pgbouncer=true` in DATABASE_URL.",
  ),
  "reference/pgbouncer-idle.md": card(
    "PgBouncer idle servers",
    "billing-api",
    "PgBouncer runs in transaction mode in front of Postgres for billing-api; idle servers close after 600 s (`server_idle_timeout`). See [[invoice-pdf]].",
  ),
};
// Cards that must not be merged with them: another project, another subject, a person's own note.
const APART = {
  "reference/pgbouncer-orders.md": card(
    "PgBouncer for orders",
    "orders-etl",
    "PgBouncer runs in transaction mode in front of Postgres for orders-etl; the pool is `default_pool_size=50`.",
  ),
  "reference/invoice-pdf.md": card("Invoice PDF", "billing-api", "Invoice PDFs are rendered by headless Chromium in a worker; fonts live in the image."),
  "reference/my-pgbouncer-notes.md": card(
    "My PgBouncer notes",
    "billing-api",
    "PgBouncer runs in transaction mode in front of Postgres for billing-api; I restart it with `systemctl restart pgbouncer`.",
    "",
  ),
  // A source left empty (a property cleared in Obsidian) is no source: the person's own too.
  "reference/my-pgbouncer-restarts.md": card(
    "My PgBouncer restarts",
    "billing-api",
    "PgBouncer runs in transaction mode in front of Postgres for billing-api; I restart it after each deploy.",
    '""',
  ),
};

/**
 * A stand-in for `claude -p`: reads the merge prompt on stdin and answers with every card's body
 * line, once each (or, with DROP, without the last card's), as a model asked to keep every fact would.
 */
function standIn(drop = false, editWhileAsked = ""): string[] {
  const script = join(tempDir(), "merge.cjs");
  writeFileSync(
    script,
    `let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => {
  if (${JSON.stringify(editWhileAsked)}) require("node:fs").appendFileSync(${JSON.stringify(editWhileAsked)}, "A line the person added while the LLM was asked.\\n");
  const bodies = [...s.matchAll(/<card path="[^"]*">\\n---[\\s\\S]*?\\n---\\n([\\s\\S]*?)\\n<\\/card>/g)].map((m) => m[1].trim());
  if (${drop}) bodies.pop();
  const lines = [...new Set(bodies.flatMap((b) => b.split("\\n")))];
  const unquote = (t) => t.replace(/&lt;/g, "<");
  process.stdout.write(JSON.stringify({ action: "merge", name: "PgBouncer in front of billing-api's Postgres", description: "How PgBouncer is set up for billing-api, and what it asks of clients", tags: ["db", "pgbouncer"], body: "## Setup\\n\\n" + unquote(lines.join("\\n\\n")) }));
});
`,
  );
  return [process.execPath, script];
}

function config(drop = false) {
  const c = defaultConfig();
  c.enrich.perNight = 0;
  c.digest.command = standIn(drop);
  return c;
}

describe("findGroups", () => {
  it("groups the fragments of one subject and project that Vault Memory wrote, and no other card", () => {
    const vault = vaultWith({ ...FRAGMENTS, ...APART });
    const groups = findGroups(vault, defaultConfig(), new NoteCache(vault));
    expect(groups).toHaveLength(1);
    expect(groups[0].paths.sort()).toEqual(Object.keys(FRAGMENTS).sort());
  });
});

describe("factAnchors", () => {
  it("are the letters a fact is checked by: code, names with dots or dashes, numbers with units, links", () => {
    expect(factAnchors("Idle servers close after 600 s (`server_idle_timeout`) on db-1.internal. See [[invoice-pdf]].").sort()).toEqual(
      ["600s", "[[invoice-pdf", "db-1.internal", "server_idle_timeout"].sort(),
    );
    expect(missingFacts("Use `pgbouncer=true` and 600 s.", "Set pgbouncer=true; idle 600 s.")).toEqual([]);
    expect(missingFacts("Use `pgbouncer=true` and 600 s.", "Set it; idle 600 s.")).toEqual(["pgbouncer=true"]);
  });
});

describe("consolidate", () => {
  it("merges the fragments into one card with every fact and link, and marks the others merged, linking to it", async () => {
    const vault = vaultWith({ ...FRAGMENTS, ...APART });
    const apart = Object.fromEntries(Object.keys(APART).map((p) => [p, readFileSync(join(vault, p), "utf8")]));
    const r = await consolidateVault({ vault, config: config() });
    expect("error" in r).toBe(false);
    if ("error" in r) return;
    expect(r.report.merges).toHaveLength(1);
    const { primary, merged } = r.report.merges[0];
    expect([primary, ...merged].sort()).toEqual(Object.keys(FRAGMENTS).sort());
    const text = readFileSync(join(vault, primary), "utf8");
    // Every fragment's facts are in the merged card.
    for (const p of Object.keys(FRAGMENTS)) expect(missingFacts(parseCard(p, FRAGMENTS[p as keyof typeof FRAGMENTS]).body, text), p).toEqual([]);
    for (const fact of ["default_pool_size=20", "pgbouncer=true", "server_idle_timeout", "600 s", "[[invoice-pdf]]"]) expect(text).toContain(fact);
    expect(parseCard(primary, text)).toMatchObject({ name: "PgBouncer in front of billing-api's Postgres", project: "billing-api" });
    // The others stay, merged, each linking to the merged card; links to them still resolve.
    const resolver = new LinkResolver(new NoteCache(vault).list().map((f) => f.path));
    for (const p of merged) {
      const other = parseCard(p, readFileSync(join(vault, p), "utf8"));
      expect(other.status).toBe("merged");
      expect(resolver.resolve(String(other.frontmatter["merged-into"]).replace(/^\[\[|\]\]$/g, ""))).toBe(primary);
      expect(resolver.resolve(p.replace(/^reference\/|\.md$/g, ""))).toBe(p);
    }
    // Another project's card, another subject and the person's own note are as they were.
    for (const [p, t] of Object.entries(apart)) expect(readFileSync(join(vault, p), "utf8")).toBe(t);
    expect(r.lines[0]).toBe("merged 1 group of the 1 found (1 LLM call)");
  });

  it("keeps a group apart when the merged card would lose a fact, and says which", async () => {
    const vault = vaultWith(FRAGMENTS);
    const r = await consolidateVault({ vault, config: config(true) });
    if ("error" in r) throw new Error(r.error);
    expect(r.report.merges).toEqual([]);
    expect(r.report.kept[0].reason).toMatch(/^the merged card would lose /);
    for (const [p, t] of Object.entries(FRAGMENTS)) expect(readFileSync(join(vault, p), "utf8")).toBe(t);
  });

  it("writes nothing on a dry run", async () => {
    const vault = vaultWith(FRAGMENTS);
    const r = await consolidateVault({ vault, config: config(), dryRun: true });
    if ("error" in r) throw new Error(r.error);
    expect(r.lines[0]).toBe("would merge 1 group of the 1 found (1 LLM call)");
    for (const [p, t] of Object.entries(FRAGMENTS)) expect(readFileSync(join(vault, p), "utf8")).toBe(t);
  });

  it("runs once a month in the night when turned on, within its calls, and the report lists the merge", async () => {
    const vault = vaultWith(FRAGMENTS);
    const c = config();
    c.digest.consolidate = true;
    c.digest.reviewMerges = false;
    const first = await runDigest({ vault, config: c, now: new Date("2026-12-06T03:00:00Z") });
    expect(first.consolidated?.merges).toHaveLength(1);
    expect(readFileSync(join(vault, first.reportPath!), "utf8")).toMatch(
      /## Fragments merged \(1\)\nmerged 1 group of the 1 found \(1 LLM call\)\n- \[\[pgbouncer-/,
    );
    const next = await runDigest({ vault, config: c, now: new Date("2026-12-07T03:00:00Z") });
    expect(next.consolidated).toBeUndefined();
  });
});

describe("a card edited while the LLM is asked", () => {
  it("keeps the group apart and writes none of it", async () => {
    const vault = vaultWith(FRAGMENTS);
    const edited = join(vault, "reference/pgbouncer-prisma.md");
    const c = config();
    c.digest.command = standIn(false, edited);
    const r = await consolidateVault({ vault, config: c });
    if ("error" in r) throw new Error(r.error);
    expect(r.report.merges).toEqual([]);
    expect(r.report.kept[0].reason).toMatch(/a card changed while it was being merged/);
    for (const [p, t] of Object.entries(FRAGMENTS))
      expect(readFileSync(join(vault, p), "utf8")).toBe(p === "reference/pgbouncer-prisma.md" ? `${t}A line the person added while the LLM was asked.\n` : t);
  });
});

describe("merge proposals", () => {
  it("waits for the person: accepted, the merge is made; the cards untouched until then", async () => {
    const vault = vaultWith(FRAGMENTS);
    const r = await consolidateVault({ vault, config: config(), propose: true });
    if ("error" in r) throw new Error(r.error);
    expect(r.report.merges).toEqual([]);
    expect(r.lines[0]).toMatch(/^proposed 1 merge of the 1 group found, for you to accept or dismiss in the queue sidebar/);
    for (const [p, t] of Object.entries(FRAGMENTS)) expect(readFileSync(join(vault, p), "utf8")).toBe(t);
    const [proposal] = listProposals(vault);
    expect(proposal.paths.sort()).toEqual(Object.keys(FRAGMENTS).sort());
    const done = applyProposal(vault, proposal.id);
    expect(parseCard(done.primary, readFileSync(join(vault, done.primary), "utf8")).name).toBe("PgBouncer in front of billing-api's Postgres");
    for (const p of done.merged) expect(parseCard(p, readFileSync(join(vault, p), "utf8")).status).toBe("merged");
    expect(listProposals(vault)).toEqual([]);
  });

  it("is set aside, writing nothing, when a card changed since it was proposed; and a dismissed one changes nothing", async () => {
    const vault = vaultWith(FRAGMENTS);
    await consolidateVault({ vault, config: config(), propose: true });
    const [proposal] = listProposals(vault);
    const edited = `${FRAGMENTS["reference/pgbouncer-idle.md"]}\nA line the person added.\n`;
    writeFileSync(join(vault, "reference/pgbouncer-idle.md"), edited);
    expect(() => applyProposal(vault, proposal.id)).toThrow(/reference\/pgbouncer-idle\.md changed since the merge was proposed; nothing was merged/);
    expect(readFileSync(join(vault, "reference/pgbouncer-idle.md"), "utf8")).toBe(edited);
    for (const p of ["reference/pgbouncer-mode.md", "reference/pgbouncer-prisma.md"])
      expect(readFileSync(join(vault, p), "utf8")).toBe(FRAGMENTS[p as keyof typeof FRAGMENTS]);
    expect(listProposals(vault)).toEqual([]);
    writeFileSync(join(vault, "reference/pgbouncer-idle.md"), FRAGMENTS["reference/pgbouncer-idle.md"]);
    await consolidateVault({ vault, config: config(), propose: true });
    dismissProposal(vault, listProposals(vault)[0].id);
    expect(listProposals(vault)).toEqual([]);
    for (const [p, t] of Object.entries(FRAGMENTS)) expect(readFileSync(join(vault, p), "utf8")).toBe(t);
  });
});

describe("the month's consolidation at night, as set by default", () => {
  it("proposes the merges for review in the queue sidebar, and the report says so", async () => {
    const vault = vaultWith(FRAGMENTS);
    const c = config();
    c.digest.consolidate = true;
    const r = await runDigest({ vault, config: c, now: new Date("2026-12-06T03:00:00Z") });
    expect(r.consolidated?.proposed).toHaveLength(1);
    expect(readFileSync(join(vault, r.reportPath!), "utf8")).toMatch(
      /## Merges proposed \(1\)\nproposed 1 merge of the 1 group found, for you to accept or dismiss in the queue sidebar/,
    );
    for (const [p, t] of Object.entries(FRAGMENTS)) expect(readFileSync(join(vault, p), "utf8")).toBe(t);
    expect(listProposals(vault)).toHaveLength(1);
  });
});
