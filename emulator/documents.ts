/**
 * The emulator's own reading of CPF and CNPJ documents, written from the published rules (Receita Federal: mod-11
 * check digits; IN RFB 2.229/2024 for the alphanumeric CNPJ) and deliberately not shared with the pipeline, so a
 * validation bug in the code under test cannot hide behind the same bug in its stand-in.
 */

/** A person's (CPF) or a company's (CNPJ) document. */
export type DocumentKind = 'cpf' | 'cnpj';

/** A document the emulator accepts: bare, uppercase, and what it is. */
export interface AcceptedDocument {
  readonly document: string;
  readonly kind: DocumentKind;
}

/**
 * One mod-11 check digit of `text`: each character's value (its character code minus 48, so `0`-`9` are
 * themselves and `A` is 17) times a weight that runs 2, 3, … from the rightmost character, wrapping back to 2
 * after `largestWeight`; a remainder below 2 gives 0, any other r gives 11 − r.
 */
function mod11CheckDigit(text: string, largestWeight: number): number {
  let sum = 0;
  let weight = 2;
  for (let index = text.length - 1; index >= 0; index--) {
    sum += (text.charCodeAt(index) - 48) * weight;
    weight = weight === largestWeight ? 2 : weight + 1;
  }
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

function twoCheckDigits(base: string, largestWeight: number): string {
  const first = mod11CheckDigit(base, largestWeight);
  return `${first}${mod11CheckDigit(`${base}${first}`, largestWeight)}`;
}

/** The two check digits of a 9-digit CPF base (weights never wrap: 2 to 10, then 2 to 11). */
export function cpfCheckDigits(base: string): string {
  return twoCheckDigits(base, Number.POSITIVE_INFINITY);
}

/** The two check digits of a 12-character CNPJ base (digits, or `0-9A-Z` for the alphanumeric CNPJ). */
export function cnpjCheckDigits(base: string): string {
  return twoCheckDigits(base, 9);
}

const allSameCharacter = (text: string) => /^(.)\1*$/.test(text);

/**
 * A CPF or CNPJ as a client may send it, bare or punctuated (`519.540.222-12`, `11.222.333/0001-81`), or null when
 * it is not one. The interface does not say which written forms the service accepts; the emulator takes these two.
 * Numbers of one repeated digit pass the check digits but are never issued, so they are refused.
 */
export function readDocument(text: string): AcceptedDocument | null {
  const bare = text
    .trim()
    .replace(/[.\-/]/g, '')
    .toUpperCase();
  if (allSameCharacter(bare)) return null;
  if (/^\d{11}$/.test(bare) && cpfCheckDigits(bare.slice(0, 9)) === bare.slice(9))
    return { document: bare, kind: 'cpf' };
  if (/^[0-9A-Z]{12}\d{2}$/.test(bare) && cnpjCheckDigits(bare.slice(0, 12)) === bare.slice(12))
    return { document: bare, kind: 'cnpj' };
  return null;
}

/** The usual written form of a bare document: `519.540.222-12`, `12.ABC.345/01DE-35`. */
export function formatDocument(document: string, kind: DocumentKind): string {
  const pattern = kind === 'cpf' ? /^(.{3})(.{3})(.{3})(.{2})$/ : /^(.{2})(.{3})(.{3})(.{4})(.{2})$/;
  const separators = kind === 'cpf' ? ['.', '.', '-'] : ['.', '.', '/', '-'];
  const parts = pattern.exec(document)?.slice(1) ?? [document];
  return parts.map((part, index) => `${part}${separators[index] ?? ''}`).join('');
}
