import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/core/config";
import { checkBeforeCreate, ExistingCards } from "../../../src/core/digest/dedupe";
import { runDigest } from "../../../src/core/digest/run";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../../src/core/queue/capture";
import { listPending } from "../../../src/core/queue/queue-store";
import { lintScope, lintVault } from "../../../src/core/lint/lint";
import type { DigestAction } from "../../../src/core/digest/answer";
import { tempDir, vaultWith } from "../../helpers";
import { jsonl, line } from "../../fixtures/transcript";

const DB_CHOICE =
  "---\nname: Database choice\ndescription: Why billing-api uses Postgres rather than MySQL\ntype: project\nproject: billing-api\ntags: [database]\n---\n" +
  "We chose Postgres for billing-api: row-level locks for invoice runs, and JSONB for the webhook payloads.\n\nMySQL was ruled out for its weaker JSON support.\n";

const create = (body: string, extra: Partial<Extract<DigestAction, { action: "create" }>> = {}): DigestAction => ({
  action: "create",
  folder: "projects",
  fileName: "db-choice",
  frontmatter: { name: "Database choice", description: "Why billing-api uses Postgres", type: "project", tags: ["database"], project: "billing-api" },
  body,
  related: [],
  ...extra,
});

const existing = (): ExistingCards => new ExistingCards([{ path: "projects/db-choice.md", name: "Database choice", text: DB_CHOICE }]);

describe("checkBeforeCreate", () => {
  it("skips a card the vault holds already, with the reason", () => {
    const r = checkBeforeCreate(
      create(
        "We chose Postgres for billing-api: row-level locks for invoice runs, and JSONB for the webhook payloads.\n\nMySQL was ruled out for its weaker JSON support.",
        { fileName: "postgres-decision", frontmatter: { name: "Postgres", description: "x", type: "project", tags: ["t"] } },
      ),
      existing(),
    );
    expect(r.action).toEqual({
      action: "skip",
      reason: expect.stringMatching(/^already in projects\/db-choice\.md \(\d+% of the new card's text is there\)$/) as unknown,
    });
    expect(r.duplicateOf).toMatchObject({ path: "projects/db-choice.md", why: "text" });
  });

  it("extends the card with the paragraphs it lacks when most of the new card is there", () => {
    const r = checkBeforeCreate(
      create(
        "We chose Postgres for billing-api: row-level locks for invoice runs, and JSONB for the webhook payloads.\n\nMySQL was ruled out for its weaker JSON support.\n\nPgBouncer runs in transaction mode in front of it.",
      ),
      existing(),
    );
    expect(r.action).toMatchObject({ action: "append", target: "projects/db-choice.md", section: "PgBouncer runs in transaction mode in front of it." });
  });

  it("extends with a code block whole, though it holds a blank line and a fence with an info string", () => {
    // Inside the block, "```yaml" is text: the block ends at the bare fence, and goes as one piece,
    // not as a fence left open (its end is a line the card has) that would swallow the card's rest.
    const block = "```\n```yaml\npool_mode: transaction\nserver_reset_query: DISCARD ALL\n\nMySQL was ruled out for its weaker JSON support.\n```";
    const r = checkBeforeCreate(
      create(
        `We chose Postgres for billing-api: row-level locks for invoice runs, and JSONB for the webhook payloads.\n\nMySQL was ruled out for its weaker JSON support.\n\n${block}`,
      ),
      existing(),
    );
    expect(r.action).toMatchObject({ action: "append", target: "projects/db-choice.md", section: block });
  });

  it("compares a card rewritten since by its new text only", () => {
    const cards = existing();
    cards.set({
      path: "projects/db-choice.md",
      name: "Database choice",
      text: "---\nname: Database choice\n---\nWe moved billing-api to CockroachDB for its multi-region writes.\n",
    });
    // The old text is gone from the vault: a card made of it is new, not an extension of the rewritten one.
    const r = checkBeforeCreate(
      create(
        "We chose Postgres for billing-api: row-level locks for invoice runs, and JSONB for the webhook payloads.\n\nMySQL was ruled out for its weaker JSON support.",
        { fileName: "postgres-decision", frontmatter: { name: "Postgres", description: "x", type: "project", tags: ["t"] } },
      ),
      cards,
    );
    expect(r.action.action).toBe("create");
  });

  it("takes a card of the same name, or one the same conversation made, for the same subject though reworded", () => {
    const reworded = "Postgres was picked over MySQL for billing-api. Invoice runs need row-level locks.\n\nConnection pooling goes through PgBouncer.";
    const byName = checkBeforeCreate(create(reworded), existing());
    expect(byName.duplicateOf).toMatchObject({ path: "projects/db-choice.md", why: "name" });
    expect(byName.action.action).toBe("append");
    const own = checkBeforeCreate(
      create(reworded, { fileName: "billing-db", frontmatter: { name: "Billing database", description: "x", type: "project", tags: ["t"] } }),
      existing(),
      ["projects/db-choice.md"],
    );
    expect(own.duplicateOf).toMatchObject({ why: "same conversation" });
  });

  it("creates a card on another subject, though it shares the name's words or the project", () => {
    const other = checkBeforeCreate(
      create("Invoice PDFs are rendered by a headless Chromium in a worker; fonts must be installed in the image.", {
        fileName: "invoice-pdf",
        frontmatter: {
          name: "Invoice PDF rendering",
          description: "How billing-api renders invoices",
          type: "reference",
          tags: ["pdf"],
          project: "billing-api",
        },
      }),
      existing(),
    );
    expect(other).toEqual({ action: expect.objectContaining({ action: "create" }) as unknown });
    // The same name, nothing of the text: a different card that happens to share a name.
    const sameName = checkBeforeCreate(create("Kafka retention is seven days on the events topic; compaction is off."), existing());
    expect(sameName.action.action).toBe("create");
  });

  it("holds for Chinese text", () => {
    const card =
      "---\nname: 排程路径\ndescription: launchd 找不到 claude\ntype: debugging\ntags: [launchd]\n---\n排程任务在 launchd 下找不到 claude，因为 PATH 里没有 /opt/homebrew/bin。\n\n用绝对路径调用 claude。\n";
    const cards = new ExistingCards([{ path: "debugging/launchd-path.md", name: "排程路径", text: card }]);
    const r = checkBeforeCreate(
      {
        action: "create",
        folder: "debugging",
        fileName: "launchd-claude",
        frontmatter: { name: "launchd 找不到 claude", description: "排程", type: "debugging", tags: ["t"] },
        body: "排程任务在 launchd 下找不到 claude，因为 PATH 里没有 /opt/homebrew/bin。\n\n用绝对路径调用 claude。",
        related: [],
      },
      cards,
    );
    expect(r.action.action).toBe("skip");
  });
});

describe("the digest with a conversation queued twice", () => {
  const LONG = "A reply long enough to count as real work in this conversation, with the details of the choice.";
  const answer = (body: string) => JSON.stringify(create(body));
  const night = async (vault: string, body: string) => {
    const config = defaultConfig();
    config.enrich.perNight = 0;
    const file = join(tempDir(), "answer.json");
    writeFileSync(file, answer(body));
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; cat '${file}'`];
    return runDigest({ vault, config });
  };
  const cardsIn = (vault: string) => readdirSync(join(vault, "projects")).sort();

  it("makes one card: the second time extends it with what is new, or writes nothing", async () => {
    const vault = vaultWith({ "reference/x.md": "---\nname: X\ndescription: x\ntype: reference\ntags: [t]\n---\nX.\n" });
    const t = join(tempDir(), "s.jsonl");
    writeFileSync(t, jsonl([line.prompt("which database for billing-api?"), line.reply(LONG), line.prompt("and why not mysql?"), line.reply(LONG)]));
    const queue = () => captureSession(vault, { sessionId: "s", transcriptPath: t, cwd: "/work/billing-api", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    queue();
    const first = await night(
      vault,
      "We chose Postgres for billing-api: row-level locks for invoice runs.\n\nMySQL was ruled out for its weaker JSON support.",
    );
    expect(first.results.map((r) => r.outcome.action)).toEqual(["created"]);
    expect(cardsIn(vault)).toEqual(["db-choice.md"]);
    // The session goes on, and is queued again: the model, asked anew, writes the card again, reworded.
    appendFileSync(t, jsonl([line.prompt("and the connection pool?"), line.reply(LONG)]));
    queue();
    expect(listPending(vault)).toHaveLength(1);
    const second = await night(
      vault,
      "Postgres was picked for billing-api; invoice runs need row-level locks.\n\nConnections go through PgBouncer in transaction mode.",
    );
    expect(second.results[0].outcome).toMatchObject({ action: "extended", path: "projects/db-choice.md", duplicateOf: { why: "same conversation" } });
    expect(cardsIn(vault)).toEqual(["db-choice.md"]);
    expect(readFileSync(join(vault, "projects", "db-choice.md"), "utf8")).toContain("PgBouncer in transaction mode");
    const report = readFileSync(join(vault, second.reportPath!), "utf8");
    expect(report).toMatch(/\[\[db-choice\]\] — .*\(this conversation made it before .*; extended with what it lacked instead\)/);
    // Once more, with nothing new: nothing is written.
    appendFileSync(t, jsonl([line.prompt("thanks"), line.reply(LONG)]));
    queue();
    const third = await night(vault, "Connections go through PgBouncer in transaction mode.");
    expect(third.results[0].outcome).toMatchObject({ action: "skipped", detail: expect.stringMatching(/^already in projects\/db-choice\.md/) as unknown });
    expect(cardsIn(vault)).toEqual(["db-choice.md"]);
  });
});

describe("the digest's own output", () => {
  it("passes lint: no link it wrote leads nowhere, and no page it wrote has an error or a warning", async () => {
    const vault = vaultWith({
      "projects/billing-api.md":
        "---\nname: billing-api\ndescription: The billing service\ntype: project\nproject: billing-api\ntags: [t]\n---\nThe billing service.\n",
    });
    const t = join(tempDir(), "s.jsonl");
    writeFileSync(
      t,
      jsonl([
        line.prompt("which database?"),
        line.reply("A reply long enough to count as real work, about the database."),
        line.prompt("why?"),
        line.reply("Because of row-level locks, as we found out today."),
      ]),
    );
    captureSession(vault, { sessionId: "s", transcriptPath: t, cwd: "/work/billing-api", stopHookActive: false }, DEFAULT_QUEUE_RULES);
    const config = defaultConfig();
    config.enrich.perNight = 0;
    const file = join(tempDir(), "answer.json");
    writeFileSync(
      file,
      JSON.stringify({
        action: "create",
        folder: "projects",
        fileName: "db-choice",
        frontmatter: { name: "Database choice", description: "Why billing-api uses Postgres", type: "project", tags: ["database"], project: "billing-api" },
        body: "We chose Postgres, see [[billing-api]] and [[a-note-never-written]].",
        related: ["billing-api"],
      }),
    );
    config.digest.command = ["/bin/sh", "-c", `cat >/dev/null; cat '${file}'`];
    const r = await runDigest({ vault, config });
    expect(r.results[0].outcome.action).toBe("created");
    const card = readFileSync(join(vault, "projects", "db-choice.md"), "utf8");
    expect(card).toContain("see [[billing-api]] and a-note-never-written.");
    const written = ["projects/db-choice.md", ...readdirSync(join(vault, "moc")).map((f) => `moc/${f}`), "MEMORY.md"];
    const findings = lintVault(vault, config.lint, Date.now(), undefined, lintScope(config)).filter(
      (f) => written.includes(f.file) && f.severity !== "info" && f.rule !== "stale-snapshot",
    );
    expect(findings).toEqual([]);
  });
});
