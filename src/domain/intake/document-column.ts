import { type DocumentType, hasValidCnpjCheckDigits, parseDocument } from '../documents/index.ts';
import { CustomerListError } from './customer-list-errors.ts';

/** What a document column's header says it holds: one type, or either. */
export type ColumnHolds = DocumentType | 'either';

/**
 * Header names that mean "the CPF/CNPJ column", compared folded: lowercase, accents removed, and anything that is
 * not a letter or digit dropped, so `CPF/CNPJ`, `cpf_cnpj`, `CPF ou CNPJ`, `Nr. Documento` and `Nº Documento` all match.
 */
const CPF_HEADER_ALIASES = new Set(['cpf', 'nrcpf', 'nocpf', 'numerocpf', 'numerodocpf']);
const CNPJ_HEADER_ALIASES = new Set(['cnpj', 'nrcnpj', 'nocnpj', 'numerocnpj', 'numerodocnpj']);
const EITHER_HEADER_ALIASES = new Set([
  'document',
  'documento',
  'doc',
  'cpfcnpj',
  'cnpjcpf',
  'cpfoucnpj',
  'cnpjoucpf',
  'nrdocumento',
  'nodocumento',
  'numerodocumento',
  'numerododocumento',
]);

function foldHeader(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** What a header says its column holds, or null when it does not name a document column. */
function documentHeaderHolds(header: string): ColumnHolds | null {
  const folded = foldHeader(header);
  if (CPF_HEADER_ALIASES.has(folded)) return 'cpf';
  if (CNPJ_HEADER_ALIASES.has(folded)) return 'cnpj';
  return EITHER_HEADER_ALIASES.has(folded) ? 'either' : null;
}

/** Digits and the punctuation of written documents, or Excel's scientific notation: a value, not a header. */
function looksLikeDocumentValue(cell: string): boolean {
  const text = cell.trim();
  return /\d/.test(text) && /^[0-9A-Za-z.\-/\s,+="']+$/.test(text);
}

/** One column the documents are read from. */
export interface DocumentColumn {
  readonly index: number;
  readonly holds: ColumnHolds;
}

/**
 * Where the documents are in a file, decided from its first non-blank row: one column, or a CPF column and a CNPJ
 * column (in that order) when the file keeps people and companies apart.
 */
export type DocumentColumnLocation =
  | {
      readonly hasHeader: true;
      readonly columns: readonly [DocumentColumn] | readonly [DocumentColumn, DocumentColumn];
    }
  | { readonly hasHeader: false; readonly columns: readonly [DocumentColumn] }
  | { readonly hasHeader: null };

function firstHeaderHolding(firstRow: readonly string[], holds: ColumnHolds): DocumentColumn | undefined {
  const index = firstRow.findIndex((cell) => documentHeaderHolds(cell) === holds);
  return index === -1 ? undefined : { index, holds };
}

/**
 * Finds the document columns from the first row: the first column named for both types; else a column named for
 * CPFs and one named for CNPJs (`cpf;cnpj;nome`), or the one of them there is; or, in a file without a header, the first cell holding a valid document (in a one-column file, any cell that looks like a
 * document value).
 */
export function locateDocumentColumn(firstRow: readonly string[]): DocumentColumnLocation {
  refuseAmbiguousHeaders(firstRow);
  const either = firstHeaderHolding(firstRow, 'either');
  const cpf = firstHeaderHolding(firstRow, 'cpf');
  const cnpj = firstHeaderHolding(firstRow, 'cnpj');
  if (either !== undefined) return { hasHeader: true, columns: [either] };
  if (cpf !== undefined && cnpj !== undefined) return { hasHeader: true, columns: [cpf, cnpj] };
  const typed = cpf ?? cnpj;
  if (typed !== undefined) return { hasHeader: true, columns: [typed] };
  const valueIndex = firstRow.findIndex((cell) => parseDocument(cell).valid);
  if (valueIndex !== -1) return { hasHeader: false, columns: [{ index: valueIndex, holds: 'either' }] };
  if (firstRow.length === 1 && looksLikeDocumentValue(firstRow[0] ?? ''))
    return { hasHeader: false, columns: [{ index: 0, holds: 'either' }] };
  return { hasHeader: null };
}

/**
 * Refuses a header that names two columns for the same kind of document (`cpf;nome;cpf`, `documento;doc`): reading
 * one of them would drop the documents of the other without a word. (A column named for both types next to a CPF
 * or CNPJ column is read alone, as before: `locateDocumentColumn`.)
 * @throws {CustomerListError} `ambiguous_document_column`, naming the columns
 */
function refuseAmbiguousHeaders(firstRow: readonly string[]): void {
  const named = firstRow.flatMap((cell, index) => {
    const holds = documentHeaderHolds(cell);
    return holds === null ? [] : [{ index, holds, header: cell.trim() }];
  });
  for (const holds of ['either', 'cpf', 'cnpj'] as const) {
    const same = named.filter((column) => column.holds === holds);
    if (same.length < 2) continue;
    const list = same.map((column) => `"${column.header}" (column ${column.index + 1})`).join(', ');
    throw new CustomerListError(
      'ambiguous_document_column',
      `${same.length} columns are headed for the same documents: ${list}; keep one and rename the others`,
    );
  }
}

// Fewer documents than this say nothing about a column.
const MIN_EVIDENCE = 5;

/**
 * The type of every document among a column's first values, or null when they are mixed or too few. A number that
 * passes both as a CPF and as a CNPJ with zeros restored counts for neither: it is what the evidence is for.
 */
export function typeSeenInColumn(values: Iterable<string>): DocumentType | null {
  let cpfs = 0;
  let cnpjs = 0;
  for (const value of values) {
    const check = parseDocument(value);
    if (!check.valid) continue;
    if (check.type === 'cnpj') cnpjs++;
    else if (!hasValidCnpjCheckDigits(check.document.padStart(14, '0'))) cpfs++;
  }
  if (cnpjs >= MIN_EVIDENCE && cpfs === 0) return 'cnpj';
  if (cpfs >= MIN_EVIDENCE && cnpjs === 0) return 'cpf';
  return null;
}
