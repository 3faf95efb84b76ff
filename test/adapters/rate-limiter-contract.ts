import { describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../src/domain/ports/index.ts';
import type { TokenBucketLimits } from '../../src/domain/rate-limit/index.ts';

/** Runs `ms` of synchronous work: the event loop runs nothing else meanwhile, as on a starved machine. */
function hogEventLoop(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy on purpose
  }
}

/** The most stamps within any one-second window (t − 1 s, t]. */
export function busiestSecond(stamps: readonly number[]): number {
  const sorted = [...stamps].sort((first, second) => first - second);
  let busiest = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[from] as number) <= (sorted[to] as number) - 1000) from++;
    busiest = Math.max(busiest, to - from + 1);
  }
  return busiest;
}

/**
 * Sends `count` requests through `limiter` as a worker does: each on its slot, checked right before it "leaves"
 * (stamped then), and on a new slot when the one it has is late. Returns the send times and how many slots were
 * late.
 */
export async function sendOnSlots(
  limiter: RateLimiter,
  count: number,
): Promise<{ sent: number[]; late: number }> {
  const sent: number[] = [];
  let late = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      let slot = await limiter.acquire('a');
      while (!slot.onTime()) {
        late++;
        slot = await limiter.acquire('a');
      }
      sent.push(Date.now());
    }),
  );
  return { sent, late };
}

/**
 * The rules of the global rate limit, run against each implementation: requests sent on their slots never exceed
 * rate + burst in any one-second window, however late the event loop runs them; a 429's pause holds everyone off;
 * a waiting caller can give up. `open` gives a limiter of these limits, on both bureaus, whose buckets start idle.
 */
export function describeRateLimiterContract(
  name: string,
  open: (limits: TokenBucketLimits) => Promise<RateLimiter>,
): void {
  describe(`${name}: the rate limiter contract`, () => {
    it('never lets more than rate + burst requests leave in one second, even with the event loop starved', async () => {
      const limiter = await open({ ratePerSecond: 40, capacity: 4 });
      // Twice the loop runs nothing for 300 ms while slots fall due: their timers all run late, together.
      const stalls = [400, 1_200].map((at) => setTimeout(() => hogEventLoop(300), at));
      const started = Date.now();
      const { sent, late } = await sendOnSlots(limiter, 80);
      for (const stall of stalls) clearTimeout(stall);

      expect(sent).toHaveLength(80);
      // Exactly the bound, with no allowance: a stamp is taken with nothing between it and the check of its slot.
      expect(busiestSecond(sent)).toBeLessThanOrEqual(40 + 4);
      // The stalls did make slots late (which is what this test is about), and those took new ones.
      expect(late).toBeGreaterThan(0);
      // 80 requests at 40/s with a burst of 4 take at least (80 − 4) / 40 s.
      expect(Math.max(...sent) - started).toBeGreaterThanOrEqual(1_850);
    }, 30_000);

    it('grants a slot that is still on time when it is granted', async () => {
      const limiter = await open({ ratePerSecond: 10, capacity: 2 });
      const slot = await limiter.acquire('a');
      expect(slot.onTime()).toBe(true);
      expect(slot.sendByMs).toBeGreaterThanOrEqual(Date.now());
    });

    it('holds every caller off after a 429 until the pause ends', async () => {
      const limiter = await open({ ratePerSecond: 100, capacity: 10 });
      const until = Date.now() + 600;
      await limiter.pauseUntil('b', until);
      await limiter.acquire('b');
      expect(Date.now()).toBeGreaterThanOrEqual(until);
    });

    it('lets a waiting caller give up', async () => {
      const limiter = await open({ ratePerSecond: 1, capacity: 1 });
      await limiter.acquire('a'); // the one token
      const controller = new AbortController();
      const waiting = limiter.acquire('a', controller.signal);
      setTimeout(() => controller.abort(new Error('invocation ending')), 50);
      await expect(waiting).rejects.toThrow('invocation ending');
    });
  });
}
