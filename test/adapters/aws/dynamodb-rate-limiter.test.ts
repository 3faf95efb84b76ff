import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalServices } from '../../../cli/local/local-services.ts';
import { DynamoDbRateLimiter } from '../../../src/adapters/aws/dynamodb-rate-limiter.ts';
import { DEFAULT_SETTINGS } from '../../../src/contract/index.ts';
import { watchEventLoopLag } from '../../factories/event-loop-lag.ts';
import { sharedDynamoDb } from '../../factories/shared-dynamodb.ts';

let stack: LocalServices;
beforeAll(async () => {
  stack = await LocalServices.start(DEFAULT_SETTINGS, { sharedDynamoDb: sharedDynamoDb() });
  // DynamoDB Local's first conditional writes run cold (class loading, JIT): warmed up here, on the other bureau,
  // so the first grant measured below is a round trip, not the emulator's start.
  await limiterFor(100, 10).acquire('b');
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const limiterFor = (rate: number, burst: number) =>
  new DynamoDbRateLimiter({
    client: stack.clients.dynamo,
    tableName: stack.resources.tableName,
    limits: { a: { ratePerSecond: rate, capacity: burst }, b: { ratePerSecond: rate, capacity: burst } },
  });

describe('DynamoDbRateLimiter (shared through DynamoDB Local)', () => {
  it('keeps two workers together under one global rate', async () => {
    // Two limiters stand for two worker processes: only the table is shared.
    const workers = [limiterFor(40, 4), limiterFor(40, 4)];
    const granted: number[] = [];
    const started = Date.now();
    // A grant is stamped when its callback runs, so a stall can stamp several slots together, pulling up to
    // rate × lag more into one window.
    const lag = watchEventLoopLag();
    await Promise.all(
      Array.from({ length: 80 }, (_, index) =>
        (workers[index % 2] as DynamoDbRateLimiter)
          .acquire('a')
          .then(() => granted.push(Date.now() - started)),
      ),
    );
    const maxLagMs = lag.stop();
    granted.sort((first, second) => first - second);
    // 80 requests at 40/s with a burst of 4 take at least (80 − 4) / 40 s.
    expect(granted.at(-1) as number).toBeGreaterThanOrEqual(1_850);
    // The limit holds on the slots' times. A grant is seen when a reservation's answer has come back and this
    // process has run its callback: a slot used that much late can share a window with the next ones, up to rate ×
    // (round trip + lag). The first grant (a slot due at once) is how long a round trip takes here.
    const roundTripMs = granted[0] as number;
    const allowance = Math.ceil(((maxLagMs + roundTripMs) / 1000) * 40);
    for (const from of granted) {
      const inOneSecond = granted.filter((at) => at >= from && at < from + 1000).length;
      // Timer jitter of a few milliseconds can pull one more into a window.
      expect(inOneSecond).toBeLessThanOrEqual(40 + 4 + 1 + allowance);
    }
    // On a machine that answers promptly the allowance is small: the bound stays a real one.
    expect(allowance).toBeLessThan(40);
  }, 30_000);

  it('holds every worker off after a 429 until the pause ends', async () => {
    const [first, second] = [limiterFor(100, 10), limiterFor(100, 10)];
    const until = Date.now() + 600;
    await first.pauseUntil('b', until);
    await second.acquire('b');
    // Measured against the pause's end, not from after the pause was written (which may itself take a while).
    expect(Date.now()).toBeGreaterThanOrEqual(until - 50);
  });

  it('lets a waiting caller give up', async () => {
    const limiter = limiterFor(1, 1);
    await limiter.acquire('a'); // the one token
    const controller = new AbortController();
    const waiting = limiter.acquire('a', controller.signal);
    setTimeout(() => controller.abort(new Error('invocation ending')), 50);
    await expect(waiting).rejects.toThrow('invocation ending');
  });
});
