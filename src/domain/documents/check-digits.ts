/**
 * Mod-11 check digits shared by CPF and CNPJ.
 *
 * Both documents compute each check digit as a weighted sum modulo 11, where a remainder below 2 gives 0 and
 * any other remainder r gives 11 - r. Only the weights and the value of a character differ.
 */

/** Value of one character for the alphanumeric CNPJ rule (IN RFB 2.229/2024): its ASCII code minus 48. */
function characterValue(code: number): number {
  return code - 48;
}

function mod11Digit(text: string, weights: readonly number[]): number {
  let sum = 0;
  for (let index = 0; index < weights.length; index++) {
    sum += characterValue(text.charCodeAt(index)) * (weights[index] as number);
  }
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

const CPF_FIRST_WEIGHTS = [10, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CPF_SECOND_WEIGHTS = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CNPJ_FIRST_WEIGHTS = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CNPJ_SECOND_WEIGHTS = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/** The two check digits of a 9-digit CPF base. */
export function cpfCheckDigits(base: string): string {
  const first = mod11Digit(base, CPF_FIRST_WEIGHTS);
  const second = mod11Digit(`${base}${first}`, CPF_SECOND_WEIGHTS);
  return `${first}${second}`;
}

/** The two check digits of a 12-character CNPJ base (digits, or `0-9A-Z` for the alphanumeric CNPJ). */
export function cnpjCheckDigits(base: string): string {
  const first = mod11Digit(base, CNPJ_FIRST_WEIGHTS);
  const second = mod11Digit(`${base}${first}`, CNPJ_SECOND_WEIGHTS);
  return `${first}${second}`;
}

/** True when `value` is 11 digits whose last two are the check digits of the first nine. */
export function hasValidCpfCheckDigits(value: string): boolean {
  return /^\d{11}$/.test(value) && cpfCheckDigits(value.slice(0, 9)) === value.slice(9);
}

/** True when `value` is 12 characters of `0-9A-Z` plus two numeric check digits that match them. */
export function hasValidCnpjCheckDigits(value: string): boolean {
  return /^[0-9A-Z]{12}\d{2}$/.test(value) && cnpjCheckDigits(value.slice(0, 12)) === value.slice(12);
}
