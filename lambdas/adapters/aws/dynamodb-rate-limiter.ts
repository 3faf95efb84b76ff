import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter } from '../../core/ports/index.ts';
import {
  assertValidLimits,
  fullBucket,
  pausedBucket,
  type TokenBucketLimits,
  type TokenBucketState,
  takeTokens,
} from '../../core/rate-limit/index.ts';
import type { Bureau } from '../../core/report/index.ts';

export interface DynamoDbRateLimiterConfig {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly limits: Readonly<Record<Bureau, TokenBucketLimits>>;
  /** @default Date.now */
  readonly now?: () => number;
}

const bucketKey = (bureau: Bureau) => ({ pk: `RATE#${bureau}`, sk: 'BUCKET' });

function abortable(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A token bucket per bureau in one DynamoDB item, shared by every worker, so adding workers never raises the rate.
 * Each take is a read and a conditional write on the item's version (optimistic locking); a lost race simply
 * reads again. The arithmetic is `lambdas/core/rate-limit`.
 */
export class DynamoDbRateLimiter implements RateLimiter {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #limits: Readonly<Record<Bureau, TokenBucketLimits>>;
  readonly #now: () => number;

  constructor(config: DynamoDbRateLimiterConfig) {
    for (const limits of Object.values(config.limits)) assertValidLimits(limits);
    this.#client = config.client;
    this.#table = config.tableName;
    this.#limits = config.limits;
    this.#now = config.now ?? Date.now;
  }

  async #read(bureau: Bureau): Promise<{ state: TokenBucketState | null; version: number }> {
    const result = await this.#client.send(
      new GetCommand({ TableName: this.#table, Key: bucketKey(bureau), ConsistentRead: true }),
    );
    const item = result.Item;
    if (!item) return { state: null, version: 0 };
    return {
      state: { tokens: item.tokens as number, updatedAtMs: item.updatedAtMs as number },
      version: item.version as number,
    };
  }

  /** Writes the new state if nobody wrote since `version`; false when someone did. */
  async #write(bureau: Bureau, state: TokenBucketState, version: number): Promise<boolean> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#table,
          Item: {
            ...bucketKey(bureau),
            tokens: state.tokens,
            updatedAtMs: state.updatedAtMs,
            version: version + 1,
          },
          ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
          ExpressionAttributeValues: version === 0 ? undefined : { ':version': version },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async acquire(bureau: Bureau, signal?: AbortSignal): Promise<void> {
    const limits = this.#limits[bureau];
    for (;;) {
      signal?.throwIfAborted();
      const { state, version } = await this.#read(bureau);
      const now = this.#now();
      const taken = takeTokens(state ?? fullBucket(limits, now), limits, now);
      if (taken.granted) {
        if (await this.#write(bureau, taken.state, version)) return;
        continue; // another worker took a token meanwhile: read again
      }
      // Sleep until a token is due, with a little jitter so waiting workers do not all wake at once.
      await abortable(taken.waitMs + Math.random() * Math.min(50, taken.waitMs), signal);
    }
  }

  async pauseUntil(bureau: Bureau, untilMs: number): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const { state, version } = await this.#read(bureau);
      if (state && state.updatedAtMs >= untilMs && state.tokens === 0) return;
      if (await this.#write(bureau, pausedBucket(untilMs), version)) return;
    }
  }
}
