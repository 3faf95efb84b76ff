import { describe, expect, it } from 'vitest';
import { BureauCallError } from '../../../src/domain/bureau/index.ts';

describe('BureauCallError', () => {
  it('says the bureau answered when a status came back, and nothing was charged for a refusal', () => {
    const error = new BureauCallError('request rejected', { kind: 'rejected', status: 400 });

    expect(error.answered).toBe(true);
    expect(error.charge).toBe('not_charged');
  });

  it('counts a call without an answer as possibly charged, and an answer too large to read as charged', () => {
    const timeout = new BureauCallError('timed out', { kind: 'transient', status: null });
    const oversized = new BureauCallError('too large', { kind: 'oversized', status: 200, maxBytes: 10 });

    expect(timeout.answered).toBe(false);
    expect(timeout.charge).toBe('unknown');
    expect(oversized.charge).toBe('charged');
  });

  it('logs as a plain object with what failed, and only the fields its kind carries', () => {
    const error = new BureauCallError('rate limited', {
      kind: 'rate_limited',
      status: 429,
      serviceMessage: 'Too many requests',
      retryAfterSeconds: 3,
    });

    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'BureauCallError',
      kind: 'rate_limited',
      status: 429,
      serviceMessage: 'Too many requests',
      message: 'rate limited',
      retryAfterSeconds: 3,
    });
  });
});
