/** One long run at a time behind a progress notice: the shape the digest and enrich commands share. */

import { Notice } from "obsidian";

export interface NoticeRun<T> {
  /** How the run is named in its notices ("digest", "enrich"). */
  name: string;
  /** The run itself, reporting progress lines as it goes. */
  work: (progress: (line: string) => void) => Promise<T>;
  /** The closing notice for a run that returned; "" for none. */
  summary: (result: T) => string;
  /** How long the closing notice stays, in ms (0: until clicked); Obsidian's default when undefined. */
  duration?: (result: T) => number | undefined;
  /** A run nobody asked for just now (a timer's): no notice while it runs, nor when one is already running. */
  quiet?: boolean;
}

/**
 * Runs `run` unless one is already going (a second press of the command must not start a second
 * LLM run), with its progress in a notice that stays until it ends and a closing notice either way.
 */
export class SingleRun {
  private running = false;

  get busy(): boolean {
    return this.running;
  }

  async start<T>(run: NoticeRun<T>): Promise<T | undefined> {
    if (this.running) {
      if (!run.quiet) new Notice(`The ${run.name} is already running.`);
      return undefined;
    }
    this.running = true;
    const notice = run.quiet ? undefined : new Notice(`Vault Memory ${run.name}: starting…`, 0);
    try {
      const result = await run.work((line) => notice?.setMessage(`Vault Memory ${run.name}: ${line.trim()}`));
      const said = run.summary(result);
      if (said) new Notice(said, run.duration?.(result));
      return result;
    } catch (err) {
      new Notice(`Vault Memory ${run.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    } finally {
      notice?.hide();
      this.running = false;
    }
  }
}
