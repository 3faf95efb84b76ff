import Papa from 'papaparse';
import { CustomerListError } from './customer-list-errors.ts';

/** A row longer than this is not a customer record: an unbalanced quote, or a file that is not a CSV at all. */
const MAX_ROW_CHARACTERS = 1 << 20;

export interface CsvRowsOptions {
  /** The field delimiter, one character. */
  readonly delimiter: string;
  /** @default MAX_ROW_CHARACTERS */
  readonly maxRowCharacters?: number;
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
// What papaparse lets stand between a closing quote and the delimiter or line break (String.trim's whitespace).
const SPACE = /\s/;

/**
 * Where the reader stands in a field: a quote opens one only as its first character (`start`); inside, a quote is
 * data when doubled and closes the field otherwise (`quote_in_quoted` decides); after the close only spaces may come
 * before the delimiter or the line break (`closed`).
 */
type Field = 'start' | 'unquoted' | 'quoted' | 'quote_in_quoted' | 'closed';

/**
 * Rewrites every line break outside quoted fields (CRLF, LF or a lone CR) as LF, chunk by chunk, so that papaparse,
 * which takes one line break per file, ends a row at each of them; inside quotes they stay part of the value. A CR
 * ending one chunk and an LF opening the next are one break.
 *
 * It also counts the records, reading quotes strictly (RFC 4180: a quote not doubled closes the field). Papaparse is
 * lenient: a quote followed by text (`"Ana"x`) is data to it, and the field runs on to the next quote that looks
 * like a closing one, lines later, swallowing the customers between. The two counts then disagree.
 */
class LineBreaks {
  readonly #delimiter: number;
  #field: Field = 'start';
  #breaks = 0;
  #lastWasBreak = true;
  /** The previous chunk ended with a CR outside quotes: an LF opening this one is the rest of that break. */
  #pendingCr = false;
  /** The record (1-based, header included) of the first quote followed by text, for the message; 0 while none. */
  strayQuoteLine = 0;

  constructor(delimiter: string) {
    this.#delimiter = delimiter.charCodeAt(0);
  }

  /** Records in the text so far: one per line break, and the last line unless it is empty. */
  get records(): number {
    return this.#breaks + (this.#lastWasBreak ? 0 : 1);
  }

  /** The chunk with its breaks outside quotes as LF; a CR ending it stands for a CRLF split by the chunking. */
  normalise(chunk: string): string {
    let start = 0;
    if (this.#pendingCr && chunk.length > 0) {
      this.#pendingCr = false;
      if (chunk.charCodeAt(0) === LF) start = 1;
    }
    // Most files quote nothing: every CR and LF in them is a break, and the native scans are several times faster.
    if ((this.#field === 'start' || this.#field === 'unquoted') && chunk.indexOf('"', start) === -1) {
      return this.#normaliseUnquoted(start === 0 ? chunk : chunk.slice(start));
    }
    let field = this.#field;
    let lastWasBreak = this.#lastWasBreak;
    let normalised = '';
    let copiedUpTo = start;
    // The next quote, CR and LF at or after the reader, each looked up again only once the reader has passed it:
    // looking them up from every character or stretch rescans the text ahead each time (quadratic).
    let nextQuote = chunk.indexOf('"', start);
    let nextCr = chunk.indexOf('\r', start);
    let nextLf = chunk.indexOf('\n', start);
    for (let index = start; index < chunk.length; index++) {
      if (field === 'start' || field === 'unquoted') {
        if (nextQuote !== -1 && nextQuote < index) nextQuote = chunk.indexOf('"', index);
        if (nextCr !== -1 && nextCr < index) nextCr = chunk.indexOf('\r', index);
        // Up to the next quote or CR, only LFs and delimiters matter, and the character before it decides the state
        // there: the stretch is read with native scans; the quote or CR is then read below.
        const end = Math.min(
          nextQuote === -1 ? chunk.length : nextQuote,
          nextCr === -1 ? chunk.length : nextCr,
        );
        if (end > index) {
          if (nextLf !== -1 && nextLf < index) nextLf = chunk.indexOf('\n', index);
          for (; nextLf !== -1 && nextLf < end; nextLf = chunk.indexOf('\n', nextLf + 1)) this.#breaks++;
          const last = chunk.charCodeAt(end - 1);
          lastWasBreak = last === LF;
          field = lastWasBreak || last === this.#delimiter ? 'start' : 'unquoted';
          index = end - 1;
          continue;
        }
      }
      lastWasBreak = false;
      if (field === 'quoted') {
        // Inside a quoted field only the next quote matters.
        index = chunk.indexOf('"', index);
        if (index === -1) break;
        field = 'quote_in_quoted';
        continue;
      }
      const code = chunk.charCodeAt(index);
      if (field === 'quote_in_quoted' && code === QUOTE) {
        field = 'quoted';
      } else if (code === CR || code === LF) {
        this.#breaks++;
        lastWasBreak = true;
        field = 'start';
        if (code === CR) {
          normalised += `${chunk.slice(copiedUpTo, index)}\n`;
          if (chunk.charCodeAt(index + 1) === LF) index++;
          else if (index === chunk.length - 1) this.#pendingCr = true;
          copiedUpTo = index + 1;
        }
      } else {
        field = this.#outsideQuotes(field, code);
      }
    }
    this.#field = field;
    this.#lastWasBreak = lastWasBreak;
    return copiedUpTo === 0 ? chunk : normalised + chunk.slice(copiedUpTo);
  }

  #normaliseUnquoted(chunk: string): string {
    if (chunk === '') return chunk;
    const last = chunk.charCodeAt(chunk.length - 1);
    this.#pendingCr = last === CR;
    this.#lastWasBreak = last === CR || last === LF;
    this.#field = this.#lastWasBreak || last === this.#delimiter ? 'start' : 'unquoted';
    // CRLF first: replacing a plain string is faster than a pattern, and lone CRs are rare.
    let normalised = chunk.includes('\r') ? chunk.replaceAll('\r\n', '\n') : chunk;
    if (normalised.includes('\r')) normalised = normalised.replaceAll('\r', '\n');
    for (let index = normalised.indexOf('\n'); index !== -1; index = normalised.indexOf('\n', index + 1)) {
      this.#breaks++;
    }
    return normalised;
  }

  /** The state after a character that is not a line break, read outside quotes or right after a closing one. */
  #outsideQuotes(field: Field, code: number): Field {
    if (code === this.#delimiter) return 'start';
    const closed = field === 'quote_in_quoted' || field === 'closed';
    if (closed && SPACE.test(String.fromCharCode(code))) return 'closed';
    if (closed && this.strayQuoteLine === 0) this.strayQuoteLine = this.#breaks + 1;
    return code === QUOTE && field === 'start' ? 'quoted' : 'unquoted';
  }
}

/**
 * Parses CSV text arriving in chunks into batches of rows (RFC 4180 quoting, fields spanning chunks). CRLF, LF and a
 * lone CR each end a row, in any mix, outside quoted fields.
 *
 * Papaparse's Node duplex re-slices the rest of its chunk every time back-pressure pauses it, which is quadratic
 * in the chunk size; its core parser over whole chunks is not. Rows are handed out in batches, one per chunk, so
 * the cost per row stays that of the parser. The unfinished last row of a chunk is carried into the next one,
 * exactly as papaparse's own chunk streamer does, and that carry is capped to bound memory.
 *
 * @throws CustomerListError when a quote is never closed, a row is too long, or, once every row is handed out,
 *   papaparse read a different number of rows than the file has records (a misplaced quote ran a field across lines).
 */
export async function* parseCsvRows(
  text: AsyncIterable<string>,
  options: CsvRowsOptions,
): AsyncGenerator<string[][]> {
  const maxRowCharacters = options.maxRowCharacters ?? MAX_ROW_CHARACTERS;
  // Every break outside quotes reaches the parser as LF.
  const parser = new Papa.Parser({ delimiter: options.delimiter, newline: '\n' });
  const lineBreaks = new LineBreaks(options.delimiter);
  let carried = '';
  let rowsSoFar = 0;
  const parse = (input: string, last: boolean): string[][] => {
    const result = parser.parse(input, 0, !last) as Papa.ParseResult<string[]>;
    if (last && result.errors.some((error) => error.code === 'MissingQuotes')) {
      // Otherwise the rest of the file would silently become one cell, and the customers in it would vanish.
      throw new CustomerListError(
        'unbalanced_quote',
        `a quote opened after data line ${rowsSoFar} is never closed`,
        'fix the quoting and upload the file again',
      );
    }
    carried = input.substring(result.meta.cursor);
    rowsSoFar += result.data.length;
    if (carried.length > maxRowCharacters) {
      throw new CustomerListError(
        'row_too_long',
        `a row after data line ${rowsSoFar} is longer than ${Math.round(maxRowCharacters / 1024)} KiB: ` +
          'an unbalanced quote, or not a CSV file',
      );
    }
    return result.data;
  };
  for await (const chunk of text) {
    const rows = parse(carried + lineBreaks.normalise(chunk), false);
    if (rows.length > 0) yield rows;
  }
  if (carried !== '') {
    const rows = parse(carried, true);
    if (rows.length > 0) yield rows;
  }
  if (rowsSoFar !== lineBreaks.records) throw recordCountMismatch(lineBreaks, rowsSoFar);
}

// Both readers see the same line breaks and differ only on quotes: the file's quotes do not pair up as CSV's do.
function recordCountMismatch(lineBreaks: LineBreaks, rows: number): CustomerListError {
  const where = lineBreaks.strayQuoteLine > 0 ? ` (the first one on line ${lineBreaks.strayQuoteLine})` : '';
  return new CustomerListError(
    'unbalanced_quote',
    `the file has ${lineBreaks.records} lines but reads as ${rows} rows: a quote followed by text${where} runs a field across lines`,
    'double quotes inside a field ("") and upload the file again',
  );
}
