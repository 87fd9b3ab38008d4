/** One long run at a time behind a progress notice: the shape the digest and enrich commands share. */

import { Notice } from "obsidian";

export interface NoticeRun<T> {
  /** How the run is named in its notices ("digest", "enrich"). */
  name: string;
  /** The run itself, reporting progress lines as it goes. */
  work: (progress: (line: string) => void) => Promise<T>;
  /** The closing notice for a run that returned. */
  summary: (result: T) => string;
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
      new Notice(`The ${run.name} is already running.`);
      return undefined;
    }
    this.running = true;
    const notice = new Notice(`Vault Memory ${run.name}: starting…`, 0);
    try {
      const result = await run.work((line) => notice.setMessage(`Vault Memory ${run.name}: ${line.trim()}`));
      new Notice(run.summary(result));
      return result;
    } catch (err) {
      new Notice(`Vault Memory ${run.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    } finally {
      notice.hide();
      this.running = false;
    }
  }
}
