/**
 * Keeps the snapshot as fresh as the card files, for the session start and the MCP server: cards
 * written by Claude's Write tool, another editor, `git pull` or a sync are recalled without an
 * `index` run or Obsidian. A few changed cards go into an overlay at once; more are handed to an
 * `index` in a process of its own, which the person is told of, so a session never waits on it.
 */

import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { BRIDGE_FILE } from "../../src/core/install/hook-commands";
import type { VaultMemoryConfig } from "../../src/core/config";
import { writeFileAtomic } from "../../src/core/io/atomic";
import { readTextIfAny } from "../../src/core/io/read-file";
import { HIDDEN_DIR, vaultFiles } from "../../src/core/paths";
import { SnapshotReader } from "../../src/core/snapshot/read";
import { refreshSnapshot, type RefreshResult } from "../../src/core/snapshot/refresh";

/**
 * Changed cards a session start takes on itself: about a second's work in a vault of 50,000 notes
 * (see docs/speed.md). Past it a whole index is cheaper than card by card.
 */
export const MAX_REFRESH_CARDS = 50;

export interface Freshened {
  result: RefreshResult;
  /** One line for the person when an index was started for them; "" otherwise. */
  notice: string;
}

/**
 * Brings the snapshot up to date with the files; `bridge` is the entry to start an `index` with,
 * and `configFlag` the `--config` it was given, passed on.
 */
export function freshen(
  vault: string,
  config: VaultMemoryConfig,
  log: (message: string) => void,
  bridge: string,
  configFlag?: string,
  maxInline = MAX_INLINE_CARDS,
): Freshened {
  // Listing a large vault's card files takes longer than a session start should wait (about half
  // a second at 50,000): there the look is taken in a process of its own, and the first prompts
  // may come before it has brought a change in.
  if (cardsIn(vault) > maxInline) {
    const started = startIndex(vault, bridge, configFlag, ["--changed"]);
    log(started ? "looking for changed card files in the background (a large vault)" : "an index started earlier is still running");
    return { result: { kind: "current", changed: 0, reason: "left to a process of its own" }, notice: "" };
  }
  const result = refreshSnapshot(vault, config, { maxChanged: MAX_REFRESH_CARDS });
  if (result.kind === "overlay") log(`brought the snapshot up to date: ${result.reason}`);
  if (result.kind !== "too-many") return { result, notice: "" };
  const started = startIndex(vault, bridge, configFlag);
  log(`${result.reason}; ${started ? "started an index in the background" : "an index started earlier is still running"}`);
  return {
    result,
    notice: started
      ? `Vault Memory: ${result.changed} cards changed since the last index; it is being rebuilt in the background, and recall uses the earlier one until then.`
      : "",
  };
}

/** The bridge's entry beside the running script (the entry itself, or the MCP server's bundle). */
export function bridgeEntry(): string {
  const script = process.argv[1] ?? "";
  return join(dirname(script ? realpathSync(script) : process.cwd()), BRIDGE_FILE);
}

interface Running {
  pid: number;
  startedAt: number;
}

// An index of 50,000 notes takes about a minute; one marked running for longer has died.
const RUNNING_STALE_MS = 30 * 60_000;

/**
 * Cards the snapshot holds, from its header alone (see SnapshotReader); 0 when it cannot be read,
 * which leaves the refresh to say why.
 */
function cardsIn(vault: string): number {
  try {
    const reader = SnapshotReader.open(vaultFiles.snapshot(vault));
    reader.close();
    return reader.docCount;
  } catch {
    return 0;
  }
}

// Up to this many cards a session start lists them itself (about 100 ms at 6,300).
const MAX_INLINE_CARDS = 15_000;

/** Starts `index` detached, unless one this function started is still running; whether it started one. */
function startIndex(vault: string, bridge: string, configFlag?: string, extra: string[] = []): boolean {
  const marker = join(vault, HIDDEN_DIR, "index-running.json");
  try {
    const text = readTextIfAny(marker, { maxBytes: 1 << 12 });
    const running = text ? (JSON.parse(text) as Partial<Running>) : undefined;
    if (
      running &&
      typeof running.pid === "number" &&
      typeof running.startedAt === "number" &&
      Date.now() - running.startedAt < RUNNING_STALE_MS &&
      alive(running.pid)
    )
      return false;
  } catch {
    /* unreadable: start one */
  }
  const child = spawn(process.execPath, [bridge, "index", "--vault", vault, ...(configFlag ? ["--config", configFlag] : []), ...extra], {
    detached: true,
    stdio: "ignore",
    windowsHide: true,
  });
  child.unref();
  if (child.pid !== undefined) writeFileAtomic(marker, JSON.stringify({ pid: child.pid, startedAt: Date.now() } satisfies Running));
  return child.pid !== undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
