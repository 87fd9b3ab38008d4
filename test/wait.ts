/**
 * Waiting in tests: for the thing itself, never for a clock.
 *
 * A test that waits "at most 5 s" for a write fails when two shared cores are busy with the rest
 * of the suite, though nothing is wrong. `until` has no deadline of its own: it looks again after
 * every turn of the event loop and a short pause, for as long as the test runs, so a slow machine
 * makes a test slower, never red; a real hang still ends at the test's own timeout, which is set
 * far beyond anything a correct run takes.
 */
export async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 10));
}
