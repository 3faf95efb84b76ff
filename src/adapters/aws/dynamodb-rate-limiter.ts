import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter, RateLimitSlot } from '../../domain/ports/index.ts';
import {
  type Gcra,
  gcraOf,
  pausedTat,
  type SlotWindow,
  slotWindow,
  type TokenBucketLimits,
} from '../../domain/rate-limit/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';

export interface DynamoDbRateLimiterConfig {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly limits: Readonly<Record<Bureau, TokenBucketLimits>>;
  /** @default Date.now */
  readonly now?: () => number;
}

const bucketKey = (bureau: Bureau) => ({ pk: `RATE#${bureau}`, sk: 'BUCKET' });
// Slots are reserved at most this far ahead; beyond it a caller waits without reserving (and so can still give up).
const MAX_RESERVATION_AHEAD_MS = 2_000;
// Waiters of this process served by one reservation.
const MAX_SLOTS_PER_RESERVATION = 10;
// The most a reservation is made ahead of its round trip (see #leadMs).
const MAX_LEAD_MS = 1_000;
// How fast the lead forgets a slow round trip: kept × this per reservation.
const LEAD_DECAY = 0.9;

interface Waiter {
  resolve(slot: RateLimitSlot): void;
  reject(reason: unknown): void;
  readonly signal?: AbortSignal;
  cleanup?: () => void;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** The TAT in a condition-failure's item (returned unmarshalled by lib-dynamodb, or as `{ N }` by the raw client). */
function tatOf(item: Record<string, unknown> | undefined): number | null {
  const value = item?.tat;
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && 'N' in value) return Number((value as { N: string }).N);
  return null;
}

/**
 * The global rate limit, per bureau, shared by every worker through one DynamoDB item: a token bucket in its GCRA
 * form (`src/domain/rate-limit/gcra.ts`). Reserving slots is a single conditional `UpdateItem` that adds intervals
 * to the item's TAT atomically and returns it, so workers never read-modify-write or retry on each other's
 * writes; each caller then waits until its own slot. Callers waiting in one process share one reservation.
 *
 * A slot must be used by its `sendByMs` (the argument is in `src/domain/rate-limit/gcra.ts`), and its answer takes a
 * round trip to come back: reserved for the time of asking, the first slot of an idle bucket would often be late
 * already. So slots are reserved for the time the answer is expected, now + the lead (the slowest recent round trip,
 * forgetting slowly): GCRA at a later time, which only ever gives later slots.
 */
export class DynamoDbRateLimiter implements RateLimiter {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #gcra: Readonly<Record<Bureau, Gcra>>;
  readonly #now: () => number;
  readonly #waiters = new Map<Bureau, Waiter[]>();
  readonly #pumping = new Set<Bureau>();
  #leadMs = 0;

  constructor(config: DynamoDbRateLimiterConfig) {
    this.#client = config.client;
    this.#table = config.tableName;
    this.#gcra = { a: gcraOf(config.limits.a), b: gcraOf(config.limits.b) };
    this.#now = config.now ?? Date.now;
  }

  acquire(bureau: Bureau, signal?: AbortSignal): Promise<RateLimitSlot> {
    signal?.throwIfAborted();
    return new Promise<RateLimitSlot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      const onAbort = () => {
        const queue = this.#waiters.get(bureau) ?? [];
        const index = queue.indexOf(waiter);
        if (index !== -1) queue.splice(index, 1);
        reject(signal?.reason);
      };
      waiter.cleanup = () => signal?.removeEventListener('abort', onAbort);
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#waiters.get(bureau) ?? [];
      queue.push(waiter);
      this.#waiters.set(bureau, queue);
      if (!this.#pumping.has(bureau)) this.#pump(bureau);
    });
  }

  /**
   * Reserves `count` slots for time `atMs`: returns where they start on the line (the TAT before the reservation, or
   * `atMs` for an idle bucket), or the time to wait first when the shared queue of reservations is already more than
   * MAX_RESERVATION_AHEAD_MS long.
   */
  async #reserve(
    bureau: Bureau,
    count: number,
    nowMs: number,
    atMs: number,
  ): Promise<{ start: number } | { waitMs: number }> {
    const gcra = this.#gcra[bureau];
    const add = count * gcra.intervalMs;
    const horizon = nowMs + gcra.toleranceMs + MAX_RESERVATION_AHEAD_MS;
    try {
      // Busy bucket (TAT at or past the time reserved for, not too far): add the intervals.
      const result = await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: bucketKey(bureau),
          UpdateExpression: 'SET tat = tat + :add',
          ConditionExpression: 'tat >= :at AND tat <= :horizon',
          ExpressionAttributeValues: { ':add': add, ':at': atMs, ':horizon': horizon },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { start: (result.Attributes?.tat as number) - add };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const tat = tatOf(error.Item as Record<string, unknown> | undefined);
      if (tat !== null && tat >= atMs) return { waitMs: tat - horizon };
    }
    // Idle bucket (no item, or TAT before the time reserved for): start there. If another worker moved TAT
    // meanwhile, try again.
    return (await this.#setTatIfBelow(bureau, atMs + add, atMs)) ? { start: atMs } : { waitMs: 0 };
  }

  /** Sets TAT to `tat` if the item has none or one below `below`; false when another worker got there first. */
  async #setTatIfBelow(bureau: Bureau, tat: number, below: number): Promise<boolean> {
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: bucketKey(bureau),
          UpdateExpression: 'SET tat = :tat',
          ConditionExpression: 'attribute_not_exists(tat) OR tat < :below',
          ExpressionAttributeValues: { ':tat': tat, ':below': below },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return false;
    }
  }

  /** Serves this process's waiters for one bureau, a reservation at a time, until none is left. */
  #pump(bureau: Bureau): void {
    this.#pumping.add(bureau);
    const gcra = this.#gcra[bureau];
    const run = async () => {
      for (;;) {
        const queue = this.#waiters.get(bureau) ?? [];
        if (queue.length === 0) return;
        const count = Math.min(queue.length, MAX_SLOTS_PER_RESERVATION);
        const asked = this.#now();
        const reservation = await this.#reserve(bureau, count, asked, asked + this.#leadMs);
        const now = this.#now();
        this.#leadMs = Math.min(MAX_LEAD_MS, Math.max(now - asked, this.#leadMs * LEAD_DECAY));
        if ('waitMs' in reservation) {
          await sleep(reservation.waitMs + Math.random() * 10);
          continue;
        }
        const served = queue.splice(0, count);
        // Each waiter goes at its own slot; one that gave up meanwhile leaves its slot unused (the rate only drops).
        served.forEach((waiter, index) => {
          this.#grantAt(waiter, slotWindow(gcra, reservation.start + index * gcra.intervalMs, now));
        });
      }
    };
    run()
      .catch((error: unknown) => {
        for (const waiter of this.#waiters.get(bureau)?.splice(0) ?? []) {
          waiter.cleanup?.();
          waiter.reject(error);
        }
      })
      .finally(() => {
        this.#pumping.delete(bureau);
        if ((this.#waiters.get(bureau)?.length ?? 0) > 0) this.#pump(bureau);
      });
  }

  /** Hands the waiter its slot at the slot's time, never before (a timer can run a little before the clock says). */
  #grantAt(waiter: Waiter, { fromMs, sendByMs }: SlotWindow): void {
    const grant = () => {
      const early = fromMs - this.#now();
      if (early > 0) {
        setTimeout(grant, early);
        return;
      }
      waiter.cleanup?.();
      if (waiter.signal?.aborted) waiter.reject(waiter.signal.reason);
      else waiter.resolve({ sendByMs, onTime: () => this.#now() <= sendByMs });
    };
    grant();
  }

  async pauseUntil(bureau: Bureau, untilMs: number): Promise<void> {
    const tat = pausedTat(this.#gcra[bureau], untilMs);
    // False means another worker already paused as long or longer: nothing to do.
    await this.#setTatIfBelow(bureau, tat, tat);
  }
}
