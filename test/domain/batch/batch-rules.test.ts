import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backoffSeconds,
  batchIdFor,
  bureauForKey,
  DEFAULT_RETRY_POLICY,
  parseMessage,
  rateLimitDelaySeconds,
  workMessageSchema,
} from '../../../src/domain/batch/index.ts';

describe('bureauForKey', () => {
  it.each([
    ['incoming/a/list.csv', 'a'],
    ['incoming/b/list.csv', 'b'],
    ['incoming/b/deep/list.csv', 'b'],
    ['incoming/list.csv', 'b'],
    ['incoming/c/list.csv', 'b'],
  ] as const)('%s → bureau %s (default b)', (key, bureau) => {
    expect(bureauForKey(key, 'b')).toBe(bureau);
  });
});

describe('batchIdFor', () => {
  it('is the same for the same upload event and different for a new upload of the same file', () => {
    const upload = { bucket: 'b', key: 'incoming/a/x.csv', sequencer: '01', eTag: 'e' };
    expect(batchIdFor(upload)).toBe(batchIdFor({ ...upload }));
    expect(batchIdFor({ ...upload, sequencer: '02' })).not.toBe(batchIdFor(upload));
    expect(batchIdFor({ ...upload, versionId: 'v2' })).not.toBe(batchIdFor(upload));
  });

  it('is opaque: neither the key nor a date shows in it', () => {
    const id = batchIdFor({ bucket: 'b', key: 'incoming/a/12345678000195.csv', sequencer: '01' });
    expect(id).toMatch(/^[0-9a-f]{24}$/);
  });
});

describe('retry policy', () => {
  it('backs off exponentially with full jitter, never below 1 s nor above the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, roll) => {
          const delay = backoffSeconds(DEFAULT_RETRY_POLICY, attempt, () => roll);
          expect(delay).toBeGreaterThanOrEqual(1);
          expect(delay).toBeLessThanOrEqual(
            Math.min(
              DEFAULT_RETRY_POLICY.maxDelaySeconds,
              DEFAULT_RETRY_POLICY.baseDelaySeconds * 2 ** (attempt - 1),
            ),
          );
        },
      ),
    );
    expect(backoffSeconds(DEFAULT_RETRY_POLICY, 4, () => 0.999)).toBe(16);
  });

  it("waits at least the service's Retry-After after a 429", () => {
    expect(rateLimitDelaySeconds(7, () => 0)).toBe(7);
    expect(rateLimitDelaySeconds(7, () => 0.99)).toBeLessThanOrEqual(11);
    expect(rateLimitDelaySeconds(null, () => 0)).toBe(1);
  });
});

describe('work messages', () => {
  it('reads valid messages and refuses anything else', () => {
    const message = { version: 1, batchId: 'x', row: 3, document: '51954022212', bureau: 'a' };
    expect(parseMessage(workMessageSchema, JSON.stringify(message))).toEqual(message);
    expect(parseMessage(workMessageSchema, JSON.stringify({ ...message, document: '123' }))).toBeNull();
    expect(parseMessage(workMessageSchema, 'not json')).toBeNull();
  });
});
