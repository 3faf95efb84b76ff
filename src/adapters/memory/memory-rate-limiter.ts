import { perBureau } from '../../domain/bureau/index.ts';
import type { RateLimiter } from '../../domain/ports/index.ts';
import {
  type Gcra,
  gcraOf,
  pausedTat,
  type RequestSlot,
  requestSlot,
  slotTime,
  type TokenBucketLimits,
} from '../../domain/rate-limit/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

/**
 * The global rate limit of one process, in memory: the same GCRA as the DynamoDB limiter (each call reserves the
 * next slot and waits for it; a 429 pushes every slot past the pause), for use-case tests without DynamoDB.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #gcra: Readonly<Record<Bureau, Gcra>>;
  readonly #tat: Record<Bureau, number> = perBureau(() => 0);
  readonly #now: () => number;

  constructor(limits: Readonly<Record<Bureau, TokenBucketLimits>>, now: () => number = Date.now) {
    this.#gcra = perBureau((bureau) => gcraOf(limits[bureau]));
    this.#now = now;
  }

  async acquire(bureau: Bureau, signal?: AbortSignal): Promise<RequestSlot> {
    signal?.throwIfAborted();
    const now = this.#now();
    const slot = slotTime(this.#gcra[bureau], this.#tat[bureau], now, 0);
    this.#tat[bureau] = Math.max(this.#tat[bureau], now) + this.#gcra[bureau].intervalMs;
    if (slot <= now) return requestSlot(this.#gcra[bureau], slot);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      // The listener goes with the wait: a signal shared by many calls must not gather one per call.
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, slot - now);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    return requestSlot(this.#gcra[bureau], slot);
  }

  async pauseUntil(bureau: Bureau, untilMs: number): Promise<void> {
    this.#tat[bureau] = Math.max(this.#tat[bureau], pausedTat(this.#gcra[bureau], untilMs));
  }
}
