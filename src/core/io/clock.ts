/** Milliseconds since the process started: the clock of the hook's deadline. */

/**
 * What Claude Code waits on is the whole process, so a deadline counts from its start.
 * `performance.now()` counts from about the same moment, but its first use in a process loads
 * Node's perf_hooks modules (about 1 M instructions of compiling, on every prompt); the process's
 * own uptime is one native call.
 */
export function msSinceStart(): number {
  return process.uptime() * 1000;
}
