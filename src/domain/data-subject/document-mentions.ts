import { formatDocument } from '../documents/index.ts';

/**
 * Where a document can be written in a file: bare (`41567638031`), formatted (`415.676.380-31`), inside a longer
 * cell (`CPF 415.676.380-31`), or, in a spreadsheet's export, as a number that lost its leading zeros. A token is a
 * run of letters and digits with the punctuation documents are written with; tokens are compared whole, so a CPF
 * is never found inside a longer number (a CNPJ, an amount, a query code).
 */
const TOKEN = /[0-9A-Za-z][0-9A-Za-z./-]*/g;
const DOCUMENT_PUNCTUATION = /[./-]/g;
/**
 * The shortest number read as a document that lost its leading zeros. Excel drops every leading zero, but a
 * shorter number is far more often an amount or a count than a document with four zeros or more in front.
 */
const SHORTEST_ZERO_STRIPPED = 8;

/** The two ways the pipeline itself writes a document: bare and formatted. */
export function documentSpellings(document: string): readonly string[] {
  return [document, formatDocument(document, document.length === 11 ? 'cpf' : 'cnpj')];
}

const bare = (token: string): string => token.replace(DOCUMENT_PUNCTUATION, '').toUpperCase();

/** Whether a token, without its punctuation, is the document (or the document without its leading zeros). */
function tokenIsDocument(token: string, document: string, zeroStripped: boolean): boolean {
  const value = bare(token);
  if (value === document) return true;
  return (
    zeroStripped &&
    value.length >= SHORTEST_ZERO_STRIPPED &&
    value.length < document.length &&
    /^\d+$/.test(value) &&
    value.padStart(document.length, '0') === document
  );
}

/** A token, or one of its parts between slashes (a path `x/41567638031/y`; a formatted CNPJ is matched whole). */
function tokenNames(token: string, document: string, zeroStripped: boolean): boolean {
  if (tokenIsDocument(token, document, zeroStripped)) return true;
  return (
    token.includes('/') && token.split('/').some((part) => tokenIsDocument(part, document, zeroStripped))
  );
}

/** Whether a CSV cell holds the document: alone, formatted, among other words, or as a number without its zeros. */
export function cellHoldsDocument(cell: string, document: string): boolean {
  for (const token of cell.match(TOKEN) ?? []) if (tokenNames(token, document, true)) return true;
  return false;
}

/**
 * Whether a text (a JSON line, a page, a raw answer) names the document, bare or formatted. Zero-stripped numbers
 * are not looked for here: outside a cell of its own, a short number is an amount, not a document.
 */
export function textMentionsDocument(text: string, document: string): boolean {
  // Most texts do not name it at all: a plain search on the last digits skips tokenising them.
  const tail = document.slice(-2);
  if (!text.includes(tail)) return false;
  for (const token of text.match(TOKEN) ?? []) if (tokenNames(token, document, false)) return true;
  return false;
}
