import { describe, expect, it } from 'vitest';
import {
  awaitsScreening,
  isScreening,
  type RowState,
  stuckClaimsBefore,
} from '../../../src/domain/batch/index.ts';
import { batchRecord, rowRecord } from '../../factories/batch-records.ts';

describe('stuckClaimsBefore', () => {
  it('counts a claim as stuck only once it ran out more than the given seconds ago', () => {
    const now = Date.parse('2026-11-22T03:00:00Z');

    const before = stuckClaimsBefore(now, 360);

    expect(new Date(before).toISOString()).toBe('2026-11-22T02:54:00.000Z');
  });
});

describe('isScreening', () => {
  it.each([
    ['running', true],
    ['ingesting', false],
    ['finalising', false],
    ['completed', false],
    ['failed', false],
  ] as const)('a %s batch: %s', (status, expected) => {
    expect(isScreening(batchRecord({ status }))).toBe(expected);
  });
});

describe('awaitsScreening', () => {
  it.each<[RowState, boolean]>([
    ['queued', true],
    ['claimed', true],
    ['screened', false],
    ['cached', false],
    ['failed', false],
    ['invalid_document', false],
    ['duplicate', false],
    ['cancelled', false],
  ])('a %s row: %s', (state, expected) => {
    expect(awaitsScreening(rowRecord({ state }))).toBe(expected);
  });

  it('never asks to screen a row without a document', () => {
    expect(awaitsScreening(rowRecord({ state: 'queued', document: null }))).toBe(false);
  });
});
