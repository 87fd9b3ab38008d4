/** Semantic recall from Obsidian: after each full snapshot write, the bridge's `embed` in a process of its own. */

import { Notice, debounce } from "obsidian";
import type { VaultMemoryConfig } from "../core/config";
import { runCommand } from "../core/llm/run-command";
import type { BridgeRunner } from "./digest-scheduler";

// A burst of full writes (a rebuild, then settings saved) embeds once; a first embedding of a
// large vault takes minutes, which is what the bound allows.
const QUIET_MS = 2000;
const TIMEOUT_MS = 30 * 60_000;

/**
 * Embedding talks to a server and waits on it: it runs as the bridge's own command, so the window
 * never waits, with Obsidian's settings on stdin. A failure is told once per start; recall meanwhile
 * answers from words, as the hook does whenever the vectors are not this snapshot's.
 */
export class EmbedRunner {
  private running: Promise<void> | null = null;
  private again = false;
  private told = false;
  readonly soon = debounce(() => void this.run(), QUIET_MS, true);

  constructor(
    private readonly vaultPath: string,
    private readonly config: () => VaultMemoryConfig,
    private readonly runner: () => BridgeRunner,
    private readonly log: (line: string) => void,
  ) {}

  /** Embeds now (or once the run under way ends), if semantic recall is on. */
  run(): Promise<void> {
    if (!this.config().embed.enabled) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          const r = this.runner();
          // The window does not wait on it, so its budget is this bound, less a minute to report in.
          const budget = String(TIMEOUT_MS / 1000 - 60);
          const out = await runCommand(
            [r.node, r.bridge, "embed", "--vault", this.vaultPath, "--config", "-", "--embed-budget-sec", budget],
            JSON.stringify(this.config()),
            { timeoutMs: TIMEOUT_MS, env: r.env },
          );
          const said =
            `${out.stdout}\n${out.stderr}`
              .trim()
              .split("\n")
              .filter((l) => l.startsWith("semantic recall"))
              .pop() ?? "";
          if (out.code === 0) this.log(said || "semantic recall: embedded");
          else {
            const why = said || out.stderr.trim().split("\n").pop() || (out.timedOut ? "the embedding did not finish in time" : `exit ${String(out.code)}`);
            this.log(why);
            if (!this.told) new Notice(`Vault Memory: ${why.replace(/^semantic recall: /, "Semantic recall ")}`);
            this.told = true;
          }
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }
}
