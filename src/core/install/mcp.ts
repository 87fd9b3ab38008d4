/**
 * The MCP server at Claude Code's user scope, for every project: registered and removed through
 * Claude Code's own CLI (`claude mcp add|remove --scope user`), never by editing its file.
 * `~/.claude.json` is Claude Code's working state, rewritten by every running session; the CLI
 * is the one writer that knows its format and locks. We only read it, to see what is there.
 */

import { MCP_TOOLS } from "./mcp-tools";
import { isAbsolute, join } from "node:path";
import { FileRefused, readRegularFile } from "../io/read-file";
import { runCommand } from "../llm/run-command";
import type { Platform } from "./hook-commands";
import { homeDir } from "../io/home";

/** The server's name in Claude Code, the same as the Claude Code plugin's (`claude-plugin/.mcp.json`). */
export const MCP_NAME = "vault-memory";

/** What the server runs: a Node, the server's bundle in the bridge's folder, and the vault. */
export interface McpTarget {
  node: string;
  server: string;
  vault: string;
}

export function mcpAddArgs(t: McpTarget): string[] {
  // The name before `--` and no -e: the CLI's -e takes every word after it, the name included.
  return ["mcp", "add", "--scope", "user", MCP_NAME, "--", t.node, t.server, "--vault", t.vault];
}

export const MCP_REMOVE_ARGS: readonly string[] = ["mcp", "remove", "--scope", "user", MCP_NAME];

/** Claude Code's per-user file, where user-scope MCP servers live (`$CLAUDE_CONFIG_DIR/.claude.json` when that is set). */
export function claudeUserFile(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && isAbsolute(dir) ? join(dir, ".claude.json") : join(homeDir(env), ".claude.json");
}

type Entry = Record<string, unknown>;
export type Registered = { state: "absent" } | { state: "present"; entry: Entry } | { state: "unknown"; why: string };

// The file holds every project's history and grows with use; past this it is not read.
const MAX_CLAUDE_FILE = 64 << 20;

/** The user-scope entry named vault-memory, as Claude Code's file holds it now. */
export function registeredServer(env: NodeJS.ProcessEnv = process.env): Registered {
  const path = claudeUserFile(env);
  let text: string;
  try {
    text = readRegularFile(path, { maxBytes: MAX_CLAUDE_FILE }).toString("utf8");
  } catch (err) {
    if (err instanceof FileRefused && err.why === "missing") return { state: "absent" };
    return { state: "unknown", why: err instanceof Error ? err.message : String(err) };
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { state: "unknown", why: `${path} is not valid JSON` };
  }
  const servers = v && typeof v === "object" ? (v as Entry).mcpServers : undefined;
  const entry = servers && typeof servers === "object" ? (servers as Entry)[MCP_NAME] : undefined;
  return entry && typeof entry === "object" && !Array.isArray(entry) ? { state: "present", entry: entry as Entry } : { state: "absent" };
}

function runs(entry: Entry): { command: string; args: string[] } {
  return { command: typeof entry.command === "string" ? entry.command : "", args: Array.isArray(entry.args) ? entry.args.map(String) : [] };
}

/** Whether the entry runs exactly this target. */
export function sameServer(entry: Entry, t: McpTarget): boolean {
  const r = runs(entry);
  return (
    (entry.type === undefined || entry.type === "stdio") && r.command === t.node && JSON.stringify(r.args) === JSON.stringify([t.server, "--vault", t.vault])
  );
}

/** Whether the entry is this vault's server, whichever Node runs it: uninstall removes only that one. */
function thisVaultsServer(entry: Entry, t: McpTarget): boolean {
  const { args } = runs(entry);
  const at = args.indexOf("--vault");
  return args[0] === t.server || (at >= 0 && args[at + 1] === t.vault);
}

/** A command line the person can paste: POSIX shell quoting, or double quotes on Windows. */
export function shellLine(words: readonly string[], platform: Platform = process.platform as Platform): string {
  return words
    .map((w) => {
      if (/^[\w@%+=:,./-]+$/.test(w)) return w;
      return platform === "win32" ? `"${w.replace(/"/g, '\\"')}"` : `'${w.replace(/'/g, "'\\''")}'`;
    })
    .join(" ");
}

export interface McpPlan {
  /** What applying does: nothing; add; remove then add; remove. */
  action: "none" | "add" | "replace" | "remove";
  target: McpTarget;
  /** The claude binary that will run the commands, when found. */
  claude?: string;
  /** The entry there now, when one is. */
  current?: Entry;
  /** The `claude …` lines that make the change, to print when the CLI is not found or fails. */
  lines: string[];
  /** One or two sentences for the preview. */
  description: string;
}

function describeEntry(entry: Entry): string {
  const r = runs(entry);
  return r.command ? shellLine([r.command, ...r.args]) : JSON.stringify(entry);
}

/** What install or uninstall would do to the user-scope MCP server; reads, never writes. */
export function planMcp(mode: "install" | "uninstall", target: McpTarget, claude: string | undefined, env: NodeJS.ProcessEnv = process.env): McpPlan {
  const found = registeredServer(env);
  const current = found.state === "present" ? found.entry : undefined;
  const add = shellLine(["claude", ...mcpAddArgs(target)]);
  const remove = shellLine(["claude", ...MCP_REMOVE_ARGS]);
  const base = { target, claude, current };
  if (mode === "uninstall") {
    if (found.state === "unknown")
      return {
        ...base,
        action: "none",
        lines: [remove],
        description: `Cannot tell whether Claude Code has the MCP server ${MCP_NAME} (${found.why}); to remove it, run: ${remove}`,
      };
    if (!current) return { ...base, action: "none", lines: [], description: `Claude Code has no MCP server named ${MCP_NAME}.` };
    if (!thisVaultsServer(current, target))
      return {
        ...base,
        action: "none",
        lines: [],
        description: `The MCP server ${MCP_NAME} runs ${describeEntry(current)}, not this vault's; it is left as it is.`,
      };
    return { ...base, action: "remove", lines: [remove], description: `The MCP server ${MCP_NAME} would be removed from Claude Code's user scope: ${remove}` };
  }
  if (current && sameServer(current, target))
    return { ...base, action: "none", lines: [], description: `The MCP server ${MCP_NAME} is registered in Claude Code already.` };
  if (current) {
    return {
      ...base,
      action: "replace",
      lines: [remove, add],
      description: `The MCP server ${MCP_NAME} runs ${describeEntry(current)}; it would be replaced, at Claude Code's user scope, by: ${add}`,
    };
  }
  return {
    ...base,
    action: "add",
    lines: [add],
    description: `The MCP server ${MCP_NAME} (${MCP_TOOLS.join(", ")}) would be registered at Claude Code's user scope: ${add}`,
  };
}

export interface McpOutcome {
  /** done: the change is made; nothing: none was needed; manual: no CLI, the lines are printed; failed: the CLI refused or failed. */
  status: "done" | "nothing" | "manual" | "failed";
  message: string;
}

// `claude mcp add` answers in about a second; a CLI that waits on something else is not waited for.
const CLI_TIMEOUT_MS = 60_000;

/** Runs the plan's `claude mcp` commands, then reads Claude Code's file to see that they took. */
export async function applyMcp(plan: McpPlan, env: NodeJS.ProcessEnv = process.env): Promise<McpOutcome> {
  if (plan.action === "none") return { status: "nothing", message: plan.description };
  const byHand = plan.lines.map((l) => `  ${l}`).join("\n");
  if (!plan.claude)
    return {
      status: "manual",
      message: `Claude Code's CLI (claude) was not found on your PATH or your login shell's; to ${plan.action === "remove" ? "remove" : "register"} the MCP server ${MCP_NAME}, run:\n${byHand}`,
    };
  const steps =
    plan.action === "add" ? [mcpAddArgs(plan.target)] : plan.action === "remove" ? [[...MCP_REMOVE_ARGS]] : [[...MCP_REMOVE_ARGS], mcpAddArgs(plan.target)];
  for (const [i, args] of steps.entries()) {
    const r = await runCommand([plan.claude, ...args], "", { timeoutMs: CLI_TIMEOUT_MS, env, cwd: homeDir(env) });
    if (r.code !== 0 || r.timedOut) {
      const said = r.timedOut
        ? `no answer within ${CLI_TIMEOUT_MS / 1000} s`
        : ((r.stderr || r.stdout).split("\n").find((l) => l.trim() !== "") ?? `exit code ${r.code ?? "none"}`).trim().slice(0, 300);
      // Replacing: the old entry is gone once the first step succeeded, so say how to put it back.
      const restore =
        i > 0 && plan.current
          ? `\nThe previous server was removed; to put it back, run:\n  ${shellLine(["claude", "mcp", "add-json", "--scope", "user", MCP_NAME, JSON.stringify(plan.current)])}`
          : "";
      return {
        status: "failed",
        message: `claude ${args.slice(0, 2).join(" ")} failed: ${said}${restore}\nTo ${plan.action === "remove" ? "remove" : "register"} the MCP server by hand, run:\n${byHand}`,
      };
    }
  }
  const after = registeredServer(env);
  const took = plan.action === "remove" ? after.state === "absent" : after.state === "present" && sameServer(after.entry, plan.target);
  if (!took) {
    const why = after.state === "unknown" ? `${after.why} (Claude Code keeps backups of it in ~/.claude/backups/)` : `${claudeUserFile(env)} does not show it`;
    return { status: "failed", message: `claude said it ${plan.action === "remove" ? "removed" : "registered"} the MCP server ${MCP_NAME}, but ${why}.` };
  }
  return {
    status: "done",
    message:
      plan.action === "remove"
        ? `Removed the MCP server ${MCP_NAME} from Claude Code.`
        : `Registered the MCP server ${MCP_NAME} in Claude Code (user scope, every project).`,
  };
}
