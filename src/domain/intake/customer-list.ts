import {
  type DocumentCheck,
  type DocumentType,
  parseDocument,
  type RejectionCode,
} from '../documents/index.ts';
import { parseCsvRows } from './csv-rows.ts';
import { CustomerListError } from './customer-list-errors.ts';
import {
  type ColumnHolds,
  type DocumentColumn,
  type DocumentColumnLocation,
  locateDocumentColumn,
  typeSeenInColumn,
} from './document-column.ts';
import { FirstOccurrences } from './first-occurrences.ts';
import { type Delimiter, sniffDelimiter } from './sniff-delimiter.ts';
import { AutoTextDecoder, type TextEncodingName } from './text-decoding.ts';

/** Default cap on data rows in one file: above it the file is refused rather than half-processed. */
export const DEFAULT_MAX_ROWS = 1_000_000;

// Enough lines for a stable delimiter guess without holding much of a large file.
const SNIFF_LINES = 50;
const SNIFF_MAX_CHARACTERS = 256 * 1024;
const MAX_PIECE_BYTES = 64 * 1024;
// Rows read ahead to learn what a column named for both types holds; bounded in characters too.
const LOOKAHEAD_ROWS = 100;
const LOOKAHEAD_MAX_CHARACTERS = 256 * 1024;
// A single-column file still needs a delimiter for the parser: one that never occurs in text.
const NO_DELIMITER = '\u001F';

export interface CustomerListOptions {
  /**
   * Most data rows accepted; one more fails the file with a {@link CustomerListError}.
   * @default 1_000_000
   */
  readonly maxRows?: number;
  /**
   * Remember documents to mark repeats as duplicates. A pass that only validates the file can skip it and the
   * memory it takes (about 24 MB at a million documents); every valid row is then `valid`.
   * @default true
   */
  readonly detectDuplicates?: boolean;
}

/** How the file was read: what a support person needs to understand a surprising result. */
export interface CustomerListLayout {
  /** The text encoding; final once the rows have been read (a late accent can switch UTF-8 to Windows-1252). */
  readonly encoding: TextEncodingName;
  /** The field delimiter, or null when the file has a single column. */
  readonly delimiter: Delimiter | null;
  readonly hasHeader: boolean;
  /**
   * The columns documents were read from: one, or a CPF column and a CNPJ column (`cpf;cnpj;nome`, one of them
   * filled per row). `header` is `document` when the file has no header; `holds` is what the header names.
   */
  readonly documentColumns: readonly DocumentColumnUse[];
  /** The other columns, in file order; files without a header get `column_<position>`. */
  readonly passThroughColumns: readonly string[];
}

/** A column documents are read from, as {@link CustomerListLayout} describes it. */
export interface DocumentColumnUse {
  readonly header: string;
  readonly holds: ColumnHolds;
  /**
   * For a column whose header names both types (or no header): the type of every document among its first rows,
   * or null when mixed or too few. `cnpj` reads a number that passes as both as a CNPJ that lost its zeros.
   */
  readonly seen: DocumentType | null;
}

type RowStatus = 'valid' | 'invalid' | 'duplicate';

/** Why a row is invalid: its document's rejection, or a CPF and a CNPJ column both filled and disagreeing. */
type RowRejectionCode = RejectionCode | 'conflicting_documents';

/** One data row of a customer list, validated. */
export interface CustomerRow {
  /** 1-based position among data rows: the header and blank lines are not counted. */
  readonly row: number;
  /** The document cell as it was in the file (with separate CPF and CNPJ columns, the filled one, or both). */
  readonly input: string;
  readonly status: RowStatus;
  /** Normalised document (bare, uppercase), or null when the value is not a usable document. */
  readonly document: string | null;
  readonly type: DocumentType | null;
  /** Why the row is invalid; null otherwise. */
  readonly reason: string | null;
  readonly rejection: RowRejectionCode | null;
  /** For a duplicate: the row where this document first appeared. */
  readonly duplicateOf: number | null;
  /** Leading zeros put back because a spreadsheet stored the document as a number. */
  readonly restoredLeadingZeros: number;
  /** The other cells, aligned with {@link CustomerListLayout.passThroughColumns}. */
  readonly passThrough: readonly string[];
}

export interface CustomerList {
  readonly layout: CustomerListLayout;
  /**
   * The data rows, streamed: consume once. Throws {@link CustomerListError} when the row limit is passed or a
   * row is absurdly long, so a consumer must not act irreversibly on rows before the iteration has finished.
   */
  readonly rows: AsyncIterable<CustomerRow>;
}

type ByteSource = AsyncIterable<Uint8Array>;

/** A row's document as read from its cells: the input to show, and the check of it. */
interface RowDocument {
  readonly input: string;
  readonly check: DocumentCheck | Conflict;
}

interface Conflict {
  readonly valid: false;
  readonly code: 'conflicting_documents';
  readonly reason: string;
  readonly type: null;
}

const expectedType = (holds: ColumnHolds): DocumentType | null => (holds === 'either' ? null : holds);

/**
 * Reads a row's document from a CPF cell and a CNPJ cell: whichever is filled; both filled must be the same
 * document, since guessing which one is meant could query the wrong person or company.
 */
function readSeparateCells(cpfInput: string, cnpjInput: string): RowDocument {
  const cpf = parseDocument(cpfInput, { named: 'cpf' });
  const cnpj = parseDocument(cnpjInput, { named: 'cnpj' });
  const cpfFilled = cpf.valid || cpf.code !== 'empty';
  const cnpjFilled = cnpj.valid || cnpj.code !== 'empty';
  if (!cnpjFilled) {
    if (cpfFilled) return { input: cpfInput, check: cpf };
    return {
      input: cpfInput,
      check: {
        valid: false,
        code: 'empty',
        reason: 'empty: neither the CPF nor the CNPJ column is filled',
        type: null,
      },
    };
  }
  if (!cpfFilled) return { input: cnpjInput, check: cnpj };
  if (cpf.valid && cnpj.valid && cpf.document === cnpj.document) return { input: cpfInput, check: cpf };
  // The same value copied into both: the two headers cancel out as evidence, so it is read as in any column.
  if (cpfInput.trim() === cnpjInput.trim()) return { input: cpfInput, check: parseDocument(cpfInput) };
  return {
    input: `${cpfInput} / ${cnpjInput}`,
    check: {
      valid: false,
      code: 'conflicting_documents',
      reason: 'both the CPF and the CNPJ columns are filled, with different values: keep one',
      type: null,
    },
  };
}

/** How a row's document is read, for the columns a file has. */
function documentReader(
  columns: readonly DocumentColumn[],
  seen: DocumentType | null,
): (cells: readonly string[]) => RowDocument {
  const [first, second] = columns as [DocumentColumn, DocumentColumn | undefined];
  if (second !== undefined) {
    return (cells) => readSeparateCells(cells[first.index] ?? '', cells[second.index] ?? '');
  }
  const evidence = { named: expectedType(first.holds), seen };
  return (cells) => {
    const input = cells[first.index] ?? '';
    return { input, check: parseDocument(input, evidence) };
  };
}

async function* decode(source: ByteSource, decoder: AutoTextDecoder): AsyncGenerator<string> {
  for await (const bytes of source) {
    // Parsed rows of one piece live until the consumer has taken them all; large pieces let them outlive V8's
    // young generation and pile up as garbage (a 1 MiB piece took peak RSS from 160 to 230 MB at a million rows).
    for (let offset = 0; offset < bytes.length; offset += MAX_PIECE_BYTES) {
      const text = decoder.write(bytes.subarray(offset, offset + MAX_PIECE_BYTES));
      if (text !== '') yield text;
    }
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
}

async function* prepend(head: string, rest: AsyncIterator<string>): AsyncGenerator<string> {
  if (head !== '') yield head;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

function countLineBreaks(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/** Reads decoded text until there are enough lines to sniff the delimiter (or the file ends). */
async function readHead(text: AsyncIterator<string>): Promise<{ head: string; complete: boolean }> {
  let head = '';
  let lines = 0;
  while (lines < SNIFF_LINES && head.length < SNIFF_MAX_CHARACTERS) {
    const next = await text.next();
    if (next.done) return { head, complete: true };
    head += next.value;
    lines += countLineBreaks(next.value);
  }
  return { head, complete: false };
}

// Blank, or only the delimiters Excel leaves on an empty spreadsheet row (`;;;`).
const BLANK_CELL = /^[\s;,|]*$/;

function isBlank(cells: readonly string[]): boolean {
  return cells.every((cell) => BLANK_CELL.test(cell));
}

/** Hands out the non-blank parsed rows one at a time from the parser's batches. */
class NonBlankRows {
  #batches: AsyncIterator<string[][]>;
  #batch: string[][] = [];
  #position = 0;
  /** Rows read ahead by {@link peek}, handed out first. */
  #ahead: string[][] = [];

  constructor(batches: AsyncIterator<string[][]>) {
    this.#batches = batches;
  }

  /** Reads up to `rows` rows ahead (fewer past `maxCharacters`) without consuming them. */
  async peek(rows: number, maxCharacters: number): Promise<readonly string[][]> {
    let characters = 0;
    while (this.#ahead.length < rows && characters < maxCharacters) {
      const cells = await this.#nextParsed();
      if (cells === undefined) break;
      this.#ahead.push(cells);
      for (const cell of cells) characters += cell.length;
    }
    return this.#ahead;
  }

  async next(): Promise<string[] | undefined> {
    if (this.#ahead.length > 0) return this.#ahead.shift();
    return this.#nextParsed();
  }

  async #nextParsed(): Promise<string[] | undefined> {
    for (;;) {
      while (this.#position < this.#batch.length) {
        const cells = this.#batch[this.#position++] as string[];
        if (!isBlank(cells)) return cells;
      }
      const next = await this.#batches.next();
      if (next.done) return undefined;
      this.#batch = next.value;
      this.#position = 0;
    }
  }

  async close(): Promise<void> {
    await this.#batches.return?.();
  }
}

/**
 * Opens a customer list (CSV, often exported from Excel) as a stream of validated rows, in constant memory
 * apart from the set of documents already seen (for duplicate detection).
 *
 * Handles UTF-8 with or without BOM, Windows-1252 and UTF-16 with its BOM, delimiters `;` `,` tab `|`, quoted
 * fields with embedded newlines, CRLF, a header row with any of the usual names for the document column (or a CPF
 * column and a CNPJ column), or no header at all. The header, and the first rows of a column named for both types,
 * are evidence of the type of a number that lost its leading zeros (see `ColumnEvidence`).
 *
 * @throws CustomerListError when the file is empty or has no document column (before any row is handed out), or
 *   when a row read ahead for evidence is unusable (too long, an unbalanced quote).
 */
export async function openCustomerList(
  source: ByteSource,
  options: CustomerListOptions = {},
): Promise<CustomerList> {
  const decoder = new AutoTextDecoder();
  const { delimiter, parsed } = await parseText(decode(source, decoder));
  const first = await parsed.next();
  if (first === undefined) throw new CustomerListError('empty_file', 'the file has no rows');
  const firstRow = first.map((cell) => cell.trim());
  const location = locateDocumentColumn(firstRow);
  if (location.hasHeader === null) {
    await parsed.close();
    throw noDocumentColumn(firstRow);
  }
  const documentIndexes = new Set(location.columns.map((column) => column.index));
  const otherIndexes = [...firstRow.keys()].filter((index) => !documentIndexes.has(index));
  const seen = await typeSeenAhead(parsed, location, first);
  const layout: CustomerListLayout = {
    // The decoder may settle on Windows-1252 only at the first accent, rows after the head.
    get encoding() {
      return decoder.encoding;
    },
    delimiter,
    hasHeader: location.hasHeader,
    documentColumns: location.columns.map((column) => ({
      header: location.hasHeader ? (firstRow[column.index] as string) : 'document',
      holds: column.holds,
      seen,
    })),
    passThroughColumns: otherIndexes.map((index) =>
      location.hasHeader ? (firstRow[index] as string) : `column_${index + 1}`,
    ),
  };
  const rows = customerRows(parsed, {
    // Without a header, the first row is data.
    first: location.hasHeader ? undefined : first,
    otherIndexes,
    readDocument: documentReader(location.columns, seen),
    maxRows: options.maxRows ?? DEFAULT_MAX_ROWS,
    detectDuplicates: options.detectDuplicates !== false,
  });
  return { layout, rows };
}

/**
 * Sniffs the delimiter from the text's first lines and parses the whole text with it (any row may end with CRLF, LF
 * or CR: see `parseCsvRows`).
 */
async function parseText(
  text: AsyncIterator<string>,
): Promise<{ delimiter: Delimiter | null; parsed: NonBlankRows }> {
  const { head, complete } = await readHead(text);
  const delimiter = sniffDelimiter(head, complete);
  const parsed = new NonBlankRows(
    parseCsvRows(prepend(head, text), {
      delimiter: delimiter ?? NO_DELIMITER,
    }),
  );
  return { delimiter, parsed };
}

function noDocumentColumn(firstRow: readonly string[]): CustomerListError {
  const seen = firstRow.filter((cell) => cell !== '').map((cell) => JSON.stringify(cell.slice(0, 40)));
  return new CustomerListError(
    'no_document_column',
    `no document column found; headers seen: ${seen.slice(0, 20).join(', ') || '(none)'}. ` +
      'Name the column document, documento, cpf, cnpj or cpf_cnpj.',
  );
}

/** A header naming both types (or none) says nothing: the column's first values may (null: they do not). */
async function typeSeenAhead(
  parsed: NonBlankRows,
  location: Exclude<DocumentColumnLocation, { hasHeader: null }>,
  first: readonly string[],
): Promise<DocumentType | null> {
  const [onlyColumn] = location.columns;
  if (location.columns.length !== 1 || onlyColumn.holds !== 'either') return null;
  const ahead = await parsed.peek(LOOKAHEAD_ROWS, LOOKAHEAD_MAX_CHARACTERS);
  const firstValues = location.hasHeader ? [] : [first[onlyColumn.index] ?? ''];
  return typeSeenInColumn([...firstValues, ...ahead.map((cells) => cells[onlyColumn.index] ?? '')]);
}

interface RowReading {
  /** The first data row when it was already read (a file without a header). */
  readonly first: readonly string[] | undefined;
  readonly otherIndexes: readonly number[];
  readonly readDocument: (cells: readonly string[]) => RowDocument;
  readonly maxRows: number;
  readonly detectDuplicates: boolean;
}

/** The data rows, numbered from 1, each checked, and the repeats of a document marked as duplicates. */
async function* customerRows(parsed: NonBlankRows, reading: RowReading): AsyncGenerator<CustomerRow> {
  const firstSeenAt = reading.detectDuplicates ? new FirstOccurrences() : null;
  let rowNumber = 0;
  try {
    for (let cells = reading.first ?? (await parsed.next()); cells; cells = await parsed.next()) {
      rowNumber++;
      if (rowNumber > reading.maxRows) {
        throw new CustomerListError(
          'row_limit_exceeded',
          `the file has more than ${reading.maxRows.toLocaleString('en-US')} data rows, the limit; split it into smaller files`,
        );
      }
      yield customerRow(rowNumber, cells, reading, firstSeenAt);
    }
  } finally {
    await parsed.close();
  }
  if (rowNumber === 0)
    throw new CustomerListError('empty_file', 'the file has a header row but no data rows');
}

function customerRow(
  rowNumber: number,
  cells: readonly string[],
  reading: RowReading,
  firstSeenAt: FirstOccurrences | null,
): CustomerRow {
  // Cells past the header's width (trailing delimiters Excel adds) are dropped; missing ones are empty.
  const passThrough = reading.otherIndexes.map((index) => cells[index] ?? '');
  const { input, check } = reading.readDocument(cells);
  if (!check.valid) {
    return {
      row: rowNumber,
      input,
      status: 'invalid',
      document: null,
      type: check.type,
      reason: check.reason,
      rejection: check.code,
      duplicateOf: null,
      restoredLeadingZeros: 0,
      passThrough,
    };
  }
  const original = firstSeenAt?.firstRowOrRemember(check.document, rowNumber);
  return {
    row: rowNumber,
    input,
    status: original === undefined ? 'valid' : 'duplicate',
    document: check.document,
    type: check.type,
    reason: null,
    rejection: null,
    duplicateOf: original ?? null,
    restoredLeadingZeros: check.restoredLeadingZeros,
    passThrough,
  };
}
