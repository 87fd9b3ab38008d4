/** What each command takes, as `--help` and a refused command line print it. */

import { flagsOf } from "./args";
import { MCP_TOOLS } from "../../src/core/install/mcp-tools";

export const USAGE = `usage: vault-memory <command> --vault DIR [options]

commands:
  index    build the recall snapshot from the vault's notes [--changed] [--embed-budget-sec N]
  recall   UserPromptSubmit hook: read hook JSON on stdin, print matched cards
           [--max-cards N] [--min-score N] [--max-chars N] [--deadline-ms N]
  queue    Stop hook: queue the session for the digest when it is worth keeping
  remember queue the session now, marked as wanted (for "remember this")
  remind   SessionStart hook: one line when conversations wait in the queue
  lint     check the vault's health [--json]; exits 1 when there are errors
  digest   turn the queue into cards with the LLM command, then tidy, commit and report
           [--dry-run] [--limit N] [--only ID,ID] [--json] [--config -]
           [--if-due HH:MM]: only when the night at HH:MM has not run yet and conversations wait;
           mails the report when this computer's settings name an SMTP server (digest.mail)
  enrich   write recall hints (the questions each card answers) with the LLM command, for
           cards that have none or changed since [--dry-run] [--limit N]
  embed    semantic recall: embed the cards that changed, for the snapshot on disk [--config -]
           [--embed-budget-sec N]
  trust    use on this computer the program and server the vault's config.json names:
           shows them, copies them to the per-user settings file with --yes
  install  connect the hooks in ~/.claude/settings.json and register the MCP server with
           \`claude mcp add --scope user\` [--settings FILE] [--yes]
  uninstall remove exactly those hooks and this vault's MCP server again [--settings FILE] [--yes]
  schedule run the nightly digest from this computer's scheduler, without Obsidian:
           install [--at HH:MM] [--platform linux|macos|windows|cron] [--dry-run] [--yes]: a
           systemd user timer (Linux), a launchd agent (macOS), a Task Scheduler task (Windows)
           or a crontab line, catching up a missed night; remove [--yes]: disable it and move
           it aside; status: is it installed, when did the digest last run and how did it end,
           when is the next run
  sync     share the vault with your other computers through its git remote: commit here,
           merge theirs (a note changed on both kept twice when it cannot be merged), push
           [--dry-run] [--force]: sync though more than 30 files would be deleted; [--json]: one
           JSON object a line, progress, then the report; with sync.enabled in this computer's
           settings, also around each night and at session start
  import   queue the Claude Code sessions from before the install that are worth keeping, newest
           first, for the digest to take after each day's own [--from FOLDER] (default
           ~/.claude/projects) [--since YYYY-MM-DD] [--project NAME] [--dry-run] [--json]
  status   what waits in the queue (imported sessions apart), the snapshot, the last digest and
           the last sync [--json]
  consolidate merge fragment cards on one subject into one with the digest's LLM command; the
           others get status merged and a link to it [--dry-run] [--propose]: for review in
           Obsidian's queue sidebar, not made
  restore  give an archived card back to recall: remove its status, archived date and reason
           --card PATH
  mcp      MCP server over stdio: ${MCP_TOOLS.join(", ")} (runs until stdin closes)

Settings that run a program or name a server come from this computer only:
  ~/.config/vault-memory/config.json (or $XDG_CONFIG_HOME/vault-memory/config.json), or --config FILE.
`;

/** The lines of USAGE for one command, and the flags it takes. */
export function commandUsage(command: string): string {
  const lines = USAGE.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`  ${command} `));
  const own: string[] = [];
  // The command's line, then the lines indented under it.
  if (at >= 0) for (let i = at; i < lines.length && (i === at || lines[i].startsWith("           ")); i++) own.push(lines[i]);
  const flags = (flagsOf(command) ?? []).map((f) => `--${f}`).join(" ");
  return `usage: vault-memory ${command} [flags]\n${own.join("\n")}\nflags: ${flags} --help\n`;
}
