/**
 * Watches how late this process runs its callbacks (a loaded machine). What a test stamps or counts on the event
 * loop is that late, so a stall can put several events into one window that were apart: tests that count events per
 * window allow rate × the lag seen.
 */
export function watchEventLoopLag(): { stop(): number } {
  let maxLagMs = 0;
  let expected = Date.now() + 10;
  const monitor = setInterval(() => {
    maxLagMs = Math.max(maxLagMs, Date.now() - expected);
    expected = Date.now() + 10;
  }, 10);
  return {
    /** Stops watching and returns the largest lag seen, in milliseconds. */
    stop: () => {
      clearInterval(monitor);
      return maxLagMs;
    },
  };
}
