import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, longestBatchSeconds, queueSpecs } from '../../src/contract/index.ts';

describe('longestBatchSeconds', () => {
  it('ends where the work queue alarms (half its retention) when rows are kept longer', () => {
    const settings = { ...DEFAULT_SETTINGS, retentionDays: 90 };

    expect(longestBatchSeconds(settings)).toBe(queueSpecs(settings).work.oldestMessageAlarmSeconds);
    expect(longestBatchSeconds(settings)).toBe(604_800);
  });

  it('is nine tenths of the rows retention when rows expire first', () => {
    expect(longestBatchSeconds({ ...DEFAULT_SETTINGS, retentionDays: 7 })).toBe(Math.floor(7 * 86_400 * 0.9));
    expect(longestBatchSeconds({ ...DEFAULT_SETTINGS, retentionDays: 1 })).toBe(77_760);
  });
});

describe('queueSpecs', () => {
  it('alarms on every queue at half its retention', () => {
    for (const spec of Object.values(queueSpecs(DEFAULT_SETTINGS)))
      expect(spec.oldestMessageAlarmSeconds * 2).toBe(spec.retentionSeconds);
  });
});
