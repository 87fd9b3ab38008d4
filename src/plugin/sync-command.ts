/** "Sync memory now", and a sync every few minutes while Obsidian is open: the bridge's `sync` in a process of its own. */

import { SingleRun } from "./notice-run";
import type { VaultMemoryConfig } from "../core/config";
import { runSyncChild, SYNC_CHILD_TIMEOUT_MS } from "../core/sync/child";
import { reportLines } from "../core/sync/report";
import { syncDue, type SyncReport } from "../core/sync/sync";
import type { BridgeRunner } from "./digest-scheduler";

// A notice names this many conflicts and merges at most; the rest are counted.
const MAX_NOTICE_LINES = 6;
// What needs reading (a conflict, a reason it stopped) stays longer than Obsidian's few seconds.
const READ_MS = 20_000;

/**
 * The sync talks to a remote and may wait on it for minutes: it runs as the bridge's own command,
 * the window only reading its lines. One at a time; the bridge's lock keeps it apart from the
 * digest's and a session start's syncs too. A sync past its deadline is killed with the git it
 * started (core/sync/child.ts).
 */
export class SyncRunner {
  private readonly single = new SingleRun();
  /** The timer's last sync failed and that was said: the next failures are only logged, until one succeeds. */
  private failing = false;

  constructor(
    private readonly vaultPath: string,
    private readonly config: () => VaultMemoryConfig,
    private readonly runner: () => BridgeRunner,
    private readonly log: (line: string) => void,
    private readonly timeoutMs = SYNC_CHILD_TIMEOUT_MS,
  ) {}

  get isRunning(): boolean {
    return this.single.busy;
  }

  /** Syncs now, with its progress and outcome in notices: the command palette's "Sync memory now". */
  run(): Promise<SyncReport | undefined> {
    return this.single.start({
      name: "sync",
      work: (progress) => this.sync(progress),
      summary: (r) => summary(r),
      duration: (r) => (!r.ok || r.conflicts.length > 0 ? READ_MS : undefined),
    });
  }

  /**
   * Called every minute while Obsidian is open: with sync on and an interval set on this computer,
   * syncs when none has ended (here, at a session start or around the night) for that long. Said
   * only when it brings a conflict, or fails after one that did not.
   */
  tick(now = Date.now()): Promise<SyncReport | undefined> {
    const s = this.config().sync;
    if (!s.enabled || !(s.intervalMinutes > 0) || this.single.busy) return Promise.resolve(undefined);
    if (!syncDue(this.vaultPath, s.intervalMinutes * 60_000, now)) return Promise.resolve(undefined);
    return this.single.start({
      name: "sync",
      quiet: true,
      work: () => this.sync(() => {}),
      summary: (r) => {
        const told = this.failing;
        this.failing = !r.ok;
        return (!r.ok && !told) || r.conflicts.length > 0 ? summary(r) : "";
      },
      duration: () => READ_MS,
    });
  }

  private async sync(progress: (line: string) => void): Promise<SyncReport> {
    const r = this.runner();
    const report = await runSyncChild({
      ...r,
      vault: this.vaultPath,
      config: this.config(),
      timeoutMs: this.timeoutMs,
      // A line the bridge writes for the person ("Vault Memory: 3 cards changed…") is shown under the sync's own name.
      onProgress: (line) => progress(line.replace(/^Vault Memory: /, "")),
    });
    this.log(`sync: ${report.ok ? reportLines(report).join("; ") : `stopped: ${report.error ?? "failed"}`}`);
    if (report.ok) this.failing = false;
    return report;
  }
}

/** The notice for a sync that ended: what it committed, merged and pushed, each conflict named; or why it stopped. */
export function summary(r: SyncReport): string {
  if (!r.ok) return `Vault Memory sync stopped: ${r.error ?? "unknown error"}`;
  const [first = "done", ...rest] = reportLines(r);
  const shown = rest.slice(0, MAX_NOTICE_LINES);
  const more = rest.length - shown.length;
  return [`Vault Memory sync: ${first}`, ...shown, ...(more > 0 ? [`… and ${more} more (in the log)`] : [])].join("\n");
}
