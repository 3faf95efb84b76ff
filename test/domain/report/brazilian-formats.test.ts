import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatBrazilianDate,
  formatMoney,
  parseBrazilianDate,
  parseMoneyCents,
  parsePercentage,
  parseWholeNumber,
} from '../../../src/domain/report/index.ts';

const cents = fc.integer({ min: 0, max: 99_999_999_999_99 });
const bureau = fc.constantFrom('a' as const, 'b' as const);

describe('parseMoneyCents', () => {
  it('round-trips every amount written the way each bureau writes it', () => {
    fc.assert(
      fc.property(cents, bureau, (amount, which) => {
        expect(parseMoneyCents(formatMoney(amount, which), which)).toEqual({ value: amount });
      }),
    );
  });

  it('writes bureau A with thousands dots and bureau B without', () => {
    expect(formatMoney(123_456_789, 'a')).toBe('1.234.567,89');
    expect(formatMoney(123_456_789, 'b')).toBe('1234567,89');
    expect(formatMoney(5, 'a')).toBe('0,05');
  });

  it.each([
    ['1.234,56', 'a', 123_456],
    ['1234,56', 'a', 123_456],
    ['1234,56', 'b', 123_456],
    ['1234,5', 'b', 123_450],
    ['1.000', 'a', 100_000],
    ['R$ 1.234,56', 'a', 123_456],
    [0, 'a', 0],
    [0, 'b', 0],
  ] as const)('reads %j from bureau %s as %i cents', (raw, which, expected) => {
    expect(parseMoneyCents(raw, which)).toEqual({ value: expected });
  });

  it('reads empty and absent values as unknown without a problem', () => {
    expect(parseMoneyCents('', 'a')).toEqual({ value: null });
    expect(parseMoneyCents(undefined, 'b')).toEqual({ value: null });
  });

  it.each([
    ['-1,00', 'a'],
    [-1, 'a'],
    ['1,234.56', 'a'],
    ['12,345', 'b'],
    ['1.234,56', 'b'],
    ['12.34', 'a'],
    ['abc', 'b'],
    [true, 'a'],
  ] as const)('reports %j from bureau %s as a problem', (raw, which) => {
    const parsed = parseMoneyCents(raw, which);
    expect(parsed.value).toBeNull();
    expect(parsed.problem).toEqual(expect.any(String));
  });

  it('never throws and never returns a fraction of a cent', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double(), fc.integer()), bureau, (raw, which) => {
        const parsed = parseMoneyCents(raw, which);
        if (parsed.value !== null) expect(Number.isInteger(parsed.value)).toBe(true);
      }),
    );
  });
});

describe('parseBrazilianDate', () => {
  it('round-trips every real day', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1900-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
        (date) => {
          const iso = date.toISOString().slice(0, 10);
          expect(parseBrazilianDate(formatBrazilianDate(iso))).toEqual({ value: iso });
        },
      ),
    );
  });

  it('reads empty and "-" as unknown', () => {
    expect(parseBrazilianDate('')).toEqual({ value: null });
    expect(parseBrazilianDate('-')).toEqual({ value: null });
  });

  it.each(['31/02/2024', '29/02/2023', '2024-01-01', '1/1/2024', '00/01/2024', 20240101])(
    'reports %j as a problem',
    (raw) => {
      expect(parseBrazilianDate(raw).problem).toEqual(expect.any(String));
    },
  );
});

describe('parsePercentage', () => {
  it.each([
    ['12,5%', 12.5],
    ['12,5', 12.5],
    ['12.5', 12.5],
    ['7', 7],
    ['100%', 100],
    ['0,01 %', 0.01],
  ])('reads %j as %f', (raw, expected) => {
    expect(parsePercentage(raw)).toEqual({ value: expected });
  });

  it.each(['Não calculado', 'NAO CALCULADO', 'não calculada', 'N/A', '-', ''])(
    'reads %j as not calculated',
    (raw) => {
      expect(parsePercentage(raw)).toEqual({ value: null });
    },
  );

  it.each(['alto', '150%', '-3', '12,5,5'])('reports %j as a problem', (raw) => {
    expect(parsePercentage(raw).problem).toEqual(expect.any(String));
  });
});

describe('parseWholeNumber', () => {
  it('reads scores', () => {
    expect(parseWholeNumber('734')).toEqual({ value: 734 });
    expect(parseWholeNumber('')).toEqual({ value: null });
    expect(parseWholeNumber('7,5').problem).toEqual(expect.any(String));
  });
});
