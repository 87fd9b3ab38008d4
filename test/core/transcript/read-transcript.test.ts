import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTranscript, turnOf } from "../../../src/core/transcript/read-transcript";
import { tempDir } from "../../helpers";
import { jsonl, line } from "../../fixtures/transcript";

function read(lines: unknown[]) {
  const path = join(tempDir(), "t.jsonl");
  writeFileSync(path, jsonl(lines));
  return readTranscript(path);
}

describe("real prompts", () => {
  it.each<[string, unknown, number]>([
    ["a typed prompt", line.prompt("fix the build"), 1],
    ["a prompt as text blocks", line.promptBlocks("fix the build"), 1],
    ["a slash command the person typed", line.prompt("<command-name>/review</command-name> <command-args>x</command-args>"), 1],
    ["a shell line the person typed", line.prompt("<bash-input>ls</bash-input>"), 1],
    ["a prompt with a private passage first", line.prompt("<private>x</private> and then"), 1],
    ["a tool result", line.toolResult("output"), 0],
    ["a sidechain turn", line.prompt("sub agent task", { isSidechain: true }), 0],
    ["Claude Code's meta expansion", line.prompt("expanded command text", { isMeta: true }), 0],
    ["a compaction summary", line.prompt("summary of before", { isCompactSummary: true }), 0],
    ["a transcript-only line", line.prompt("x", { isVisibleInTranscriptOnly: true }), 0],
    ["an injected system reminder", line.prompt("<system-reminder>UserPromptSubmit hook success: cards</system-reminder>"), 0],
    ["local command output", line.prompt("<local-command-stdout>done</local-command-stdout>"), 0],
    ["an interruption", line.prompt("[Request interrupted by user]"), 0],
    ["a prompt from a non-human origin", line.prompt("scheduled", { origin: { kind: "cron" } }), 0],
    ["a prompt from a human origin", line.prompt("typed", { origin: { kind: "human" } }), 1],
  ])("%s", (_, l, expected) => {
    expect(read([l]).prompts).toBe(expected);
  });

  it("counts a line replayed with the same uuid once", () => {
    const p = line.prompt("same");
    expect(read([p, p]).prompts).toBe(1);
  });
});

describe("assistant text", () => {
  it("joins a response's text blocks by message id, and ignores tool calls and thinking", () => {
    const t = read([line.prompt("q"), line.thinking("m1"), line.reply("first part", "m1"), line.toolUse("m1"), line.reply("second part", "m1")]);
    expect(t.assistantChars).toBe("first part".length + "second part".length);
    expect(t.turns.map((x) => [x.role, x.text])).toEqual([
      ["user", "q"],
      ["assistant", "first part\nsecond part"],
    ]);
  });

  it("keeps a private passage private when it spans two blocks of one reply", () => {
    const t = read([
      line.prompt("q"),
      line.reply("noted. <private>my home address is 12 Elm Street", "m1"),
      line.toolUse("m1"),
      line.reply("and my bank PIN is 4471</private> out of the memory, as asked", "m1"),
    ]);
    const reply = t.turns[1].text;
    expect(reply).not.toMatch(/Elm Street|4471|PIN/);
    expect(reply).toContain("noted.");
    expect(reply).toContain("out of the memory, as asked");
  });

  it("skips metadata, unknown types and broken lines", () => {
    const t = read([
      line.meta("queue-operation"),
      line.meta("api-request", { body: "x".repeat(100_000) }),
      "{not json",
      line.meta("something-new"),
      line.prompt("real one"),
      line.reply("answer"),
    ]);
    expect(t.prompts).toBe(1);
    expect(t.turns).toHaveLength(2);
    expect(t.gitBranch).toBe("main");
    expect(t.firstTimestamp <= t.lastTimestamp).toBe(true);
  });

  it("reads lines longer than its read buffer", () => {
    const long = "word ".repeat(300_000);
    const t = read([line.prompt("start"), line.reply(long), line.prompt("end")]);
    expect(t.prompts).toBe(2);
    expect(t.assistantChars).toBe(long.length);
  });

  it("keeps at most about 4 million characters of turns, dropping from the middle", () => {
    // 600 exchanges of 15,000 characters each: 9 million characters of conversation.
    const lines = [line.prompt("OPENING what this session is about")];
    for (let i = 0; i < 600; i++) lines.push(line.reply(`reply ${i} ` + "x".repeat(15_000)), line.prompt(`prompt ${i + 1}`));
    lines.push(line.reply("CLOSING what it came to"));
    const t = read(lines);
    const kept = t.turns.reduce((n, turn) => n + turn.text.length, 0);
    expect(kept).toBeLessThanOrEqual(4_000_000);
    expect(kept).toBeGreaterThan(3_400_000);
    expect(t.turns[0].text).toContain("OPENING");
    expect(t.turns.at(-1)?.text).toBe("CLOSING what it came to");
    expect(t.turns.length + t.omittedTurns).toBe(1202);
    // The counts are of the whole conversation, whatever was kept.
    expect(t.prompts).toBe(601);
    expect(t.assistantChars).toBeGreaterThan(9_000_000);
    // What is kept is the opening stretch and an unbroken run up to the end.
    const replies = t.turns
      .map((x) => /^reply (\d+)/.exec(x.text)?.[1])
      .filter(Boolean)
      .map(Number);
    const gap = replies.findIndex((r, i) => i > 0 && r !== replies[i - 1] + 1);
    expect(gap).toBeGreaterThan(0);
    expect(replies.slice(gap).every((r, i, a) => i === 0 || r === a[i - 1] + 1)).toBe(true);
    expect(replies.at(-1)).toBe(599);
  });
});

describe("a secret said again", () => {
  // Two pieces, so that this file holds no scannable passphrase.
  const PASS = ["tulip orbit ", "gravel sunset"].join("");
  const KEY = ["hX9k2Lm", "Q7vPz"].join("");

  it("is hidden in every turn once one turn shows it, before or after, and in a prompt added later", () => {
    const t = read([
      line.prompt("set up the staging database for me"),
      line.reply(`I will try ${PASS} as the password, since it is in the notes`),
      line.prompt(`the one to use is DB_PASSWORD="${PASS}" and the admin key is API_KEY=${KEY}`),
      line.reply(`Done: ${PASS} is set, and ${KEY} goes into the admin's settings.`),
    ]);
    const texts = t.turns.map((x) => x.text);
    expect(texts.join("\n")).not.toContain(PASS);
    expect(texts.join("\n")).not.toContain(KEY);
    expect(texts[1]).toBe("I will try [REDACTED] as the password, since it is in the notes");
    expect(texts[3]).toBe("Done: [REDACTED] is set, and [REDACTED] goes into the admin's settings.");
    expect(turnOf("user", `keep ${PASS} for production too`, t.prompts, t.secrets).text).toBe("keep [REDACTED] for production too");
    // What was found stays in memory: the summary written out holds none of it.
    expect(JSON.stringify(t)).not.toContain(PASS.slice(0, 12));
  });

  it("finds a repeat in another case or spacing, and the part a cut turn ends with", () => {
    const t = read([
      // Cut at 20,000 characters in the middle of it, before any turn showed it.
      line.prompt(`${"y".repeat(19_990)} ${PASS}`),
      line.reply(`the passphrase is "${PASS}"`),
      line.reply(`${PASS[0].toUpperCase()}${PASS.slice(1).replace(" ", "  ").replace(" gravel", "\ngravel").replace(" sunset", "-sunset")} works`),
      // Not cut: a word that begins like it is a word.
      line.prompt(`noted, the ${PASS.slice(0, 9)}`),
    ]);
    const texts = t.turns.map((x) => x.text);
    expect(texts[0]).toBe(`${"y".repeat(19_990)} [REDACTED]`);
    expect(texts.slice(1, 3)).toEqual(['the passphrase is "[REDACTED]"', "[REDACTED] works"]);
    expect(texts[3]).toBe(`noted, the ${PASS.slice(0, 9)}`);
  });

  it("hides a secret the added prompt shows plainly in the turns before it", () => {
    const t = read([line.prompt("the staging box"), line.reply(`I will use ${PASS} for it`)]);
    expect(t.turns[1].text).toContain(PASS);
    const added = turnOf("user", `use DB_PASSWORD="${PASS}" there`, t.prompts, t.secrets);
    expect(added.text).toBe('use DB_PASSWORD="[REDACTED]" there');
    expect(t.secrets!.hide(t.turns[1].text)).toBe("I will use [REDACTED] for it");
  });

  it("leaves a value that could be an ordinary word where it is a word", () => {
    const t = read([line.prompt('password: "Marigolds"'), line.reply("Marigolds bloom in summer; the password is set.")]);
    expect(t.turns[0].text).toBe('password: "[REDACTED]"');
    expect(t.turns[1].text).toBe("Marigolds bloom in summer; the password is set.");
  });
});
