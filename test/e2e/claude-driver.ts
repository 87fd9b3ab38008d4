/** Runs the real Claude Code CLI in a temporary HOME against the Messages API stand-in. */

import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BRIDGE, stopResidentServers, tempDir } from "../helpers";
import { findClaude } from "./claude-bin";
import { OUR_HOOKS } from "../../src/core/install/hook-commands";
import { startStub, type Stub } from "./messages-stub";

const found = findClaude();
/** The CLI the tests drive: CLAUDE_BIN, else the copy `npm run fetch-claude` keeps (see claude-bin.ts). */
export const CLAUDE = found.bin;
export const claudeAvailable = found.ok;

export interface ClaudeRig {
  stub: Stub;
  home: string;
  project: string;
  run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export interface RigOptions {
  /** Arguments before every run's own, e.g. --plugin-dir. */
  args?: string[];
  /** Only these events' hooks (all of OUR_HOOKS' for the commands asked for, by default). */
  events?: string[];
  /** Extra keys for the HOME's settings.json, e.g. env. */
  settings?: Record<string, unknown>;
}

/** A HOME whose settings register the bridge's hooks for `vault`, and a git project to work in. */
export async function claudeRig(
  vault: string,
  hooks: ("recall" | "queue" | "remind")[] = ["recall", "queue", "remind"],
  opts: RigOptions = {},
): Promise<ClaudeRig> {
  const stub = await startStub();
  const home = tempDir("vm-home-");
  // Named as the sample vault's main project, whose cards the tests' prompts are about: another
  // project's cards are not shown (see recall's project scope).
  const project = join(tempDir(), "vault-memory");
  mkdirSync(join(project, ".git"), { recursive: true });
  writeFileSync(join(project, ".git", "HEAD"), "ref: refs/heads/feature-x\n");
  const hook = (command: string, timeout: number) => ({ type: "command", command: `"${process.execPath}" "${BRIDGE}" ${command} --vault "${vault}"`, timeout });
  const settings: Record<string, unknown[]> = {};
  // The hooks install registers (OUR_HOOKS), those of the commands asked for; recall with a
  // deadline no busy machine reaches: the hook's own 2 s is tested elsewhere.
  for (const spec of OUR_HOOKS.filter((h) => hooks.includes(h.command) && (!opts.events || opts.events.includes(h.event)))) {
    const command = spec.command === "recall" ? "recall --deadline-ms 600000" : spec.command;
    const timeout = spec.command === "recall" ? 60 : spec.timeout;
    settings[spec.event] = [{ ...(spec.matcher ? { matcher: spec.matcher } : {}), hooks: [hook(command, timeout)] }];
  }
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ ...opts.settings, ...(hooks.length > 0 ? { hooks: settings } : {}) }));
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(CLAUDE, [...(opts.args ?? []), ...args], {
        cwd: project,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          TMPDIR: process.env.TMPDIR,
          ANTHROPIC_BASE_URL: stub.url,
          ANTHROPIC_API_KEY: "test-key-not-real",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_AUTOUPDATER: "1",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  // The hooks run with the resident recall server on, as a person's do: the first recall of a
  // run starts one in the HOME's cache folder, and later hooks are answered by it.
  const close = async (): Promise<void> => {
    await stopResidentServers(join(home, ".cache", "vault-memory"));
    await stub.close();
  };
  return { stub, home, project, run, close };
}
