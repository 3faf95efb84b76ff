import fc from 'fast-check';
import { cnpjCheckDigits, cpfCheckDigits } from '../../src/domain/documents/index.ts';

const digit = fc.constantFrom(...'0123456789'.split(''));
const alphanumeric = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split(''));

/** A valid bare CPF (all-same-digit numbers excluded: they are never issued). */
export const validCpf = fc
  .array(digit, { minLength: 9, maxLength: 9 })
  .map((digits) => digits.join(''))
  .filter((base) => !/^(\d)\1{8}$/.test(base))
  .map((base) => base + cpfCheckDigits(base));

/** A valid bare numeric CNPJ. */
export const validNumericCnpj = fc
  .array(digit, { minLength: 12, maxLength: 12 })
  .map((digits) => digits.join(''))
  .filter((base) => !/^(\d)\1{11}$/.test(base))
  .map((base) => base + cnpjCheckDigits(base));

/** A valid alphanumeric CNPJ with at least one letter. */
export const validAlphanumericCnpj = fc
  .array(alphanumeric, { minLength: 12, maxLength: 12 })
  .map((characters) => characters.join(''))
  .filter((base) => /[A-Z]/.test(base))
  .map((base) => base + cnpjCheckDigits(base));

export const validDocument = fc.oneof(validCpf, validNumericCnpj, validAlphanumericCnpj);

/** A valid CPF or numeric CNPJ that starts with exactly one or two zeros, as a numeric spreadsheet cell loses them. */
export const documentWithLeadingZeros = fc
  .record({
    zeros: fc.integer({ min: 1, max: 2 }),
    isCpf: fc.boolean(),
    leading: fc.integer({ min: 1, max: 9 }),
    rest: fc.array(digit, { minLength: 10, maxLength: 10 }).map((digits) => digits.join('')),
  })
  .map(({ zeros, isCpf, leading, rest }) => {
    const length = isCpf ? 9 : 12;
    const base = ('0'.repeat(zeros) + String(leading) + rest).slice(0, length);
    return { document: base + (isCpf ? cpfCheckDigits(base) : cnpjCheckDigits(base)), zeros };
  });
