import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertValidLimits, fullBucket, takeTokens } from '../../emulator/token-bucket.ts';

describe('token bucket', () => {
  it('never grants more than capacity + rate × elapsed over any run of requests', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 300 }),
        (rate, capacity, gaps) => {
          const limits = { ratePerSecond: rate, capacity };
          let state = fullBucket(limits, 0);
          let now = 0;
          let granted = 0;
          for (const gap of gaps) {
            now += gap;
            const result = takeTokens(state, limits, now);
            state = result.state;
            if (result.granted) granted++;
          }
          expect(granted).toBeLessThanOrEqual(capacity + (rate * now) / 1000 + 1e-9);
        },
      ),
    );
  });

  it('says exactly how long until the next token', () => {
    const limits = { ratePerSecond: 4, capacity: 1 };
    const first = takeTokens(fullBucket(limits, 0), limits, 0);
    expect(first.granted).toBe(true);
    const second = takeTokens(first.state, limits, 100);
    expect(second).toMatchObject({ granted: false, waitMs: 150 });
    expect(takeTokens(second.state, limits, 250).granted).toBe(true);
  });

  it('refuses limits that cannot work', () => {
    expect(() => assertValidLimits({ ratePerSecond: 0, capacity: 1 })).toThrow(
      'rate must be a positive number',
    );
    expect(() => assertValidLimits({ ratePerSecond: 1, capacity: 0.5 })).toThrow(
      'capacity must be at least 1',
    );
  });
});
