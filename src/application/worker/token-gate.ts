import { setTimeout as sleep } from 'node:timers/promises';
import type { BatchRecords, TokenProbes } from '../../domain/ports/index.ts';

/** What a row waiting for its batch's token learns: it probes, the token is proven or refused, or it gave up. */
export type TokenGateAnswer = 'probe' | 'verified' | 'rejected' | 'undecided';

/** How often the store is read while a batch's token is unproven. */
export const TOKEN_POLL_MS = 250;

interface Waiter {
  readonly deadlineMs: number;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (answer: TokenGateAnswer) => void;
  readonly reject: (error: unknown) => void;
}

export interface TokenGateStores {
  readonly tokenProbes: Pick<TokenProbes, 'acquireTokenProbe' | 'releaseTokenProbe'>;
  readonly batchRecords: Pick<BatchRecords, 'getBatch'>;
}

/**
 * Rows waiting for their batch's token probe, in one worker process: they share one poll of the store per batch.
 *
 * Until a batch's token has worked once, a single row calls the bureau (a wrong token then costs one request).
 * Every other row waits. If each waiter polled the store on its own, a batch's first seconds would send two
 * requests per row every poll; on a starved machine that flood queued the probe's own requests behind it until
 * its invocation ran out of time, again and again. One poll per batch answers all of them alike.
 */
export class TokenGate {
  readonly #stores: TokenGateStores;
  readonly #leaseSeconds: number;
  readonly #now: () => number;
  readonly #waiting = new Map<string, Waiter[]>();

  constructor(stores: TokenGateStores, options: { leaseSeconds: number; now?: () => number }) {
    this.#stores = stores;
    this.#leaseSeconds = options.leaseSeconds;
    this.#now = options.now ?? Date.now;
  }

  /** Waits until the batch's token is proven or refused, or this row becomes its probe; 'undecided' at the deadline. */
  wait(batchId: string, deadlineMs: number, signal?: AbortSignal): Promise<TokenGateAnswer> {
    return new Promise((resolve, reject) => {
      const waiters = this.#waiting.get(batchId);
      const waiter = { deadlineMs, signal, resolve, reject };
      if (waiters !== undefined) {
        waiters.push(waiter);
        return;
      }
      this.#waiting.set(batchId, [waiter]);
      void this.#poll(batchId);
    });
  }

  async #poll(batchId: string): Promise<void> {
    const waiters = this.#waiting.get(batchId) as Waiter[];
    try {
      for (;;) {
        this.#dropExpired(waiters);
        if (waiters.length === 0) break;
        if (await this.#stores.tokenProbes.acquireTokenProbe(batchId, this.#leaseSeconds)) {
          // The first waiter still waiting probes; the others go on waiting for what its call proves.
          this.#dropExpired(waiters);
          const probe = waiters.shift();
          if (probe !== undefined) probe.resolve('probe');
          // Nobody left to use it: held unused, it would stop every other process until its lease ran out.
          else await this.#stores.tokenProbes.releaseTokenProbe(batchId);
          continue;
        }
        const batch = await this.#stores.batchRecords.getBatch(batchId);
        if (batch?.tokenState === 'verified' || batch?.tokenState === 'rejected') {
          for (const waiter of waiters.splice(0)) waiter.resolve(batch.tokenState);
          break;
        }
        await sleep(TOKEN_POLL_MS);
      }
    } catch (error) {
      for (const waiter of waiters.splice(0)) waiter.reject(error);
    } finally {
      this.#waiting.delete(batchId);
    }
  }

  #dropExpired(waiters: Waiter[]): void {
    const now = this.#now();
    for (let index = waiters.length - 1; index >= 0; index--) {
      const waiter = waiters[index] as Waiter;
      if (now > waiter.deadlineMs || waiter.signal?.aborted) {
        waiters.splice(index, 1);
        waiter.resolve('undecided');
      }
    }
  }
}
