/**
 * The end of `install --yes`: the vault indexed, so the hooks have cards to recall, and the
 * installed hook run once, as Claude Code will run it, on a prompt made from one of the vault's
 * own cards, with what Claude would receive printed. A newcomer sees it work before opening
 * Claude Code, or reads why not.
 */

import { readFileSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Args } from "../args";
import { indexCommand } from "./index";
import { vaultFiles } from "../../../src/core/paths";
import { SnapshotReader } from "../../../src/core/snapshot/read";
import { runCommand } from "../../../src/core/llm/run-command";

// The kinds of card a first question is most likely to be about.
const TYPES = ["debugging", "reference", "feedback", "project", "teaching", "user"];
const CHECK_MS = 30_000;
const PROMPT_CHARS = 80;

export async function firstRecall(args: Args, vault: string, node: string, bridge: string): Promise<void> {
  writeSync(1, "\nIndexing the vault, so the hooks have cards to recall:\n");
  const config = args.flags.get("config");
  const indexed = await indexCommand({
    command: "index",
    flags: new Map([["vault", vault], ...(typeof config === "string" ? [["config", config] as [string, string]] : [])]),
  });
  if (indexed !== 0) {
    writeSync(1, `The index failed (above); the hooks stay silent until \`index --vault ${JSON.stringify(vault)}\` succeeds.\n`);
    return;
  }
  const card = pickCard(vault);
  if (!card) {
    writeSync(1, "The vault has no card yet: the hooks print nothing until the digest or Claude writes some.\n");
    return;
  }
  // From the card's project's folder, as a session there would ask: another project's cards are not shown elsewhere.
  const cwd = join(tmpdir(), card.project || "vault-memory-install-check");
  const payload = JSON.stringify({ prompt: card.prompt, session_id: `install-check-${process.pid}`, cwd, hook_event_name: "UserPromptSubmit" });
  const logged = logSize(vault);
  const r = await runCommand([node, bridge, "recall", "--vault", vault], payload, { timeoutMs: CHECK_MS });
  const from = card.project ? ` in project ${card.project}` : "";
  if (r.code === 0 && r.stdout.trim() !== "") {
    writeSync(1, `\nThe installed hook, asked ${JSON.stringify(card.prompt)}${from} (from ${card.path}), gives Claude:\n\n${r.stdout.trimEnd()}\n`);
    return;
  }
  writeSync(
    1,
    `\nThe installed hook, asked ${JSON.stringify(card.prompt)}${from} (from ${card.path}), printed nothing${r.code === 0 ? "" : ` and exited ${String(r.code)}`}. ${whyNothing(vault, logged)}\n`,
  );
}

/** A card to ask about, and a prompt made from the start of its description. */
function pickCard(vault: string): { path: string; project: string; prompt: string } | undefined {
  let reader: SnapshotReader;
  try {
    reader = SnapshotReader.open(vaultFiles.snapshot(vault));
  } catch {
    return undefined;
  }
  try {
    const catalog = reader.catalog() ?? [];
    const rank = (type: string): number => (TYPES.includes(type) ? TYPES.indexOf(type) : TYPES.length);
    // Cards of no project first: they are recalled in any folder.
    const ordered = catalog
      .filter((c) => rank(c.type) < TYPES.length)
      .sort((a, b) => Number(a.project !== "") - Number(b.project !== "") || rank(a.type) - rank(b.type) || a.path.localeCompare(b.path));
    for (const c of ordered) {
      const description = reader.doc(c.id)?.description ?? "";
      const prompt = clipAtWord(description.split(/[;；。.!?！？\n]/)[0].trim());
      if (prompt.length >= 8) return { path: c.path, project: c.project, prompt };
    }
    return undefined;
  } finally {
    reader.close();
  }
}

/** At most PROMPT_CHARS, cut at a space when the text has one near the end (CJK text has none). */
function clipAtWord(text: string): string {
  if (text.length <= PROMPT_CHARS) return text;
  const cut = text.lastIndexOf(" ", PROMPT_CHARS);
  return (cut > PROMPT_CHARS / 2 ? text.slice(0, cut) : text.slice(0, PROMPT_CHARS)).trim();
}

function logSize(vault: string): number {
  try {
    return statSync(vaultFiles.log(vault)).size;
  } catch {
    return 0;
  }
}

/** Why the hook said nothing: what it wrote to the vault's log during the check, if anything. */
function whyNothing(vault: string, from: number): string {
  let added = "";
  try {
    added = readFileSync(vaultFiles.log(vault)).subarray(from).toString("utf8").trim();
  } catch {
    added = "";
  }
  const last = added.split("\n").pop() ?? "";
  return last
    ? `Its log says: ${last.replace(/^\S+ \S+ /, "")}`
    : "No card cleared recall's thresholds for it; Preview recall in Obsidian, or `recall` with `--min-score 0`, shows the scores.";
}
