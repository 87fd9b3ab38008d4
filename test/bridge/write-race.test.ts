/**
 * Two Claude Code sessions writing at once: two MCP servers (two processes) on one vault. Every
 * answer that says "Created" or "Extended" must be true on disk afterwards, however the two
 * interleave; the rounds repeat the race until it would show.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyVault, markdownFiles, ROOT, runBridge, SAMPLE_VAULT, tempDir } from "../helpers";

const MCP = join(ROOT, "hook-bridge", "dist", "vault-memory-mcp.cjs");
const ROUNDS = 5;
const WRITES = 12;

async function server(vault: string, home: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP, "--vault", vault],
    env: { PATH: process.env.PATH ?? "", HOME: home, CLAUDE_PROJECT_DIR: join(home, "vault-memory") },
    stderr: "pipe",
  });
  const client = new Client({ name: "race", version: "1" });
  await client.connect(transport);
  return {
    async call(input: Record<string, unknown>): Promise<string> {
      const r = (await client.callTool({ name: "write_card", arguments: input })) as { content: { text: string }[]; isError?: boolean };
      const text = r.content.map((c) => c.text).join("\n");
      if (r.isError) throw new Error(text);
      return text;
    },
    close: () => client.close(),
  };
}

/** A card's text that no other card of the race shares a word of. */
const bodyOf = (who: string, i: number): string => Array.from({ length: 12 }, (_, k) => `${who}${i}q${k}`).join(" ");

describe("two sessions writing cards at once", () => {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  it("keeps every card created and every section added, in every round", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const vault = copyVault(SAMPLE_VAULT, "Race Vault");
      made.push(join(vault, ".."));
      const home = tempDir("vm-race-home-");
      made.push(home);
      expect(runBridge(["index", "--vault", vault]).status).toBe(0);
      const target = "debugging/sqlite-database-locked.md";
      const [a, b] = await Promise.all([server(vault, home), server(vault, home)]);
      try {
        const work = (s: typeof a, who: string) =>
          Promise.all(
            Array.from({ length: WRITES }, (_, i) => [
              // The same titles on both sides, on different subjects (no text in common, so the check
              // before creating has nothing to extend): each create must still be a card of its own.
              s.call({
                title: `Zeppelin gasbag valve ${i}`,
                description: `When valve ${i} of the zeppelin sticks`,
                type: "debugging",
                body: bodyOf(who, i),
                project: "",
              }),
              s.call({ path: target, title: `Note ${who}-${i}`, body: `Marker ${who}-${i}-end.` }),
            ]).flat(),
          );
        const answers = (await Promise.all([work(a, "a"), work(b, "b")])).flat();
        expect(answers.filter((t) => t.startsWith("Created")).length).toBe(2 * WRITES);
        expect(answers.filter((t) => t.startsWith("Extended")).length).toBe(2 * WRITES);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
      const cards = markdownFiles(vault).filter((p) => /zeppelin-gasbag-valve/.test(p));
      expect(cards.length, `round ${round}`).toBe(2 * WRITES);
      const bodies = cards.map((p) => readFileSync(join(vault, p), "utf8")).join("\n");
      for (const who of ["a", "b"]) for (let i = 0; i < WRITES; i++) expect(bodies).toContain(bodyOf(who, i));
      const extended = readFileSync(join(vault, target), "utf8");
      for (const who of ["a", "b"]) for (let i = 0; i < WRITES; i++) expect(extended, `round ${round}`).toContain(`Marker ${who}-${i}-end.`);
    }
  });
});

/**
 * A person's editor saving a card again and again while a session extends it, reading the file
 * before each edit as Obsidian does after a change on disk. Saved in place (truncated, then
 * written, as Obsidian itself saves), the file is empty for a moment: a card must never be
 * written from that read, and no edit of theirs may be lost. Saved by a rename, the card must
 * never lose its frontmatter either (the editor checks at every read).
 */
const EDITOR = String.raw`
const fs = require("node:fs");
const pause = new Int32Array(new SharedArrayBuffer(4));
const [file, stop, mode] = process.argv.slice(1);
let i = 0;
while (i < 150 || !fs.existsSync(stop)) {
  const text = fs.readFileSync(file, "utf8");
  if (!text.startsWith("---\n")) { console.error("card lost its frontmatter at edit " + i + ": " + JSON.stringify(text.slice(0, 80))); process.exit(3); }
  const next = text + "\nPerson's edit " + i + ".\n";
  if (mode === "atomic") {
    fs.writeFileSync(file + ".editor-tmp", next);
    fs.renameSync(file + ".editor-tmp", file);
  } else {
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, next);
    fs.closeSync(fd);
  }
  i++;
  // A person's pace, far quicker than anyone types: an editor saves a few times a second at most.
  Atomics.wait(pause, 0, 0, 5);
}
console.log(i);
`;

async function raceEditor(mode: "atomic" | "in-place", made: string[]): Promise<{ text: string; edits: number; answers: string[] }> {
  const vault = copyVault(SAMPLE_VAULT, "Edit Vault");
  made.push(join(vault, ".."));
  const home = tempDir("vm-edit-home-");
  made.push(home);
  expect(runBridge(["index", "--vault", vault]).status).toBe(0);
  const target = "debugging/sqlite-database-locked.md";
  const stop = join(home, "stop");
  const editor = spawn(process.execPath, ["-e", EDITOR, join(vault, target), stop, mode], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  editor.stdout.on("data", (d) => (out += d));
  editor.stderr.on("data", (d) => (err += d));
  const ended = new Promise<number | null>((resolve) => editor.on("close", resolve));
  const s = await server(vault, home);
  const answers: string[] = [];
  try {
    for (let i = 0; i < 25; i++)
      answers.push(await s.call({ path: target, title: `Session note ${i}`, body: `Session marker ${i}.` }).catch((e: Error) => `refused: ${e.message}`));
  } finally {
    await s.close();
    writeFileSync(stop, "");
  }
  expect(await ended, err).toBe(0);
  // Every answer is a section written or a reason: never a card rebuilt from nothing.
  for (const a of answers) expect(a).toMatch(/^Extended|^refused: Nothing was written/);
  expect(answers.some((a) => a.startsWith("Extended"))).toBe(true);
  return { text: readFileSync(join(vault, target), "utf8"), edits: Number(out.trim()), answers };
}

describe("a session extending a card the person is editing", () => {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  // What a race of processes can show whatever the machine's load: the card is never written from
  // an empty or partial read, the person's latest save is there, and every answer is true. Whether
  // a save that lands in the very instant of a replace is kept depends on when each process runs;
  // the unit tests of rewriteCard and replaceIfUnchanged put a save at each such moment in turn.
  for (const mode of ["in-place", "atomic"] as const) {
    it(`never takes the frontmatter off a card saved ${mode === "atomic" ? "by a rename" : "in place"}, nor writes over the latest save`, async () => {
      for (let round = 0; round < 2; round++) {
        const { text, edits } = await raceEditor(mode, made);
        expect(text.startsWith("---\nname: ")).toBe(true);
        expect(text).toContain(`\nPerson's edit ${edits - 1}.\n`);
      }
    });
  }
});
