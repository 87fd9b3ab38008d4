/** Runs the nightly digest from Obsidian: on a schedule, catching up on missed nights, or on request. */

import { SingleRun } from "./notice-run";
import type { VaultMemoryConfig } from "../core/config";
import { runDigestChild } from "../core/digest/child";
import type { DigestReport } from "../core/digest/run";
import { nightDue } from "../core/digest/schedule";
import { listPending } from "../core/queue/queue-store";

/** What starts the bridge: a Node program, the bridge's entry file, and the environment for it. */
export interface BridgeRunner {
  node: string;
  bridge: string;
  env: NodeJS.ProcessEnv;
}

export interface DigestEvents {
  /** Each progress line, for the status bar; "" when the run ends. */
  progress?: (line: string) => void;
  done?: () => void;
}

/**
 * The digest runs as the bridge's own `digest` command in a process of its own: reading the
 * vault, indexing and linting it took about 10 s of frozen window on a 6,000-note vault when it
 * ran here. The window only reads the child's progress lines.
 */
export class DigestScheduler {
  private readonly single = new SingleRun();

  constructor(
    private readonly vaultPath: string,
    private readonly config: () => VaultMemoryConfig,
    private readonly runner: () => BridgeRunner,
    private readonly events: DigestEvents = {},
  ) {}

  get isRunning(): boolean {
    return this.single.busy;
  }

  /**
   * Called every minute and at start-up: runs when the last scheduled time has passed since the
   * last run and something waits in the queue. An empty night costs nothing and writes nothing;
   * "Run digest now" tidies an empty queue too.
   */
  async tick(now = new Date()): Promise<DigestReport | undefined> {
    if (this.single.busy || !nightDue(this.vaultPath, this.config().digest.time, now)) return undefined;
    if (listPending(this.vaultPath).length === 0) return undefined;
    return this.run();
  }

  /** Runs now, with progress in a notice. `sessionIds` limits it to those queue entries. */
  async run(sessionIds?: string[]): Promise<DigestReport | undefined> {
    try {
      return await this.single.start({
        name: "digest",
        work: (progress) => {
          const runner = this.runner();
          return runDigestChild({
            ...runner,
            vault: this.vaultPath,
            config: this.config(),
            sessionIds,
            onProgress: (line) => {
              progress(line);
              this.events.progress?.(line);
            },
          });
        },
        summary: (report) => {
          const n = (a: string) => report.results.filter((r) => r.outcome.action === a).length;
          // What did not reach the person (the report command, the mail) is said too.
          const notify = report.notify ? ` (${report.notify})` : "";
          return report.ok
            ? `Vault Memory digest: ${n("created")} created, ${n("extended")} extended, ${n("skipped")} skipped, ${report.failures.length} failed; ${report.left} left.${notify}`
            : `Vault Memory digest stopped: ${report.error ?? "unknown error"}${notify}`;
        },
      });
    } finally {
      this.events.progress?.("");
      this.events.done?.();
    }
  }
}
