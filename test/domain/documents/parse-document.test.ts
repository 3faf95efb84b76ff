import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDocument, parseDocument } from '../../../src/domain/documents/index.ts';
import {
  documentWithLeadingZeros,
  validAlphanumericCnpj,
  validDocument,
} from '../../factories/arbitraries.ts';

describe('parseDocument', () => {
  describe('accepted forms', () => {
    it.each([
      ['bare CPF', '51954022212', '51954022212', 'cpf'],
      ['punctuated CPF', '519.540.222-12', '51954022212', 'cpf'],
      ['surrounding spaces', '  519.540.222-12 ', '51954022212', 'cpf'],
      ['NBSP around and inside', '\u00a0519.540.222-12\u00a0', '51954022212', 'cpf'],
      ['tab and zero-width space', '\t51954022212\u200b', '51954022212', 'cpf'],
      ['bare numeric CNPJ', '11222333000181', '11222333000181', 'cnpj'],
      ['punctuated numeric CNPJ', '11.222.333/0001-81', '11222333000181', 'cnpj'],
      ['alphanumeric CNPJ', '12ABC34501DE35', '12ABC34501DE35', 'cnpj'],
      ['punctuated alphanumeric CNPJ', '12.ABC.345/01DE-35', '12ABC34501DE35', 'cnpj'],
      ['lowercase alphanumeric CNPJ', '12.abc.345/01de-35', '12ABC34501DE35', 'cnpj'],
      ['Excel text formula', '="51954022212"', '51954022212', 'cpf'],
      ['Excel leading apostrophe', "'01234567890", '01234567890', 'cpf'],
    ])('%s: %j', (_label, input, document, type) => {
      expect(parseDocument(input)).toEqual({ valid: true, document, type, restoredLeadingZeros: 0 });
    });

    it('normalises every valid document written bare or punctuated, in any case, with blanks around', () => {
      fc.assert(
        fc.property(
          validDocument,
          fc.boolean(),
          fc.boolean(),
          fc.constantFrom('', ' ', '\u00a0', '\t'),
          (document, punctuated, lower, blank) => {
            const type = document.length === 11 ? 'cpf' : 'cnpj';
            let written = punctuated ? formatDocument(document, type) : document;
            if (lower) written = written.toLowerCase();
            const check = parseDocument(`${blank}${written}${blank}`);
            expect(check).toMatchObject({ valid: true, document, type });
          },
        ),
      );
    });
  });

  describe('leading zeros lost by a numeric spreadsheet column', () => {
    it('restores one or two zeros of a CPF when the result passes the check digits', () => {
      expect(parseDocument('1234567890')).toEqual({
        valid: true,
        document: '01234567890',
        type: 'cpf',
        restoredLeadingZeros: 1,
      });
      expect(parseDocument('344775194')).toMatchObject({
        valid: true,
        document: '00344775194',
        restoredLeadingZeros: 2,
      });
    });

    it('restores one or two zeros of a CNPJ when the result passes the check digits', () => {
      expect(parseDocument('1234567000195')).toMatchObject({
        valid: true,
        document: '01234567000195',
        type: 'cnpj',
        restoredLeadingZeros: 1,
      });
      expect(parseDocument('234567000122')).toMatchObject({
        valid: true,
        document: '00234567000122',
        type: 'cnpj',
        restoredLeadingZeros: 2,
      });
    });

    it('recovers every CPF or CNPJ that lost up to two zeros', () => {
      fc.assert(
        fc.property(documentWithLeadingZeros, ({ document, zeros }) => {
          const asNumber = String(Number(document));
          expect(parseDocument(asNumber)).toMatchObject({
            valid: true,
            document,
            restoredLeadingZeros: zeros,
          });
        }),
      );
    });

    it('does not guess when padding does not give a valid document', () => {
      expect(parseDocument('1234567891')).toMatchObject({ valid: false, code: 'wrong_length', type: null });
      expect(parseDocument('1234567000154')).toMatchObject({ valid: false, code: 'wrong_length' });
    });

    it('does not pad shorter values, even when a padded form would validate (000.000.001-91 is a valid CPF)', () => {
      expect(parseDocument('191')).toMatchObject({ valid: false, code: 'wrong_length' });
      expect(parseDocument('19100000')).toMatchObject({ valid: false, code: 'wrong_length' });
    });

    it('points at a CNPJ that lost three or more zeros instead of recovering it', () => {
      // 00.074.683/0001-21 stored as a number has 11 digits: reading it as a CNPJ would be a guess.
      const hinted = parseDocument('74683000121');
      expect(hinted).toMatchObject({ valid: false, code: 'bad_check_digit', type: 'cpf' });
      expect(hinted.valid === false && hinted.reason).toContain('CNPJ missing 3 leading zeros');
    });
  });

  describe('in a column named for one type (the header as evidence)', () => {
    it('restores a CNPJ that lost zeros even when its 11 digits pass as a CPF by chance', () => {
      // 00.040.188/0001-00 stored as a number: 40188000100 is also a valid CPF, somebody else's.
      expect(parseDocument('40188000100')).toMatchObject({ valid: true, type: 'cpf' });
      expect(parseDocument('40188000100', { named: 'cnpj' })).toEqual({
        valid: true,
        document: '00040188000100',
        type: 'cnpj',
        restoredLeadingZeros: 3,
      });
    });

    it.each([
      ['three zeros, not a CPF either', '74683000121', '00074683000121', 3],
      ['Banco do Brasil, eleven zeros', '191', '00000000000191', 11],
      ['one zero, as without a header', '1234567000195', '01234567000195', 1],
    ])('restores a CNPJ missing %s', (_label, input, document, zeros) => {
      expect(parseDocument(input, { named: 'cnpj' })).toEqual({
        valid: true,
        document,
        type: 'cnpj',
        restoredLeadingZeros: zeros,
      });
    });

    it('restores zeros only to a bare number: a value punctuated as a CPF was typed as one', () => {
      expect(parseDocument('401.880.001-00', { named: 'cnpj' })).toMatchObject({
        valid: false,
        code: 'wrong_type',
      });
      expect(parseDocument('401.880.001-00', { seen: 'cnpj' })).toMatchObject({ valid: true, type: 'cpf' });
    });

    it('refuses, with a reason, a value that passes only as a CPF', () => {
      for (const input of ['51954022212', '519.540.222-12']) {
        const check = parseDocument(input, { named: 'cnpj' });
        expect(check).toMatchObject({ valid: false, code: 'wrong_type', type: 'cpf' });
        expect(check.valid === false && check.reason).toBe(
          'a CPF in a column named for CNPJs (not a CNPJ even with leading zeros restored)',
        );
      }
    });

    it('keeps whole CNPJs as they are and refuses what is no CNPJ however padded', () => {
      expect(parseDocument('11.222.333/0001-81', { named: 'cnpj' })).toMatchObject({
        valid: true,
        restoredLeadingZeros: 0,
      });
      expect(parseDocument('12.ABC.345/01DE-35', { named: 'cnpj' })).toMatchObject({
        valid: true,
        type: 'cnpj',
      });
      expect(parseDocument('1234567', { named: 'cnpj' })).toMatchObject({
        valid: false,
        code: 'wrong_length',
        reason: 'wrong length: 7 digits, not a CNPJ even with leading zeros restored',
      });
      expect(parseDocument('0', { named: 'cnpj' })).toMatchObject({ valid: false });
    });

    it('restores any number of lost zeros in a column named for CPFs, and still reads a whole CNPJ there', () => {
      expect(parseDocument('191', { named: 'cpf' })).toEqual({
        valid: true,
        document: '00000000191',
        type: 'cpf',
        restoredLeadingZeros: 8,
      });
      expect(parseDocument('191')).toMatchObject({ valid: false, code: 'wrong_length' });
      // 14 characters cannot be a damaged CPF: a CNPJ written whole is read as one.
      expect(parseDocument('11222333000181', { named: 'cpf' })).toMatchObject({ valid: true, type: 'cnpj' });
    });
  });

  describe('in a column whose other rows are all CNPJs (its values as evidence)', () => {
    it('reads a number that passes as both as a CNPJ missing zeros, and a CPF that is only a CPF as a CPF', () => {
      expect(parseDocument('40188000100', { seen: 'cnpj' })).toMatchObject({
        valid: true,
        document: '00040188000100',
        type: 'cnpj',
        restoredLeadingZeros: 3,
      });
      expect(parseDocument('51954022212', { seen: 'cnpj' })).toMatchObject({ valid: true, type: 'cpf' });
      expect(parseDocument('191', { seen: 'cnpj' })).toMatchObject({ valid: false, code: 'wrong_length' });
    });
  });

  describe('rejections carry a short human reason', () => {
    it.each([
      ['empty', '', 'empty', 'empty'],
      ['blank', ' \u00a0 ', 'empty', 'empty'],
      ['only punctuation', '..-/', 'empty', 'empty'],
      ['pt-BR scientific notation', '1,23457E+13', 'scientific_notation', 'scientific notation: digits lost'],
      ['en scientific notation', '5.19E+10', 'scientific_notation', 'scientific notation: digits lost'],
      ['lowercase scientific notation', '5e10', 'scientific_notation', 'scientific notation: digits lost'],
      ['illegal character', '519#540#222-12', 'illegal_characters', 'illegal character "#"'],
      [
        'letters in a CPF',
        '5195402221A',
        'illegal_characters',
        'illegal characters: letters are only valid in a 14-character CNPJ',
      ],
      [
        'letters in the CNPJ check digits',
        '12ABC34501DE3X',
        'illegal_characters',
        'illegal characters: the CNPJ check digits must be numeric',
      ],
      ['too short', '1234567', 'wrong_length', 'wrong length: 7 digits (a CPF has 11, a CNPJ 14)'],
      ['too long', '123456789012345', 'wrong_length', 'wrong length: 15 digits (a CPF has 11, a CNPJ 14)'],
      ['bad CPF check digit', '519.540.222-13', 'bad_check_digit', 'bad CPF check digit'],
      ['bad CNPJ check digit', '11.222.333/0001-82', 'bad_check_digit', 'bad CNPJ check digit'],
      ['bad alphanumeric CNPJ check digit', '12ABC34501DE36', 'bad_check_digit', 'bad CNPJ check digit'],
    ])('%s: %j', (_label, input, code, reason) => {
      expect(parseDocument(input)).toMatchObject({ valid: false, code, reason });
    });

    it.each([...'0123456789'])('rejects the repeated-digit CPF and CNPJ of %s', (digit) => {
      expect(
        parseDocument(`${digit.repeat(3)}.${digit.repeat(3)}.${digit.repeat(3)}-${digit.repeat(2)}`),
      ).toMatchObject({
        valid: false,
        code: 'repeated_digits',
        reason: 'repeated digits',
        type: 'cpf',
      });
      expect(parseDocument(digit.repeat(14))).toMatchObject({
        valid: false,
        code: 'repeated_digits',
        type: 'cnpj',
      });
    });

    it('tells the type when the shape tells it', () => {
      expect(parseDocument('51954022213')).toMatchObject({ type: 'cpf' });
      expect(parseDocument('11222333000182')).toMatchObject({ type: 'cnpj' });
      expect(parseDocument('1,23457E+13')).toMatchObject({ type: null });
    });

    it('never throws, whatever the input', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (input) => {
          const check = parseDocument(input);
          if (check.valid) expect(check.document).toMatch(/^(\d{11}|[0-9A-Z]{12}\d{2})$/);
          else expect(check.reason.length).toBeGreaterThan(0);
        }),
      );
    });
  });

  it('accepts alphanumeric CNPJs only with a valid check', () => {
    fc.assert(
      fc.property(validAlphanumericCnpj, (cnpj) => {
        expect(parseDocument(cnpj)).toMatchObject({ valid: true, type: 'cnpj' });
      }),
    );
  });
});
