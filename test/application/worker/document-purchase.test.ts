import { describe, expect, it } from 'vitest';
import { acceptAnswersSince } from '../../../src/application/worker/document-purchase.ts';
import { batchRecord } from '../../factories/batch-records.ts';

describe('acceptAnswersSince: the oldest purchase of another batch a batch reuses', () => {
  const now = Date.parse('2026-11-24T12:00:00.000Z');

  it('is the batch’s creation when it reuses nothing older (freshness off, a portfolio run)', () => {
    const batch = batchRecord({ createdAt: '2026-11-24T11:00:00.000Z', freshnessHours: 0 });

    expect(acceptAnswersSince(batch, now)).toBe('2026-11-24T11:00:00.000Z');
  });

  it('reaches back over the freshness window from now', () => {
    const batch = batchRecord({ createdAt: '2026-11-24T11:00:00.000Z', freshnessHours: 24 });

    expect(acceptAnswersSince(batch, now)).toBe('2026-11-23T12:00:00.000Z');
  });

  it('still accepts a purchase made since the batch began when the batch outlived its window (a long approval)', () => {
    const batch = batchRecord({ createdAt: '2026-11-20T09:00:00.000Z', freshnessHours: 24 });

    expect(acceptAnswersSince(batch, now)).toBe('2026-11-20T09:00:00.000Z');
  });
});
