import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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

interface Waiter {
  resolve(slot: RequestSlot): void;
  reject(reason: unknown): void;
  readonly signal?: AbortSignal;
  cleanup?: () => void;
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
 */
export class DynamoDbRateLimiter implements RateLimiter {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #gcra: Readonly<Record<Bureau, Gcra>>;
  readonly #now: () => number;
  readonly #waiters = new Map<Bureau, Waiter[]>();
  readonly #pumping = new Set<Bureau>();

  constructor(config: DynamoDbRateLimiterConfig) {
    this.#client = config.client;
    this.#table = config.tableName;
    this.#gcra = perBureau((bureau) => gcraOf(config.limits[bureau]));
    this.#now = config.now ?? Date.now;
  }

  acquire(bureau: Bureau, signal?: AbortSignal): Promise<RequestSlot> {
    signal?.throwIfAborted();
    return new Promise<RequestSlot>((resolve, reject) => {
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
   * Reserves `count` slots: returns the TAT before the reservation and the instant the reservation was made as
   * (its slots are counted from it, as GCRA counts them, not from when the answer came back), or the time to wait
   * first when the shared queue of reservations is already more than MAX_RESERVATION_AHEAD_MS long.
   */
  async #reserve(
    bureau: Bureau,
    count: number,
  ): Promise<{ oldTat: number; reservedAt: number } | { waitMs: number }> {
    const gcra = this.#gcra[bureau];
    const now = this.#now();
    const add = count * gcra.intervalMs;
    try {
      // Busy bucket (TAT ahead of now, not too far): add the intervals.
      const result = await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: bucketKey(bureau),
          UpdateExpression: 'SET tat = tat + :add',
          ConditionExpression: 'tat >= :now AND tat <= :horizon',
          ExpressionAttributeValues: {
            ':add': add,
            ':now': now,
            ':horizon': now + gcra.toleranceMs + MAX_RESERVATION_AHEAD_MS,
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { oldTat: (result.Attributes?.tat as number) - add, reservedAt: now };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const tat = tatOf(error.Item as Record<string, unknown> | undefined);
      if (tat !== null && tat >= now)
        return { waitMs: tat - (now + gcra.toleranceMs + MAX_RESERVATION_AHEAD_MS) };
    }
    // Idle bucket (no item, or TAT in the past): start from now. If another worker moved TAT meanwhile, try again.
    return (await this.#setTatIfBelow(bureau, now + add, now))
      ? { oldTat: now, reservedAt: now }
      : { waitMs: 0 };
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
        const reservation = await this.#reserve(bureau, count);
        if ('waitMs' in reservation) {
          await sleep(reservation.waitMs + Math.random() * 10);
          continue;
        }
        const now = this.#now();
        // Slots as GCRA gave them at the reservation's instant: a slow answer makes them late (and maybe given up by
        // the caller, see `CallSlots`), never closer to the next reservation's.
        const served = queue.splice(0, count);
        // Each waiter goes at its own slot; one that gave up meanwhile leaves its slot unused (the rate only drops).
        served.forEach((waiter, index) => {
          const at = slotTime(gcra, reservation.oldTat, reservation.reservedAt, index);
          setTimeout(
            () => {
              waiter.cleanup?.();
              if (waiter.signal?.aborted) waiter.reject(waiter.signal.reason);
              else waiter.resolve(requestSlot(gcra, at));
            },
            Math.max(0, at - now),
          );
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

  async pauseUntil(bureau: Bureau, untilMs: number): Promise<void> {
    const tat = pausedTat(this.#gcra[bureau], untilMs);
    // False means another worker already paused as long or longer: nothing to do.
    await this.#setTatIfBelow(bureau, tat, tat);
  }
}
