/** Lets Obsidian paint and take input between slices of long work. */

/**
 * A message, not a timer: Electron throttles timers in a window that is hidden or minimised to
 * once a second, later once a minute, and work sliced by timers would stall there for hours while
 * Claude Code goes on editing the vault.
 */
export function yieldToUi(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
