/** The session brief through the SessionStart hook, as Claude Code runs it. */

import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vaultFiles } from "../../src/core/paths";
import { BRIEF_HEADER, NOTES_OPEN } from "../../src/core/text/recall-header";
import { SAMPLE_VAULT, hookJson, runBridge, tempDir } from "../helpers";

/** A git checkout named `name`, as the folder Claude Code runs in. */
function checkout(name: string): string {
  const dir = join(tempDir(), name);
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  return dir;
}

// The brief is held to 1,500 characters, absolute paths included: the vault sits at a path as
// short as a person's, so that what fits is what the brief chooses, not how deep the test's folder is.
function indexed(): string {
  const vault = join(tempDir("b"), "v");
  cpSync(SAMPLE_VAULT, vault, { recursive: true, filter: (p) => !p.includes(".vault-memory") });
  expect(runBridge(["index", "--vault", vault]).status).toBe(0);
  return vault;
}

function start(vault: string, cwd: string, source = "startup"): { forClaude: string; forPerson: string } {
  const r = runBridge(["remind", "--vault", vault], JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source, cwd }));
  expect(r.status).toBe(0);
  if (!r.stdout.trim()) return { forClaude: "", forPerson: "" };
  const out = JSON.parse(r.stdout) as { systemMessage?: string; hookSpecificOutput?: { hookEventName: string; additionalContext: string } };
  if (out.hookSpecificOutput) expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
  return { forClaude: out.hookSpecificOutput?.additionalContext ?? "", forPerson: out.systemMessage ?? "" };
}

describe("the session brief", () => {
  it("tells Claude what the memory holds for the project, never another project's cards", () => {
    const vault = indexed();
    const { forClaude, forPerson } = start(vault, checkout("vault-memory"));
    expect(forClaude.startsWith(`${NOTES_OPEN}\n${BRIEF_HEADER} holds 6 cards for the project vault-memory and`)).toBe(true);
    expect(forClaude).toContain(join(vault, "debugging", "launchd-cron-path.md"));
    expect(forClaude).toContain(join(vault, "user", "user-profile.md"));
    expect(forClaude).not.toContain("blog-site.md");
    expect(forClaude.length).toBeLessThanOrEqual(1500);
    // Nothing waits in the queue: the person is told nothing.
    expect(forPerson).toBe("");
  });

  it("puts first the cards recall printed most", () => {
    const vault = indexed();
    const cwd = checkout("vault-memory");
    for (let i = 0; i < 3; i++)
      expect(runBridge(["recall", "--vault", vault], hookJson("why does the windows task scheduler timeout command hang", { cwd })).stdout).toContain(
        "windows-timeout-command.md",
      );
    expect(start(vault, cwd).forClaude.split("\n")[2]).toContain("windows-timeout-command.md");
  });

  it("is not given again to a resumed session, nor when turned off", () => {
    const vault = indexed();
    const cwd = checkout("vault-memory");
    expect(start(vault, cwd, "resume").forClaude).toBe("");
    writeFileSync(vaultFiles.config(vault), JSON.stringify({ brief: { enabled: false } }));
    expect(start(vault, cwd).forClaude).toBe("");
  });

  it("says nothing, and logs why, when the snapshot cannot be read", () => {
    const vault = indexed();
    // A folder where the snapshot goes: the session start leaves it alone, and the hook still answers.
    rmSync(vaultFiles.snapshot(vault));
    mkdirSync(vaultFiles.snapshot(vault));
    expect(start(vault, checkout("vault-memory")).forClaude).toBe("");
    expect(readFileSync(vaultFiles.log(vault), "utf8")).toMatch(/no session brief: /);
  });
});

describe("after a compaction or /clear", () => {
  it.each(["compact", "clear"])("gives the brief again, and a card shown before it may be shown again (%s)", (source) => {
    const vault = indexed();
    const cwd = checkout("vault-memory");
    const ask = (): string => runBridge(["recall", "--vault", vault], hookJson("为什么排程跑不起来", { session_id: "s", cwd })).stdout;
    expect(ask()).toContain("launchd-cron-path.md");
    // Once a session: the conversation already holds it.
    expect(ask()).not.toContain("launchd-cron-path.md");
    // A resume replays the conversation, the card with it: still shown once.
    start(vault, cwd, "resume");
    expect(ask()).not.toContain("launchd-cron-path.md");
    // The summary a compaction leaves does not hold the card: it may come again, and so does the brief.
    const { forClaude } = start(vault, cwd, source);
    expect(forClaude.startsWith(`${NOTES_OPEN}\n${BRIEF_HEADER}`)).toBe(true);
    expect(ask()).toContain("launchd-cron-path.md");
  });
});
