import { hasValidCnpjCheckDigits, hasValidCpfCheckDigits } from './check-digits.ts';

/** The two Brazilian tax documents the pipeline screens: people (CPF) and companies (CNPJ). */
export type DocumentType = 'cpf' | 'cnpj';

/** Why a value is not a usable document. Stable codes for programs; {@link InvalidDocument.reason} is for people. */
export type RejectionCode =
  | 'empty'
  | 'scientific_notation'
  | 'illegal_characters'
  | 'wrong_length'
  | 'repeated_digits'
  | 'bad_check_digit'
  | 'wrong_type';

/** A value that is a CPF or a CNPJ, in normalised form (bare, uppercase). */
interface ValidDocument {
  readonly valid: true;
  readonly document: string;
  readonly type: DocumentType;
  /** Leading zeros put back because a spreadsheet stored the document as a number (0 when none). */
  readonly restoredLeadingZeros: number;
}

/** A value that cannot be screened, with a short reason a person understands. */
interface InvalidDocument {
  readonly valid: false;
  readonly code: RejectionCode;
  readonly reason: string;
  /** The document type when the shape tells it (e.g. 11 digits with a bad check digit is a CPF), else null. */
  readonly type: DocumentType | null;
}

export type DocumentCheck = ValidDocument | InvalidDocument;

/** What the rest of a value's column says about its type: how a number that lost leading zeros is read. */
export interface ColumnEvidence {
  /**
   * The type the column's header names. Zeros are restored to that type's length, any number of them, and in a
   * column named for CNPJs a value that passes only as a CPF is refused (it would screen a stranger).
   */
  readonly named?: DocumentType | null;
  /**
   * The type of every other document seen in the column, whose header names both types or none. It only breaks
   * ties: a number that passes as a CPF and as a CNPJ with zeros restored is read as a CNPJ when the column holds
   * CNPJs. Nothing is refused on this evidence.
   */
  readonly seen?: DocumentType | null;
}

const CPF_LENGTH = 11;
const CNPJ_LENGTH = 14;

// Surrounding blanks include NBSP and the other Unicode spaces that copy-paste from web pages and Excel brings in.
const SURROUNDING_BLANKS = /^[\s\u200B\uFEFF]+|[\s\u200B\uFEFF]+$/g;
// Punctuation of the written forms (519.540.222-12, 12.ABC.345/01DE-35), plus blanks inside the value.
const PUNCTUATION = /[.\-/\s\u200B\uFEFF]/g;
// Excel renders long numbers like 12345678000195 as 1,23457E+13 (pt-BR) or 1.23457E+13: the digits are gone.
const SCIENTIFIC_NOTATION = /^[+-]?\d+(?:[.,]\d+)?e[+-]?\d+$/i;
// ="01234567890" is the usual Excel trick to keep leading zeros in a CSV; a leading apostrophe is another.
const EXCEL_TEXT_FORMULA = /^="(.*)"$/;

function invalid(code: RejectionCode, reason: string, type: DocumentType | null = null): InvalidDocument {
  return { valid: false, code, reason, type };
}

function valid(document: string, type: DocumentType, restoredLeadingZeros = 0): ValidDocument {
  return { valid: true, document, type, restoredLeadingZeros };
}

function isRepeatedCharacter(value: string): boolean {
  return value.split('').every((character) => character === value[0]);
}

/**
 * A CNPJ that lost three or more leading zeros looks like a CPF or a short number. Recovering it would be a guess
 * (a mistyped CPF passes as a padded CNPJ once in a hundred), so it stays invalid, but the reason says what to fix.
 */
function lostCnpjZerosHint(digits: string): string {
  if (digits.length < 8 || digits.length > CPF_LENGTH) return '';
  const padded = digits.padStart(CNPJ_LENGTH, '0');
  if (!hasValidCnpjCheckDigits(padded)) return '';
  return ` (it fits a CNPJ missing ${CNPJ_LENGTH - digits.length} leading zeros: export the column as text)`;
}

const LENGTH_OF: Readonly<Record<DocumentType, number>> = { cpf: CPF_LENGTH, cnpj: CNPJ_LENGTH };
const PASSES: Readonly<Record<DocumentType, (value: string) => boolean>> = {
  cpf: hasValidCpfCheckDigits,
  cnpj: hasValidCnpjCheckDigits,
};

/**
 * A number shorter than the type its column is named for: a spreadsheet dropped its leading zeros. The header
 * removes the doubt that makes {@link checkDigitsOnly} stop at two zeros, so any number of them is put back when the
 * padded value passes the check digits (00.000.000/0001-91 is stored as 191). Undefined when it does not pass.
 */
function restoreToColumnType(digits: string, expected: DocumentType): ValidDocument | undefined {
  const length = LENGTH_OF[expected];
  if (digits.length >= length) return undefined;
  const padded = digits.padStart(length, '0');
  if (!PASSES[expected](padded) || isRepeatedCharacter(padded)) return undefined;
  return valid(padded, expected, length - digits.length);
}

/**
 * Reads a bare number in a column named for one type. In a CNPJ column an 11-digit value is most likely a CNPJ
 * that lost three zeros; when it passes only as a CPF it is refused, since querying it would screen a stranger.
 * In a CPF column a CNPJ written whole (12 to 14 digits) cannot be a damaged CPF, so it is read as usual.
 * Zeros are restored only to a value written as a bare number (`asNumber`): a spreadsheet drops the zeros of
 * numbers, while `401.880.001-00` was typed as a CPF.
 */
function checkDigitsInTypedColumn(digits: string, expected: DocumentType, asNumber: boolean): DocumentCheck {
  const restored = asNumber ? restoreToColumnType(digits, expected) : undefined;
  if (restored !== undefined) return restored;
  const check = checkDigitsOnly(digits);
  if (expected === 'cnpj' && digits.length < CNPJ_LENGTH) {
    if (check.valid) {
      return invalid(
        'wrong_type',
        'a CPF in a column named for CNPJs (not a CNPJ even with leading zeros restored)',
        'cpf',
      );
    }
    return invalid(
      'wrong_length',
      `wrong length: ${digits.length} digits, not a CNPJ even with leading zeros restored`,
    );
  }
  return check;
}

/**
 * A number of 8 to 13 digits in a column of CNPJs: a CNPJ that lost zeros when its padded form passes, even where
 * the digits would also pass as a CPF. Undefined otherwise.
 */
function restoreLikelyCnpj(digits: string): ValidDocument | undefined {
  if (digits.length < 8) return undefined;
  return restoreToColumnType(digits, 'cnpj');
}

function checkDigitsOnly(digits: string): DocumentCheck {
  const length = digits.length;
  if (length === CPF_LENGTH || length === CNPJ_LENGTH) {
    const type: DocumentType = length === CPF_LENGTH ? 'cpf' : 'cnpj';
    // All-same-digit numbers pass the mod-11 test but are never issued.
    if (isRepeatedCharacter(digits)) return invalid('repeated_digits', 'repeated digits', type);
    const passes = type === 'cpf' ? hasValidCpfCheckDigits(digits) : hasValidCnpjCheckDigits(digits);
    if (passes) return valid(digits, type);
    return invalid(
      'bad_check_digit',
      `bad ${type.toUpperCase()} check digit${lostCnpjZerosHint(digits)}`,
      type,
    );
  }
  // A numeric spreadsheet column drops leading zeros. Put them back only when the result passes the check digits:
  // a CPF that lost one or two zeros, a CNPJ that lost one or two. Anything shorter is too ambiguous to guess.
  const targetType: DocumentType | null =
    length >= CPF_LENGTH - 2 && length < CPF_LENGTH
      ? 'cpf'
      : length >= CNPJ_LENGTH - 2 && length < CNPJ_LENGTH
        ? 'cnpj'
        : null;
  if (targetType !== null) {
    const targetLength = targetType === 'cpf' ? CPF_LENGTH : CNPJ_LENGTH;
    const padded = digits.padStart(targetLength, '0');
    const passes = targetType === 'cpf' ? hasValidCpfCheckDigits(padded) : hasValidCnpjCheckDigits(padded);
    if (passes && !isRepeatedCharacter(padded)) return valid(padded, targetType, targetLength - length);
    return invalid(
      'wrong_length',
      `wrong length: ${length} digits, not a ${targetType.toUpperCase()} even with leading zeros restored` +
        (targetType === 'cpf' ? lostCnpjZerosHint(digits) : ''),
    );
  }
  return invalid(
    'wrong_length',
    `wrong length: ${length} digits (a CPF has 11, a CNPJ 14)${lostCnpjZerosHint(digits)}`,
  );
}

/**
 * Validates and normalises one CPF or CNPJ as typed by a person or exported by a spreadsheet.
 *
 * Accepts bare and punctuated forms, surrounding blanks (NBSP included), lowercase letters, and the alphanumeric
 * CNPJ (12 characters of `0-9A-Z` plus two numeric check digits). Never throws: every rejection carries a reason.
 *
 * @param column what the value's column says about its type ({@link ColumnEvidence}); none by default.
 */
export function parseDocument(input: string, column: ColumnEvidence = {}): DocumentCheck {
  let text = input.replace(SURROUNDING_BLANKS, '');
  const excelText = EXCEL_TEXT_FORMULA.exec(text);
  if (excelText) text = (excelText[1] ?? '').replace(SURROUNDING_BLANKS, '');
  else if (text.startsWith("'")) text = text.slice(1).replace(SURROUNDING_BLANKS, '');

  if (text === '') return invalid('empty', 'empty');
  if (SCIENTIFIC_NOTATION.test(text))
    return invalid('scientific_notation', 'scientific notation: digits lost');

  const bare = text.replace(PUNCTUATION, '').toUpperCase();
  const illegal = bare.match(/[^0-9A-Z]/);
  if (illegal) return invalid('illegal_characters', `illegal character ${JSON.stringify(illegal[0])}`);
  if (bare === '') return invalid('empty', 'empty');

  if (/^\d+$/.test(bare)) {
    const asNumber = bare.length === text.length;
    if (column.named) return checkDigitsInTypedColumn(bare, column.named, asNumber);
    if (column.seen === 'cnpj' && asNumber) return restoreLikelyCnpj(bare) ?? checkDigitsOnly(bare);
    return checkDigitsOnly(bare);
  }

  // Letters: only the alphanumeric CNPJ has them, in its first 12 characters; its check digits stay numeric.
  if (bare.length !== CNPJ_LENGTH) {
    return invalid('illegal_characters', 'illegal characters: letters are only valid in a 14-character CNPJ');
  }
  if (!/^\d{2}$/.test(bare.slice(12))) {
    return invalid('illegal_characters', 'illegal characters: the CNPJ check digits must be numeric', 'cnpj');
  }
  return hasValidCnpjCheckDigits(bare)
    ? valid(bare, 'cnpj')
    : invalid('bad_check_digit', 'bad CNPJ check digit', 'cnpj');
}
