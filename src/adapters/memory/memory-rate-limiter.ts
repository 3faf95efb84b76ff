import type { RateLimiter, RateLimitSlot } from '../../domain/ports/index.ts';
import {
  type Gcra,
  gcraOf,
  pausedTat,
  reservationStart,
  slotWindow,
  type TokenBucketLimits,
} from '../../domain/rate-limit/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

/**
 * The global rate limit of one process, in memory: the same GCRA as the DynamoDB limiter (each call reserves the
 * next slot and waits for it; a 429 pushes every slot past the pause; a slot says until when its request may
 * leave), for use-case tests without DynamoDB.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #gcra: Readonly<Record<Bureau, Gcra>>;
  readonly #tat: Record<Bureau, number | null> = { a: null, b: null };
  readonly #now: () => number;

  constructor(limits: Readonly<Record<Bureau, TokenBucketLimits>>, now: () => number = Date.now) {
    this.#gcra = { a: gcraOf(limits.a), b: gcraOf(limits.b) };
    this.#now = now;
  }

  async acquire(bureau: Bureau, signal?: AbortSignal): Promise<RateLimitSlot> {
    signal?.throwIfAborted();
    const gcra = this.#gcra[bureau];
    const now = this.#now();
    const start = reservationStart(this.#tat[bureau], now);
    this.#tat[bureau] = start + gcra.intervalMs;
    const { fromMs, sendByMs } = slotWindow(gcra, start, now);
    // A timer can run a little before the clock reaches its time: never early, so wait again for what is left.
    for (let left = fromMs - now; left > 0; left = fromMs - this.#now()) await delay(left, signal);
    return { sendByMs, onTime: () => this.#now() <= sendByMs };
  }

  async pauseUntil(bureau: Bureau, untilMs: number): Promise<void> {
    const paused = pausedTat(this.#gcra[bureau], untilMs);
    this.#tat[bureau] = reservationStart(this.#tat[bureau], paused);
  }
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
