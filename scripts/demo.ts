/** `npm run demo`: index the sample vault with the built bridge and show what Claude would receive. */

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Bundled into .cache/ by scripts/run-ts.mjs: one level below the repo root, like scripts/.
const root = fileURLToPath(new URL("..", import.meta.url));
const bridge = join(root, "hook-bridge", "dist", "vault-memory.cjs");
const vault = join(root, "sample-vault");

const PROMPTS = [
  "为什么排程跑不起来",
  "vite 部署到自訂網域 base 路徑",
  "the nightly job fails with command not found: claude under launchd",
  "hook 的 stdout 会不会进到 Claude 的上下文？",
  "how should I word the commit message?",
  "好的继续",
  "ok continue",
];

function run(args: string[], input = ""): { stdout: string; ms: number } {
  const started = performance.now();
  // Each hook in its own process: a demo leaves no resident recall server behind it.
  const r = spawnSync(process.execPath, [bridge, ...args], { input, encoding: "utf8", env: { ...process.env, VAULT_MEMORY_RESIDENT: "off" } });
  if (r.status !== 0) throw new Error(`bridge ${args[0]} failed: ${r.stderr}`);
  return { stdout: r.stdout, ms: performance.now() - started };
}

function bareNode(): number {
  const started = performance.now();
  spawnSync(process.execPath, ["-e", ""]);
  return performance.now() - started;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`$ npx vault-memory index --vault sample-vault`);
process.stdout.write(run(["index", "--vault", vault]).stdout);
// Most of a hook's time is Node starting up: a bare `node -e ''` is started before each hook, and
// the two are compared by their medians at the end. One run of each, side by side, read as if
// Node took longer to start than the whole hook whenever the machine was busy for either.
const hookMs: number[] = [];
const bareMs: number[] = [];
PROMPTS.forEach((prompt, i) => {
  // Each prompt is a new session: within one session a card is shown only once, and the demo
  // should show what a fresh prompt gets, however often it is run.
  const hook = JSON.stringify({ session_id: `demo-${Date.now()}-${i}`, hook_event_name: "UserPromptSubmit", cwd: "", prompt });
  bareMs.push(bareNode());
  const { stdout, ms } = run(["recall", "--vault", vault], hook);
  hookMs.push(ms);
  console.log(`\n── prompt: ${prompt}`);
  console.log(stdout.trimEnd() || "(nothing added to Claude's context)");
});
console.log(
  `\nThe hook took ${median(hookMs).toFixed(0)} ms a prompt (median of ${hookMs.length}); starting a bare Node, in turn with it, ${median(bareMs).toFixed(0)} ms.`,
);

// The demo asks from no project's folder, where every card is recalled. In Claude Code a card of a
// project is recalled in that project's folder, or when the prompt names the project: say which,
// so that trying the prompts elsewhere does not look like a broken install.
const projects = new Map<string, number>();
for (const file of readdirSync(vault, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"))) {
  const name = /^project: *(.+)$/m.exec(readFileSync(join(vault, file), "utf8"))?.[1]?.trim();
  if (name) projects.set(name, (projects.get(name) ?? 0) + 1);
}
if (projects.size > 0) {
  const list = [...projects].map(([name, n]) => `${name} (${n})`).join(", ");
  console.log(
    `\nIn Claude Code, a card of a project is recalled in that project's folder (a git repository, or else a folder, of that name) or when the prompt names the project; cards of no project everywhere. The sample cards' projects: ${list}; to try these prompts in Claude Code, run it in a folder named after one of them.`,
  );
}
