/** Milliseconds since the process started: the clock of the hook's deadline. */

/**
 * What Claude Code waits on is the whole process, so a deadline counts from its start.
 * `performance.now()` counts from about the same moment, but its first use in a process loads
 * Node's perf_hooks modules (about 1 M instructions of compiling, on every prompt); the process's
 * own uptime is one native call.
 */
export function msSinceStart(): number {
  return process.uptime() * 1000 - ((process as unknown as Record<symbol, number | undefined>)[ORIGIN] ?? 0);
}

// Nothing in a hook's own process. The resident recall server answers many hooks in one process,
// and each one's deadline counts from when its hook started (startClockAt). Kept on the process
// object, not in this module: each of the bridge's bundles has its own copy of the module, and
// the server's sets the clock that recall's and scoring's read.
const ORIGIN = Symbol.for("vault-memory.clockOrigin");

/** For the resident recall server: the clock now reads `elapsedMs`, what the asking hook had spent before it asked. */
export function startClockAt(elapsedMs: number): void {
  (process as unknown as Record<symbol, number>)[ORIGIN] = process.uptime() * 1000 - elapsedMs;
}
