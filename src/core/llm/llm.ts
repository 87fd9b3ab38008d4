/** The LLM command the digest and enrich share: which binary, which flags, and what a failed call means. */

import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import type { CommandResult } from "./run-command";
import { commandProblem } from "../io/program-path";

/** The settings that name the LLM command: the digest's, which enrich uses too. */
export interface LlmSettings {
  binary: string;
  command: readonly string[];
  model: string;
}

// The answer is data to be checked before anything is written, so the model gets nothing to act
// with, whatever the person's own Claude Code settings allow (a defaultMode of acceptEdits or
// bypassPermissions let an answer write cards past every check). Each flag was tried against the
// real CLI: no built-in tools; no MCP servers (none are given, and strict ignores all others);
// only the person's user settings, so a vault's own .claude/ (hooks, an apiKeyHelper) never
// runs; no hooks, or Vault Memory's own would recall into and queue from its own digest; and
// nothing approved without asking, should a tool ever be offered again. Nor is the call saved as
// a session: it would sit in the person's `claude --resume` list and keep a second copy of every
// queued conversation under ~/.claude.
const CLAUDE_FLAGS = [
  "--tools",
  "",
  "--strict-mcp-config",
  "--setting-sources",
  "user",
  "--settings",
  '{"disableAllHooks":true}',
  "--permission-mode",
  "dontAsk",
  "--no-session-persistence",
];

// A person's flag that would add back what CLAUDE_FLAGS takes away: the CLI adds repeated --tools
// and --mcp-config together rather than keeping the last, and the others would fight ours.
const REFUSED_FLAGS = [
  "--tools",
  "--allowedTools",
  "--allowed-tools",
  "--mcp-config",
  "--settings",
  "--setting-sources",
  "--permission-mode",
  "--dangerously-skip-permissions",
  "--allow-dangerously-skip-permissions",
  "--plugin-dir",
  "--plugin-url",
];

/** Whether a binary is Claude Code, by its name (claude, claude.exe, claude.cmd). */
export function isClaude(binary: string): boolean {
  return /^claude(\.(exe|cmd|bat))?$/i.test(basename(binary.replace(/\\/g, "/")));
}

/**
 * The full command line for the LLM: the person's command with its binary resolved, their model,
 * and, when the binary is Claude Code, the flags that leave the model nothing to act with. A
 * custom command that is not claude is run as configured. Throws when the person's flags would
 * undo ours.
 */
export function llmCommand(binary: string, command: readonly string[], model: string): string[] {
  const args = command.slice(1);
  // The binary setting may point at a wrapper of any name while the command still says claude.
  const claude = isClaude(binary) || isClaude(command[0]);
  if (claude) {
    const bad = args.find((a) => REFUSED_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)));
    if (bad)
      throw new Error(
        `the digest's LLM command must not set ${bad.split("=")[0]}: the digest runs claude without tools, MCP servers or hooks, and adds its own flags for that`,
      );
  }
  return [binary, ...args, ...(model ? ["--model", model] : []), ...(claude ? CLAUDE_FLAGS : [])];
}

/**
 * The command line the settings ask for, or why there is none: the digest and enrich stop on the
 * same missing binary and the same refused flags, with the same words.
 */
export function settingsCommand(settings: LlmSettings, env?: NodeJS.ProcessEnv, vault?: string): { command: string[] } | { error: string } {
  // A binary the person set is checked like a found one: used as given, a missing one failed
  // every entry one by one while the run still reported success.
  const binary = resolveBinary(settings.binary || settings.command[0], env);
  if (!binary) {
    return {
      error: settings.binary
        ? `the LLM binary "${settings.binary}" set in the digest settings does not exist or is not executable`
        : `cannot find "${settings.command[0]}" on the login shell's PATH; set the LLM command's absolute path in the digest settings`,
    };
  }
  try {
    const command = llmCommand(binary, settings.command, settings.model);
    // Whoever can write the vault must not choose what runs as the person every night.
    const why = vault ? commandProblem(command, vault, env) : "";
    if (why) return { error: `the LLM command is not run: ${why}; put the program outside the vault, in a folder only you can write` };
    return { command };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Finds the LLM binary: as configured if absolute, else on this process's PATH, else on the
 * login shell's PATH. A scheduler (launchd, Task Scheduler, a GUI-launched Obsidian) gets a much
 * shorter PATH than a terminal, which is why nightly runs used to fail silently.
 */
export function resolveBinary(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (isAbsolute(name)) return isExecutable(name) ? name : undefined;
  const exts = process.platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) if (isExecutable(join(dir, name + ext))) return join(dir, name + ext);
  }
  if (process.platform === "win32") return undefined;
  const shell = env.SHELL && isAbsolute(env.SHELL) ? env.SHELL : "/bin/sh";
  // The name as a positional parameter, never inside the script: "$(…)" in it must not run.
  const r = spawnSync(shell, ["-lc", 'command -v "$1"', "sh", name], { encoding: "utf8", timeout: 10_000, env });
  const found = r.stdout?.trim().split("\n").pop() ?? "";
  return isAbsolute(found) && isExecutable(found) ? found : undefined;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a failed call looks like from here. Quota, authentication and connection failures end the
 * run, and so does a call that got no answer at all in its time: every later call would fail the
 * same way, each after the CLI's own retries (about three minutes a call with the API
 * unreachable), and a night that waits out each of them reports nothing for hours. A call the
 * run's own signal stopped ends it too: the run was asked to stop.
 */
export type FailureKind = "quota" | "auth" | "connection" | "timeout" | "stopped" | "other";

/** Whether a failure of this kind ends the night rather than only its entry. */
export function endsRun(kind: FailureKind): boolean {
  return kind === "quota" || kind === "auth" || kind === "connection" || kind === "timeout" || kind === "stopped";
}

/** What the claude CLI's JSON says of a turn that failed: its message, and the API's status and error. */
export interface CliError {
  message: string;
  status?: number;
  error?: string;
}

/**
 * The failure `claude -p --output-format json` reports on stdout (`is_error`, `api_error_status`,
 * `api_error`, `result`), or undefined when stdout is not such a result. The CLI exits 0 for some
 * of them, and its raw JSON, cut to a few hundred characters, ended before the message.
 */
export function cliError(stdout: string): CliError | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{") || !text.includes('"is_error"')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== "object") return undefined;
  const o = v as Record<string, unknown>;
  if (o.type !== "result" || o.is_error !== true) return undefined;
  const firstLine = (typeof o.result === "string" ? o.result : "").trim().split("\n")[0].slice(0, 200);
  return {
    message: firstLine || (typeof o.subtype === "string" ? o.subtype : "the call failed"),
    ...(typeof o.api_error_status === "number" ? { status: o.api_error_status } : {}),
    ...(typeof o.api_error === "string" ? { error: o.api_error } : {}),
  };
}

/** Whether the call failed: no answer in time or before a stop, a non-zero exit, or a result the CLI marks as an error. */
export function callFailed(r: CommandResult): boolean {
  return r.timedOut || r.stopped === true || r.code !== 0 || cliError(r.stdout) !== undefined;
}

export function classifyFailure(r: CommandResult): FailureKind {
  if (r.timedOut) return "timeout";
  if (r.stopped) return "stopped";
  const cli = cliError(r.stdout);
  if (cli?.status === 401 || cli?.status === 403) return "auth";
  if (cli?.status === 429 || cli?.status === 529) return "quota";
  const text = `${r.stderr}\n${cli ? `${cli.error ?? ""} ${cli.message}` : r.stdout}`.toLowerCase();
  if (/rate.?limit|quota|usage limit|credit balance|too many requests|\b429\b|overloaded|limit reached/.test(text)) return "quota";
  if (/unauthori[sz]ed|authentication|invalid (?:x-)?api.?key|\b401\b|\b403\b|please run \/login|not logged in|oauth/.test(text)) return "auth";
  if (
    /connection_failed|econnrefused|enotfound|etimedout|econnreset|eai_again|connection (?:refused|error|failed|reset)|network is unreachable|unable to connect|getaddrinfo/.test(
      text,
    )
  )
    return "connection";
  return "other";
}

/** One readable line for a failed call: what kind, and what the CLI or the command said. */
export function failureReason(r: CommandResult, timeoutSec: number): string {
  const kind = classifyFailure(r);
  if (kind === "timeout") return `no answer within ${timeoutSec} s`;
  if (kind === "stopped") return "no answer before the run was stopped";
  const cli = cliError(r.stdout);
  const said = cli
    ? `${cli.message}${cli.status ? ` (HTTP ${cli.status})` : ""}`
    : ((r.stderr || r.stdout).split("\n").find((l) => l.trim() !== "") ?? `exit code ${r.code ?? "none"}`).trim().slice(0, 300);
  const label = kind === "connection" ? "cannot reach the API" : kind === "other" ? `the LLM command failed (exit ${r.code ?? "none"})` : kind;
  return `${label}: ${said}`;
}
