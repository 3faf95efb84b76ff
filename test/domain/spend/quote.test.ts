import { describe, expect, it } from 'vitest';
import {
  describeOverrun,
  formatBrl,
  formatDuration,
  overrunOf,
  quoteOf,
} from '../../../src/domain/spend/index.ts';

describe('quoteOf', () => {
  it('buys the unique documents no fresh report answers, at the price, in centavos', () => {
    const quote = quoteOf({ bureau: 'b', unique: 1001, reusable: 1, pricePerQuery: 8.4, ratePerSecond: 10 });

    expect(quote).toEqual({
      bureau: 'b',
      unique: 1001,
      reusable: 1,
      to_buy: 1000,
      price_per_query: 8.4,
      estimated_cost: 8400,
      currency: 'BRL',
      estimated_seconds: 100,
    });
  });

  it('buys everything when reuse is unknown, and never a negative count', () => {
    expect(
      quoteOf({ bureau: 'a', unique: 3, reusable: null, pricePerQuery: 2.7, ratePerSecond: 50 }),
    ).toMatchObject({
      to_buy: 3,
      estimated_cost: 8.1,
      estimated_seconds: 1,
    });
    expect(
      quoteOf({ bureau: 'a', unique: 0, reusable: 0, pricePerQuery: 2.7, ratePerSecond: 50 }).to_buy,
    ).toBe(0);
  });

  it('adds no binary fractions to the total (0.1 + 0.2 stays 0.3)', () => {
    expect(
      quoteOf({ bureau: 'a', unique: 3, reusable: 0, pricePerQuery: 0.1, ratePerSecond: 1 }).estimated_cost,
    ).toBe(0.3);
  });
});

describe('formatBrl and formatDuration', () => {
  it('writes reais as a Brazilian reads them', () => {
    expect(formatBrl(1234.56)).toBe('R$ 1.234,56');
    expect(formatBrl(8.4)).toBe('R$ 8,40');
    expect(formatBrl(2_520_000)).toBe('R$ 2.520.000,00');
  });

  it('writes seconds, minutes and hours', () => {
    expect([formatDuration(45), formatDuration(61), formatDuration(7500)]).toEqual([
      '45 s',
      '2 min',
      '2 h 05 min',
    ]);
  });
});

describe('overrunOf', () => {
  const quoteFor = (toBuy: number) =>
    quoteOf({ bureau: 'a', unique: toBuy, reusable: 0, pricePerQuery: 2.7, ratePerSecond: 10 });

  it('is null while the queries end within the limit, the limit itself included', () => {
    expect(overrunOf(quoteFor(1000), 10, 100)).toBeNull();
    expect(overrunOf(quoteFor(0), 10, 100)).toBeNull();
  });

  it('proposes as many parts as the limit needs, each of what the rate does in it, or the rate that fits', () => {
    expect(overrunOf(quoteFor(12_000_001), 10, 1_000_000)).toEqual({
      limit_seconds: 1_000_000,
      parts: 2,
      documents_per_part: 10_000_000,
      rate_per_second: 12.01,
    });
  });

  it('keeps one document a part when the rate does less than one in the limit', () => {
    expect(overrunOf(quoteFor(3), 0.01, 50)).toMatchObject({
      parts: 3,
      documents_per_part: 1,
      rate_per_second: 0.06,
    });
  });

  it('says the limit in days, or in hours under a day, and that the parts run one after another', () => {
    const week = overrunOf(quoteFor(12_000_001), 10, 604_800);
    const hours = overrunOf(quoteFor(1_000_000), 10, 77_760);

    expect(week && describeOverrun(week)).toBe(
      'too long for one batch: its queries must end within 7 days, to leave time before a queued document expires; split the documents to buy into 2 lists of at most 6048000 each, screened one after another, or screen at 19.85 queries per second',
    );
    expect(hours && describeOverrun(hours)).toMatch(/must end within 21 h 36 min, /);
  });
});
