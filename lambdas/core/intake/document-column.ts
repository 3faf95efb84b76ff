import { parseDocument } from '../documents/index.ts';

/**
 * Header names that mean "the CPF/CNPJ column", compared folded: lowercase, accents removed, and anything that is
 * not a letter or digit dropped, so `CPF/CNPJ`, `cpf_cnpj`, `CPF ou CNPJ`, `Nr. Documento` and `Nº Documento` all match.
 */
const DOCUMENT_HEADER_ALIASES = new Set([
  'document',
  'documento',
  'doc',
  'cpf',
  'cnpj',
  'cpfcnpj',
  'cnpjcpf',
  'cpfoucnpj',
  'cnpjoucpf',
  'nrdocumento',
  'nodocumento',
  'numerodocumento',
  'numerododocumento',
]);

export function foldHeader(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

export function isDocumentHeader(header: string): boolean {
  return DOCUMENT_HEADER_ALIASES.has(foldHeader(header));
}

/** Digits and the punctuation of written documents, or Excel's scientific notation: a value, not a header. */
function looksLikeDocumentValue(cell: string): boolean {
  const text = cell.trim();
  return /\d/.test(text) && /^[0-9A-Za-z.\-/\s,+="']+$/.test(text);
}

/** Where the documents are in a file, decided from its first non-blank row. */
export type DocumentColumnLocation =
  | { readonly hasHeader: true; readonly index: number }
  | { readonly hasHeader: false; readonly index: number }
  | { readonly hasHeader: null };

/**
 * Finds the document column from the first row: a header cell matching an alias, or, in a file without a header,
 * the first cell holding a valid document (in a one-column file, any cell that looks like a document value).
 */
export function locateDocumentColumn(firstRow: readonly string[]): DocumentColumnLocation {
  const headerIndex = firstRow.findIndex(isDocumentHeader);
  if (headerIndex !== -1) return { hasHeader: true, index: headerIndex };
  const valueIndex = firstRow.findIndex((cell) => parseDocument(cell).valid);
  if (valueIndex !== -1) return { hasHeader: false, index: valueIndex };
  if (firstRow.length === 1 && looksLikeDocumentValue(firstRow[0] ?? ''))
    return { hasHeader: false, index: 0 };
  return { hasHeader: null };
}
