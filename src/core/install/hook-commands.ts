/** The hook commands install writes into Claude Code's settings, for each platform. */

export type Platform = "darwin" | "linux" | "win32";

export interface HookSpec {
  event: "UserPromptSubmit" | "Stop" | "SessionStart" | "PreCompact" | "PostToolUseFailure";
  command: "recall" | "queue" | "remind";
  timeout: number;
  matcher?: string;
}

export const OUR_HOOKS: readonly HookSpec[] = [
  { event: "UserPromptSubmit", command: "recall", timeout: 10 },
  // A command Claude ran failed: the cards its error's words find, as for a prompt.
  { event: "PostToolUseFailure", command: "recall", timeout: 10 },
  { event: "Stop", command: "queue", timeout: 30 },
  // Before a compaction drops the conversation so far, it is queued as at a turn's end.
  { event: "PreCompact", command: "queue", timeout: 30 },
  // compact and clear too: the brief is given again, and cards shown before may be shown again.
  { event: "SessionStart", command: "remind", timeout: 10, matcher: "startup|resume|compact|clear" },
];

/** The bridge's entry, which hooks run. */
export const BRIDGE_FILE = "vault-memory.cjs";
/**
 * The mail sender's bundle (nodemailer), which the digest loads only when it mails its report: in
 * every copy of the bridge, since the digest runs from any of them (Obsidian's, install's, cron's).
 */
export const MAIL_FILE = "vault-memory-mail.cjs";
/**
 * Every file of a bridge copy, in the order they are written: the entry last, so no hook runs a
 * copy that is half there. `vault-memory.mjs` is the entry of earlier releases, kept for hooks
 * installed by them. The build writes the same list (esbuild.config.mjs); a test holds them together.
 */
export const BRIDGE_FILES = [
  MAIL_FILE,
  "vault-memory-commands.cjs",
  "vault-memory-semantic.cjs",
  "vault-memory-scoring.cjs",
  "vault-memory-recall.cjs",
  "vault-memory.mjs",
  BRIDGE_FILE,
] as const;
/**
 * The MCP server's bundle, copied beside the bridge by install and Connect Claude Code and run by
 * Claude Code as `node <it> --vault DIR`. Apart from BRIDGE_FILES: no hook runs it, and Obsidian's
 * copy of the bridge for the digest does without it.
 */
export const MCP_SERVER_FILE = "vault-memory-mcp.cjs";
// Marks our entries, so uninstall removes exactly them and install finds its old ones, under either entry name.
const OUR_ENTRY = /vault-memory\.[cm]js/;

/**
 * A shell-form command line. Claude Code runs these through `sh -c`, and on Windows through Git
 * Bash, so paths use forward slashes and double quotes there too.
 */
export function hookCommand(platform: Platform, node: string, bridge: string, sub: string, vault: string): string {
  const q = (p: string): string => `"${(platform === "win32" ? p.replace(/\\/g, "/") : p).replace(/(["\\$`])/g, "\\$1")}"`;
  return `${q(node)} ${q(bridge)} ${sub} --vault ${q(vault)}`;
}

/** Whether a settings hook entry is ours: it runs our bridge file. */
export function isOurCommand(command: unknown): boolean {
  return typeof command === "string" && OUR_ENTRY.test(command) && /\s(recall|queue|remind)\s+--vault\s/.test(command);
}
