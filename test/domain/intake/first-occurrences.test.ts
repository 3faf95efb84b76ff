import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FirstOccurrences } from '../../../src/domain/intake/first-occurrences.ts';
import { validDocument } from '../../factories/arbitraries.ts';

describe('FirstOccurrences', () => {
  it('answers exactly like a Map of first rows, across growth', () => {
    fc.assert(
      fc.property(
        fc.array(validDocument, { maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 300 }),
        (unique, picks) => {
          // Re-use documents so that duplicates are frequent.
          const sequence =
            unique.length === 0
              ? []
              : [...unique, ...picks.map((pick) => unique[pick % unique.length] as string)];
          const table = new FirstOccurrences();
          const reference = new Map<string, number>();
          sequence.forEach((document, index) => {
            const expected = reference.get(document);
            if (expected === undefined) reference.set(document, index + 1);
            expect(table.firstRowOrRemember(document, index + 1)).toBe(expected);
          });
          expect(table.size).toBe(reference.size);
        },
      ),
    );
  });

  it('never confuses a CPF with the CNPJ of the same number', () => {
    const table = new FirstOccurrences();
    table.firstRowOrRemember('00000000191', 1);
    expect(table.firstRowOrRemember('00000000000191', 2)).toBeUndefined();
  });

  it('holds a hundred thousand documents', () => {
    const table = new FirstOccurrences();
    for (let index = 0; index < 100_000; index++)
      table.firstRowOrRemember(String(10_000_000_000 + index * 7), index + 1);
    expect(table.size).toBe(100_000);
    expect(table.firstRowOrRemember(String(10_000_000_000 + 99_999 * 7), 0)).toBe(100_000);
  });
});
