import type { DocumentType } from './parse-document.ts';

/** The usual written form of a normalised document: `519.540.222-12`, `12.ABC.345/01DE-35`. */
export function formatDocument(document: string, type: DocumentType): string {
  if (type === 'cpf') {
    return `${document.slice(0, 3)}.${document.slice(3, 6)}.${document.slice(6, 9)}-${document.slice(9)}`;
  }
  return `${document.slice(0, 2)}.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-${document.slice(12)}`;
}

/**
 * A document masked for logs and messages (LGPD): enough to tell records apart, not enough to identify a person.
 * CPF keeps digits 4 to 9 (`***.540.222-**`, the pattern public services use); CNPJ keeps the root's middle and
 * the branch (`**.345.678/0001-**`). Anything that is not a normalised document is masked whole.
 */
export function maskDocument(document: string): string {
  if (/^\d{11}$/.test(document)) return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`;
  if (/^[0-9A-Z]{12}\d{2}$/.test(document)) {
    return `**.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-**`;
  }
  return '*'.repeat(Math.min(document.length, 14));
}

/**
 * A cell's digits masked but the 4th to the 9th, as {@link maskDocument} masks a document: a mistyped CPF (still
 * somebody's, but for a digit) is not shown whole either.
 */
export function maskDigits(input: string): string {
  let digits = 0;
  return input.replace(/\d/g, (digit) => {
    digits++;
    return digits >= 4 && digits <= 9 ? digit : '*';
  });
}
