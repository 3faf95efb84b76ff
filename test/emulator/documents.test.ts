import { describe, expect, it } from 'vitest';
import { cnpjCheckDigits, cpfCheckDigits, formatDocument, readDocument } from '../../emulator/documents.ts';
import { SeededRandom } from '../../emulator/seeded-random.ts';
import * as pipeline from '../../src/domain/documents/index.ts';

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
const random = new SeededRandom('emulator documents');
const characters = (count: number, alphabet: readonly string[]) =>
  Array.from({ length: count }, () => random.pick(alphabet)).join('');

describe("the emulator's check digits", () => {
  it("agree with the pipeline's own, written apart, on 3,000 random bases", () => {
    for (let index = 0; index < 1_000; index++) {
      const cpfBase = random.digits(9);
      const cnpjBase = random.digits(12);
      const alphanumericBase = characters(12, ALPHANUMERIC);
      expect(cpfCheckDigits(cpfBase)).toBe(pipeline.cpfCheckDigits(cpfBase));
      expect(cnpjCheckDigits(cnpjBase)).toBe(pipeline.cnpjCheckDigits(cnpjBase));
      expect(cnpjCheckDigits(alphanumericBase)).toBe(pipeline.cnpjCheckDigits(alphanumericBase));
    }
  });

  it('give the published examples', () => {
    expect(cpfCheckDigits('519540222')).toBe('12');
    expect(cnpjCheckDigits('112223330001')).toBe('81');
    expect(cnpjCheckDigits('12ABC34501DE')).toBe('35');
  });
});

describe('readDocument', () => {
  it.each([
    ['51954022212', { document: '51954022212', kind: 'cpf' }],
    [' 519.540.222-12 ', { document: '51954022212', kind: 'cpf' }],
    ['11.222.333/0001-81', { document: '11222333000181', kind: 'cnpj' }],
    ['12.abc.345/01de-35', { document: '12ABC34501DE35', kind: 'cnpj' }],
  ])('accepts %j', (text, expected) => {
    expect(readDocument(text)).toEqual(expected);
  });

  it.each([
    ['a bad check digit', '51954022213'],
    ['repeated digits', '111.111.111-11'],
    ['a wrong length', '5195402221'],
    ['letters in a CPF-length value', '5195402221A'],
    ['letters in the CNPJ check digits', '12ABC34501DE3A'],
    ['nothing', ''],
  ])('refuses %s', (_, text) => {
    expect(readDocument(text)).toBeNull();
  });
});

describe('formatDocument', () => {
  it('writes the usual forms of a CPF and of a CNPJ', () => {
    expect(formatDocument('51954022212', 'cpf')).toBe('519.540.222-12');
    expect(formatDocument('12ABC34501DE35', 'cnpj')).toBe('12.ABC.345/01DE-35');
  });
});
