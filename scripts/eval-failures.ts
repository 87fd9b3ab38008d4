/**
 * Recall when a command fails, measured: each case of eval/queries/failures-*.json (a failed
 * command and its error, written blind) goes to the built bridge as Claude Code's
 * PostToolUseFailure payload, on a copy of the work vault it was written for. Prints hit@1 and
 * hit@5 on the failures a card explains, and how many of the others stay quiet, with the misses.
 *
 *   npm run build && node scripts/run-ts.mjs scripts/eval-failures.ts
 */

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Case {
  command: string;
  error: string;
  expect: string[];
  cwd: string;
  kind: "explained" | "unexplained" | "trivial";
}

const root = join(import.meta.dirname, "..");
const bridge = join(root, "hook-bridge", "dist", "vault-memory.cjs");
if (!existsSync(bridge)) throw new Error(`${bridge} is missing: run npm run build first`);
// failures-<language>[-heldout].json, for the work vault of that language.
const SET = /^failures-([a-z]+(?:-TW)?)(-heldout)?\.json$/;
const sets = readdirSync(join(root, "eval", "queries")).filter((f) => SET.test(f));
const scratch = mkdtempSync(join(tmpdir(), "vm-eval-failures-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

for (const file of sets) {
  const lang = SET.exec(file)![1];
  const vault = join(scratch, file.replace(/\.json$/, ""));
  cpSync(join(root, "eval", "vaults", `${lang}-work`), vault, { recursive: true });
  const indexed = spawnSync(process.execPath, [bridge, "index", "--vault", vault], { encoding: "utf8" });
  if (indexed.status !== 0) throw new Error(`index failed: ${indexed.stderr}`);
  const cases = (JSON.parse(readFileSync(join(root, "eval", "queries", file), "utf8")) as { cases: Case[] }).cases;
  let hit1 = 0;
  let hit5 = 0;
  let explained = 0;
  const quiet = { unexplained: [0, 0], trivial: [0, 0] };
  const misses: string[] = [];
  cases.forEach((c, i) => {
    // Each case a session of its own: the once-a-session rule must not hide a card.
    const payload = {
      session_id: `failures-${i}`,
      cwd: c.cwd,
      hook_event_name: "PostToolUseFailure",
      tool_name: "Bash",
      tool_input: { command: c.command },
      error: c.error,
    };
    const r = spawnSync(process.execPath, [bridge, "recall", "--vault", vault, "--deadline-ms", "60000"], { input: JSON.stringify(payload), encoding: "utf8" });
    const context = r.stdout
      ? ((JSON.parse(r.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? "")
      : "";
    const shown = [...context.matchAll(/^- (.+?\.md) — /gm)].map((m) => m[1].slice(vault.length + 1));
    const label = `${c.command.slice(0, 50)} | ${c.error.split("\n").slice(1).join(" ").slice(0, 80)}`;
    if (c.kind === "explained") {
      explained++;
      if (shown[0] !== undefined && c.expect.includes(shown[0])) hit1++;
      if (shown.some((p) => c.expect.includes(p))) hit5++;
      else misses.push(`missed ${c.expect[0]} (shown: ${shown.join(", ") || "nothing"}): ${label}`);
    } else {
      quiet[c.kind][1]++;
      if (shown.length === 0) quiet[c.kind][0]++;
      else misses.push(`not quiet (${c.kind}, shown: ${shown.join(", ")}): ${label}`);
    }
  });
  const pct = ([q, n]: number[]): string => `${n === 0 ? "-" : Math.round((100 * q) / n)}% (${q}/${n})`;
  console.log(`${file}: explained ${explained}: hit@1 ${(hit1 / explained).toFixed(2)}, hit@5 ${(hit5 / explained).toFixed(2)}`);
  console.log(`  unexplained quiet ${pct(quiet.unexplained)}, trivial quiet ${pct(quiet.trivial)}`);
  for (const m of misses) console.log(`  ${m}`);
}
