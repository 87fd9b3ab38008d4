/** The LLM command: which binary, and what a failed call means. */

import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { CommandResult } from "./run-command";

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
  const r = spawnSync(shell, ["-lc", `command -v ${JSON.stringify(name)}`], { encoding: "utf8", timeout: 10_000, env });
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

/** What a failed call looks like from here: the run stops on quota and authentication failures. */
export type FailureKind = "quota" | "auth" | "timeout" | "other";

export function classifyFailure(r: CommandResult): FailureKind {
  if (r.timedOut) return "timeout";
  const text = `${r.stderr}\n${r.stdout}`.toLowerCase();
  if (/rate.?limit|quota|usage limit|credit balance|too many requests|\b429\b|overloaded|limit reached/.test(text)) return "quota";
  if (/unauthori[sz]ed|authentication|invalid (?:x-)?api.?key|\b401\b|\b403\b|please run \/login|not logged in|oauth/.test(text)) return "auth";
  return "other";
}
