import { describe, expect, it } from 'vitest';
import { callingTimeMs } from '../../../lambdas/worker/worker-handler.ts';

describe('how long a worker invocation starts bureau calls', () => {
  it('stops early enough for the last call to time out and settle before Lambda stops the function', () => {
    // The deployed defaults: 60 s functions, 20 s calls.
    expect(callingTimeMs(60_000, 20)).toBe(39_000);
    expect(callingTimeMs(60_000, 20) + 20_000).toBeLessThan(60_000);
  });

  it('still gives an invocation a second when its timeouts leave less', () => {
    expect(callingTimeMs(3_000, 1)).toBe(1_000);
    expect(callingTimeMs(500, 20)).toBe(1_000);
  });
});
