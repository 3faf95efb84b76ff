import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, longestBatchSeconds, queueSpecs } from '../../src/contract/index.ts';

describe('longestBatchSeconds', () => {
  it('is nine tenths of the queue retention when rows are kept longer', () => {
    const settings = { ...DEFAULT_SETTINGS, retentionDays: 90 };

    expect(longestBatchSeconds(settings)).toBe(Math.floor(queueSpecs(settings).work.retentionSeconds * 0.9));
    expect(longestBatchSeconds(settings)).toBe(1_088_640);
  });

  it('is nine tenths of the rows retention when rows expire first', () => {
    expect(longestBatchSeconds({ ...DEFAULT_SETTINGS, retentionDays: 7 })).toBe(Math.floor(7 * 86_400 * 0.9));
  });
});

describe('queueSpecs', () => {
  it('alarms on every queue at half its retention', () => {
    for (const spec of Object.values(queueSpecs(DEFAULT_SETTINGS)))
      expect(spec.oldestMessageAlarmSeconds * 2).toBe(spec.retentionSeconds);
  });
});
