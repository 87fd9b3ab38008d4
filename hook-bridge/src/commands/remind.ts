/**
 * `remind`: the SessionStart hook. For Claude, the session brief: what the memory holds for the
 * project. For the person, one short line when conversations wait in the queue. And a snapshot
 * that recall cannot use (missing, damaged, or written by an older release) is rebuilt, so recall
 * does not stay silent until Obsidian next opens.
 */

import { writeSync } from "node:fs";
import { join } from "node:path";
import { cacheName, privateCacheDir } from "../code-cache";
import { writeFileAtomic } from "../../../src/core/io/atomic";
import { readRegularFile } from "../../../src/core/io/read-file";
import { readHookInput, str } from "../hook-input";
import { bridgeEntry, freshen } from "../freshen";
import { startSync } from "../background-sync";
import { forgetSeen } from "../../../src/core/recall/session-store";
import { recentUsageText } from "../../../src/core/recall/usage-log";
import { briefCardsOf, sessionBrief, usageCounts, type BriefCard } from "../../../src/core/recall/brief";
import { resolveProject } from "../../../src/core/project";
import type { DocInfo } from "../../../src/core/index/postings";
import { existsSync } from "node:fs";
import { loadSettings } from "../settings";
import { ignoredMessage } from "../../../src/core/config";
import { escapeControl } from "../../../src/core/text/visible";
import { stringFlag, type Args } from "../args";
import { findVault } from "../vault";
import { adviceFor, hookJson, logWithoutVault } from "../no-vault";
import { appendLog } from "../../../src/core/io/log";
import { vaultFiles } from "../../../src/core/paths";
import { listPending } from "../../../src/core/queue/queue-store";
import { readDigestStatus } from "../../../src/core/digest/status";
import { loadVaultConfig, recallRulesOf, type VaultMemoryConfig } from "../../../src/core/config";
import { buildIndexFromDisk } from "../../../src/core/index/build-from-disk";
import { SnapshotError, SnapshotReader, type SnapshotProblem } from "../../../src/core/snapshot/read";
import { listNotes } from "../../../src/core/vault/scan";
import { writeSnapshot } from "../../../src/core/snapshot/write";
import { snapshotDamage } from "../../../src/core/snapshot/damage";
import { embedVault } from "../../../src/core/embed/embed-vault";
import { NoteCache } from "../../../src/core/vault/note-cache";
import { skippedLine } from "../skipped";

export async function remindCommand(args: Args, now = new Date()): Promise<number> {
  let logPath = "";
  try {
    const found = findVault(args);
    if ("problem" in found) {
      // The one hook that may speak to the person: every other hook stays silent without a vault,
      // so this line is the only way anyone learns why nothing is recalled or kept.
      logWithoutVault("remind", found);
      writeSync(1, hookJson("SessionStart", adviceFor(found)) + "\n");
      return 0;
    }
    const vault = found.vault;
    logPath = vaultFiles.log(vault);
    const log = logPath;
    const payload = readHookInput() ?? {};
    try {
      await repairSnapshot(vault, (message) => appendLog(log, "remind", message), stringFlag(args, "config"));
    } catch (err) {
      // A failed repair must not cost the person the reminder.
      appendLog(log, "remind", `could not rebuild the recall snapshot: ${err instanceof Error ? err.message : String(err)}`);
    }
    // Cards written since the snapshot (by Claude's Write tool, an editor, a pull or a sync) are
    // recalled from this session's first prompt on, or an index is started for them.
    let indexing = "";
    const config = loadSettings(vault, args, (p) => appendLog(log, "remind", `config: ${p}`), false).config;
    try {
      indexing = freshen(vault, config, (m) => appendLog(log, "remind", m), bridgeEntry(), stringFlag(args, "config")).notice;
    } catch (err) {
      appendLog(log, "remind", `could not bring the snapshot up to date: ${err instanceof Error ? err.message : String(err)}`);
    }
    // The other computers' cards, pulled in a process of its own (this computer's settings turn it on).
    if (config.sync.enabled) {
      try {
        const started = startSync(vault, bridgeEntry(), stringFlag(args, "config"));
        if (started) appendLog(log, "remind", started);
      } catch (err) {
        appendLog(log, "remind", `could not start a sync: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    // The queue is the person's to review, not Claude's to act on: a systemMessage shows it to the
    // person and keeps it out of the conversation (plain stdout would be context for Claude).
    const text = [reminder(vault, now), indexing, settingsNotice(vault, args, (m) => appendLog(log, "remind", m)), refusedNotice(vault)]
      .filter(Boolean)
      .join("\n");
    // A resumed session has its first brief in the history it replays.
    const source = str(payload, "source");
    // After a compaction or /clear the conversation has lost the cards shown so far: each may be
    // recalled again, and the brief is given again, as at a session's start.
    if (source === "compact" || source === "clear") forgetSeen(vaultFiles.sessions(vault), str(payload, "session_id"));
    const brief = source === "resume" ? "" : briefFor(vault, str(payload, "cwd"), config, (m) => appendLog(log, "remind", m));
    if (text || brief) writeSync(1, hookJson("SessionStart", text, brief) + "\n");
  } catch (err) {
    if (logPath) appendLog(logPath, "remind", err instanceof Error ? err.message : String(err));
  }
  return 0;
}

// SessionStart waits for the hook, so a rebuild here must stay short: past this many notes the
// log asks for the index command (or Obsidian) instead.
const MAX_REPAIR_NOTES = 2000;

/**
 * Rebuilds the snapshot when recall could not use it: missing, cut short, unreadable as JSON, or
 * written by an older release. One written by a newer release (Obsidian and Claude Code updated
 * the bridge at different times) is left for that release, or the two would take turns rewriting
 * it; so is a file that is not a snapshot at all. Only the header and size are read, not the whole
 * file, and the note a recall leaves when a segment it read was damaged.
 */
export async function repairSnapshot(vault: string, log: (message: string) => void, configFlag?: string): Promise<void> {
  const path = vaultFiles.snapshot(vault);
  let problem: SnapshotProblem;
  try {
    SnapshotReader.open(path).close();
    const damage = snapshotDamage(vault, path);
    if (damage === undefined) return;
    problem = "corrupt";
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
    if (err.newer) return;
    problem = err.problem;
  }
  if (problem === "not-a-snapshot" || problem === "unreadable") return;
  const config = loadVaultConfig(vault, configFlag ? { userFile: configFlag } : {}).config;
  const notes = listNotes(vault, config).length;
  if (notes > MAX_REPAIR_NOTES) {
    log(`the recall snapshot needs rebuilding (${problem}); ${notes} notes is too many for a session start: open Obsidian or run the index command`);
    return;
  }
  const started = performance.now();
  const notesRead = config.embed.enabled ? new NoteCache(vault) : undefined;
  const { index, failed, scan } = buildIndexFromDisk(vault, config, undefined, notesRead);
  for (const f of failed) log(skippedLine(f).trimEnd());
  const header = writeSnapshot(path, index, recallRulesOf(config), new Date(), scan);
  log(`rebuilt the recall snapshot (${problem}): ${index.docCount} cards in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  // The old vectors were another snapshot's. New ones from the cache alone: a session start
  // waits on no server, and a card the cache lacks is found by its words until the next index.
  if (notesRead) log((await embedVault(vault, config, header.headerSum ?? "", { notes: notesRead, offline: true })).summary);
}

// Recent use says most of which cards matter; a log of months need not be read for it.
const MAX_USAGE_BYTES = 1 << 20;

/**
 * The session brief for a session started in `cwd`, or "" when it is turned off, the memory holds
 * nothing for the session, or the snapshot cannot be read (the reason logged).
 */
function briefFor(vault: string, cwd: string, config: VaultMemoryConfig, log: (m: string) => void): string {
  if (!config.brief.enabled) return "";
  let reader: SnapshotReader;
  try {
    reader = SnapshotReader.open(vaultFiles.snapshot(vault));
  } catch (err) {
    log(`no session brief: ${err instanceof Error ? err.message : String(err)}`);
    return "";
  }
  try {
    let uses = new Map<string, number>();
    try {
      uses = usageCounts(recentUsageText(vaultFiles.usageLog(vault), MAX_USAGE_BYTES));
    } catch {
      /* no recall yet: every card is as used as any other */
    }
    // A card deleted since the snapshot was written is not offered (recall passes over it too).
    return sessionBrief(briefCards(reader, uses), {
      project: resolveProject(cwd),
      vaultRoot: vault,
      maxChars: config.brief.maxChars,
      exists: (path) => existsSync(join(vault, path)),
    });
  } finally {
    reader.close();
  }
}

/**
 * Every live card for the brief: from the snapshot's catalog, each row read only if the brief
 * names its card; from the rows themselves for a snapshot written without a catalog.
 */
function briefCards(reader: SnapshotReader, uses: ReadonlyMap<string, number>): BriefCard[] {
  const catalog = reader.catalog();
  if (!catalog) {
    const cards: DocInfo[] = [];
    for (let id = 0; id < reader.idLimit; id++) {
      const card = reader.doc(id);
      if (card) cards.push(card);
    }
    return briefCardsOf(cards, uses);
  }
  return catalog.map((c) => ({
    project: c.project,
    type: c.type,
    updated: c.updated,
    uses: uses.get(c.path) ?? 0,
    row: () => reader.doc(c.id),
  }));
}

/**
 * Once on this computer for each set of them: the vault's own settings for what runs and where
 * text goes that are not used here, and how to use them. The person upgrading from a release that
 * read them from the vault learns it here, rather than from a digest that behaves differently.
 */
function settingsNotice(vault: string, args: Args, log: (m: string) => void): string {
  const message = ignoredMessage(
    vault,
    loadSettings(vault, args, (p) => log(`config: ${p}`), false),
  );
  if (!message) return "";
  // Kept in the person's own cache folder, read without following a link or blocking.
  const dir = privateCacheDir();
  const marker = dir ? join(dir, cacheName(join(vault, "settings-noticed"))) : "";
  try {
    if (marker && readRegularFile(marker, { maxBytes: 1 << 16, noFollow: true }).toString("utf8") === message) return "";
  } catch {
    /* not said yet */
  }
  try {
    if (marker) writeFileAtomic(marker, message, { mode: 0o600 });
  } catch {
    // Said at every start, then, rather than never.
  }
  return `Vault Memory: ${message}.`;
}

/**
 * Once for each refusal: a hook that was given a command line it does not take (a flag mistyped
 * in settings.json) did nothing and printed nothing, as hooks must; the person hears of it here.
 */
function refusedNotice(vault: string): string {
  let refused: string;
  try {
    refused = readRegularFile(vaultFiles.refusedHook(vault), { maxBytes: 1 << 12, noFollow: true })
      .toString("utf8")
      .trim();
  } catch {
    return "";
  }
  const dir = privateCacheDir();
  const marker = dir ? join(dir, cacheName(join(vault, "refused-noticed"))) : "";
  try {
    if (!refused || (marker && readRegularFile(marker, { maxBytes: 1 << 12, noFollow: true }).toString("utf8") === refused)) return "";
  } catch {
    /* not said yet */
  }
  try {
    if (marker) writeFileAtomic(marker, refused, { mode: 0o600 });
  } catch {
    // Said at every start, then, rather than never.
  }
  return `Vault Memory: a hook was given a command line it does not take and did nothing (${escapeControl(refused)}); fix its entry in Claude Code's settings, or run install again.`;
}

export function reminder(vault: string, now: Date): string {
  const pending = listPending(vault);
  if (pending.length === 0) return "";
  const live = pending.filter((e) => !e.imported);
  const imported = pending.length - live.length;
  const status = readDigestStatus(vault);
  // A backlog of imported sessions takes the digest weeks: said at every start while the digest
  // runs well, it would be noise. It is said with the day's own, or when the digest is not running.
  const runsWell = status?.ok === true && !!status.finishedAt && now.getTime() - Date.parse(status.finishedAt) < 48 * 3_600_000;
  if (live.length === 0 && runsWell) return "";
  const last = !status?.finishedAt
    ? "the nightly digest has not run yet"
    : status.ok
      ? `the nightly digest last ran ${ago(status.finishedAt, now)}${status.failed ? ` and could not file ${status.failed} conversation${status.failed === 1 ? "" : "s"} (see its report in meta/digest)` : ""}`
      : `the nightly digest failed ${ago(status.finishedAt, now)}${status.error ? ` (${escapeControl(status.error.slice(0, 80))})` : ""}`;
  const more = imported > 0 ? `, and ${imported} imported from before the install` : "";
  if (live.length === 0)
    return `Vault Memory: ${imported} session${imported === 1 ? "" : "s"} imported from before the install wait${imported === 1 ? "s" : ""} to become cards; ${last}.`;
  const n = live.length;
  return `Vault Memory: ${n} conversation${n === 1 ? "" : "s"} wait${n === 1 ? "s" : ""} to become cards (oldest queued ${ago(live[0].queuedAt, now)})${more}; ${last}.`;
}

function ago(iso: string, now: Date): string {
  const ms = now.getTime() - new Date(iso).getTime();
  if (!Number.isFinite(ms)) return "at an unknown time";
  const h = Math.round(ms / 3_600_000);
  if (h < 1) return "less than an hour ago";
  if (h < 48) return `${h} hour${h === 1 ? "" : "s"} ago`;
  return `${Math.round(h / 24)} days ago`;
}
