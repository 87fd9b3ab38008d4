/**
 * Every command that reads the vault, against one vault holding every kind of file that is not a
 * note at a note's name (a FIFO, a socket, a folder, a link to /dev/zero, a 600 MB file) and at
 * the other names commands read (the synonyms and rules notes, MEMORY.md, a queue entry, the
 * digest's status, a session's record, the vector cache, a project's git HEAD). Each command must
 * end (a hang is a kill after 60 s, a null status), say why it left each out, still find the one
 * normal card, and stay under 300 MB.
 */

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { captureSession, DEFAULT_QUEUE_RULES } from "../../src/core/queue/capture";
import { queueDirs } from "../../src/core/queue/queue-store";
import { startEmbedStub, type EmbedStub } from "../e2e/embed-stub";
import { jsonl, line } from "../fixtures/transcript";
import { copyVault, ROOT, runBridgeMeasured, SAMPLE_VAULT, tempDir, TIME, type MeasuredRun } from "../helpers";

const NORMAL = "reference/kettle-descaling.md";
const NORMAL_TEXT =
  "---\nname: Kettle descaling\ndescription: Descale the kettle monthly with citric acid\ntype: reference\ntags: [home]\n---\nDescale the kettle monthly with citric acid; rinse twice.\n";
const STAND_IN = join(ROOT, "eval", "hints-llm.mjs");
const MAX_PEAK_KB = 300 * 1024;
// The vault's notes that are not notes, and what each command must say of them.
const NOT_NOTES: [string, RegExp][] = [
  ["debugging/fifo.md", /a FIFO/],
  ["debugging/socket.md", /a socket/],
  ["reference/zero.md", /a link/],
  ["reference/huge.md", /over the 8 MB/],
];
const MCP = join(ROOT, "hook-bridge", "dist", "vault-memory-mcp.cjs");

let stub: EmbedStub;
let socket: Server;
let vault: string;
let project: string;
let userFile: string;
let hints: string;

const fifo = (path: string): void => {
  rmSync(path, { force: true });
  mkdirSync(join(path, ".."), { recursive: true });
  execFileSync("mkfifo", [path]);
};

/** What commands write over (the cache, the status) planted again before each one. */
function plantState(): void {
  rmSync(vaultFiles.embeddings(vault), { force: true });
  symlinkSync("/dev/zero", vaultFiles.embeddings(vault));
  fifo(vaultFiles.digestStatus(vault));
  fifo(join(queueDirs.pending(vault), "planted.json"));
  fifo(join(vaultFiles.dir(vault), "sessions", "hostile-session.json"));
}

beforeAll(async () => {
  stub = await startEmbedStub();
  vault = copyVault(SAMPLE_VAULT, "Hostile vault");
  writeFileSync(join(vault, NORMAL), NORMAL_TEXT);
  fifo(join(vault, "debugging", "fifo.md"));
  socket = createServer();
  await new Promise<void>((resolve) => socket.listen(join(vault, "debugging", "socket.md"), resolve));
  mkdirSync(join(vault, "reference", "folder.md"));
  symlinkSync("/dev/zero", join(vault, "reference", "zero.md"));
  const huge = join(vault, "reference", "huge.md");
  writeFileSync(huge, "---\nname: huge\n---\n");
  truncateSync(huge, 600 << 20);
  for (const p of ["meta/synonyms.md", "meta/card-writing-rules.md", "MEMORY.md"]) fifo(join(vault, p));

  // One conversation waits in the queue, for the digest and the session start's reminder.
  const transcript = join(tempDir(), "s1.jsonl");
  const long = "A reply long enough to count as real work in this conversation, with details.";
  writeFileSync(transcript, jsonl([line.prompt("how do I descale the kettle?"), line.reply(long), line.prompt("and how often?"), line.reply(long)]));
  expect(captureSession(vault, { sessionId: "s1", transcriptPath: transcript, cwd: "/work/project", stopHookActive: false }, DEFAULT_QUEUE_RULES).queued).toBe(
    true,
  );
  plantState();

  // A project whose git HEAD is a FIFO: the hooks and the MCP server read it for the branch.
  project = join(tempDir(), "hostile-project");
  mkdirSync(join(project, ".git"), { recursive: true });
  fifo(join(project, ".git", "HEAD"));

  const embed = { enabled: true, url: stub.url, model: "stub-model" };
  writeFileSync(vaultFiles.config(vault), JSON.stringify({ embed }));
  userFile = join(tempDir(), "config.json");
  writeFileSync(userFile, JSON.stringify({ embed, digest: { binary: STAND_IN } }), { mode: 0o600 });
  hints = join(tempDir(), "hints.jsonl");
  writeFileSync(hints, JSON.stringify({ path: NORMAL, questions: ["how do I descale a kettle?", "how often should a kettle be descaled?"] }) + "\n");
});

afterAll(async () => {
  await stub.close();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
});

const env = (): NodeJS.ProcessEnv => ({ VAULT_MEMORY_HINTS_FILE: hints, XDG_CACHE_HOME: join(tempDir(), "cache") });
const run = (args: string[], input = ""): Promise<MeasuredRun> => runBridgeMeasured([...args, "--vault", vault, "--config", userFile], input, env());
const log = (): string => (existsSync(vaultFiles.log(vault)) ? readFileSync(vaultFiles.log(vault), "utf8") : "");

/** Ended (not killed), and within the memory bound where it can be measured. */
function ended(r: MeasuredRun, what: string): void {
  expect(r.status, `${what} did not end: ${r.stderr}`).not.toBeNull();
  if (existsSync(TIME)) expect(r.peakKb, `${what}'s peak memory`).toBeLessThan(MAX_PEAK_KB);
}

/** Each note that is not one named with its reason, in `text`. */
function saidOfEach(text: string): void {
  for (const [path, why] of NOT_NOTES) expect(text, path).toMatch(new RegExp(`skipped ${path.replace(".", "\\.")}: .*${why.source}`));
}

describe("every reader against a vault of files that are not notes", () => {
  it("remind rebuilds the snapshot from the notes, logs each left out, and reminds of the queue", async () => {
    const r = await run(["remind"], JSON.stringify({ session_id: "r1", hook_event_name: "SessionStart", cwd: project }));
    ended(r, "remind");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/1 conversation waits/);
    expect(log()).toMatch(/rebuilt the recall snapshot/);
    saidOfEach(log());
  });

  it("index indexes the normal card, embeds it, and says why each other was skipped", async () => {
    plantState();
    const before = stub.texts.length;
    const r = await run(["index"]);
    ended(r, "index");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^indexed \d+ cards/);
    saidOfEach(r.stderr);
    expect(r.stderr).toMatch(/skipped meta\/synonyms\.md: synonyms not used: .*a FIFO/);
    expect(stub.texts.slice(before).join("\n")).toContain("Descale the kettle monthly");
    expect(r.stdout).toMatch(/semantic recall: \d+ texts embedded/);
  });

  it("recall finds the normal card, with a session record and a git HEAD that are FIFOs", async () => {
    plantState();
    const r = await run(
      ["recall"],
      JSON.stringify({
        session_id: "hostile-session",
        transcript_path: "",
        cwd: project,
        hook_event_name: "UserPromptSubmit",
        prompt: "how often should I descale the kettle with citric acid?",
      }),
    );
    ended(r, "recall");
    expect(r.stdout).toContain(NORMAL.split("/")[1]);
  });

  it("lint reports on the vault and says why each file was not read", async () => {
    plantState();
    const r = await run(["lint"]);
    ended(r, "lint");
    expect(r.stdout).toMatch(/\d+ (error|warning|suggestion)|No problems found/);
    saidOfEach(r.stderr);
  });

  it("digest --dry-run digests the queue with the default rules, and says why each file was not read", async () => {
    plantState();
    const r = await run(["digest", "--dry-run"]);
    ended(r, "digest");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("would skip");
    expect(r.stdout).toMatch(/meta\/card-writing-rules\.md cannot be read \(.*a FIFO.*\); the default rules are used tonight/);
    saidOfEach(r.stdout);
  });

  it("enrich --dry-run would enrich the normal card, and lists each other as skipped", async () => {
    plantState();
    const r = await run(["enrich", "--dry-run"]);
    ended(r, "enrich");
    expect(r.stdout).toContain(NORMAL);
    saidOfEach(r.stderr);
  });

  it("embed embeds past a vector cache linked to /dev/zero", async () => {
    plantState();
    const r = await run(["embed"]);
    ended(r, "embed");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/semantic recall: \d+ texts embedded, 0 from the cache/);
  });

  it("the MCP server refuses each file that is not a card, keeps serving, and finds the normal card", async () => {
    plantState();
    const peakFile = join(tempDir("vm-time-"), "peak");
    const measured = existsSync(TIME);
    const [command, ...args] = measured ? [TIME, "-f", "%M", "-o", peakFile, process.execPath, MCP] : [process.execPath, MCP];
    const transport = new StdioClientTransport({
      command,
      args: [...args, "--vault", vault, "--config", userFile],
      env: { PATH: process.env.PATH ?? "", HOME: tempDir(), CLAUDE_PROJECT_DIR: project, ...env() },
      stderr: "pipe",
    });
    const client = new Client({ name: "hostile-test", version: "1" });
    await client.connect(transport);
    const call = async (name: string, input: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: input })) as { content: { text: string }[]; isError?: boolean };
      return { text: r.content.map((c) => c.text).join("\n"), isError: r.isError === true };
    };
    for (const path of ["debugging/fifo.md", "debugging/socket.md", "reference/zero.md", "reference/folder.md"]) {
      const r = await call("read_card", { path });
      expect(r.isError, path).toBe(true);
    }
    // A huge card is read in part, and says so.
    const huge = await call("read_card", { path: "reference/huge.md" });
    expect(huge.text.length).toBeLessThan(61_000);
    // Read in pieces: the first, and where the next begins.
    expect(huge.text).toMatch(/more characters: call read_card with offset=20000/);
    expect((await call("read_card", { path: NORMAL })).text).toContain("citric acid");
    expect((await call("search_memory", { query: "descale the kettle", all_projects: true })).text).toContain(NORMAL);
    expect((await call("remember", { text: "Descale the kettle every month." })).text).toMatch(/Queued/);
    await client.close();
    if (measured) expect(Number(readFileSync(peakFile, "utf8").trim().split("\n").pop())).toBeLessThan(MAX_PEAK_KB);
  });

  it("a digest that writes takes over a lock that is a FIFO, leaves MEMORY.md and the rules note alone, and tidies the rest", async () => {
    plantState();
    fifo(vaultFiles.digestLock(vault));
    const r = await run(["digest"]);
    ended(r, "digest");
    expect(r.stderr).not.toMatch(/another digest is running/);
    const report = /report: (\S+)/.exec(r.stdout)?.[1] ?? "";
    expect(readFileSync(join(vault, report), "utf8")).toMatch(/MEMORY\.md was not updated: .*a FIFO/);
    expect(existsSync(join(vault, "moc", "knowledge-overview.md"))).toBe(true);
    saidOfEach(r.stdout);
  });
});
