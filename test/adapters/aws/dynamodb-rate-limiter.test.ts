import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbRateLimiter } from '../../../src/adapters/aws/dynamodb-rate-limiter.ts';
import { DEFAULT_SETTINGS } from '../../../src/contract/index.ts';
import type { TokenBucketLimits } from '../../../src/domain/rate-limit/index.ts';
import { LocalStack } from '../../../tools/local/local-stack.ts';
import { sharedDynamoDb } from '../../factories/shared-dynamodb.ts';
import { busiestSecond, describeRateLimiterContract, sendOnSlots } from '../rate-limiter-contract.ts';

let stack: LocalStack;
beforeAll(async () => {
  stack = await LocalStack.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  // DynamoDB Local's first conditional writes run cold (class loading, JIT): warmed up here, so the tests below
  // measure round trips, not the emulator's start.
  await limiterFor({ ratePerSecond: 100, capacity: 10 }).acquire('b');
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const limiterFor = (limits: TokenBucketLimits) =>
  new DynamoDbRateLimiter({
    client: stack.clients.dynamo,
    tableName: stack.resources.tableName,
    limits: { a: limits, b: limits },
  });

/** Drops both bureaus' buckets, so a test starts from idle ones whatever the previous test left. */
async function idleBuckets(): Promise<void> {
  for (const bureau of ['a', 'b'])
    await stack.clients.dynamo.send(
      new DeleteCommand({
        TableName: stack.resources.tableName,
        Key: { pk: `RATE#${bureau}`, sk: 'BUCKET' },
      }),
    );
}

describeRateLimiterContract('DynamoDbRateLimiter (DynamoDB Local)', async (limits) => {
  await idleBuckets();
  return limiterFor(limits);
});

describe('DynamoDbRateLimiter (shared through DynamoDB Local)', () => {
  it('keeps two workers together under one global rate: rate + burst at most in any second', async () => {
    await idleBuckets();
    // Two limiters stand for two worker processes: only the table is shared.
    const workers = [
      limiterFor({ ratePerSecond: 40, capacity: 4 }),
      limiterFor({ ratePerSecond: 40, capacity: 4 }),
    ];
    const started = Date.now();
    const [first, second] = await Promise.all(workers.map((worker) => sendOnSlots(worker, 40)));
    const sent = [...(first?.sent ?? []), ...(second?.sent ?? [])];

    expect(sent).toHaveLength(80);
    // The bound exactly: each request is stamped when it leaves, right after its slot was found on time.
    expect(busiestSecond(sent)).toBeLessThanOrEqual(40 + 4);
    // 80 requests at 40/s with a burst of 4 take at least (80 − 4) / 40 s.
    expect(Math.max(...sent) - started).toBeGreaterThanOrEqual(1_850);
  }, 30_000);
});
