import Papa from 'papaparse';
import { CustomerListError } from './customer-list-errors.ts';

/** A row longer than this is not a customer record: an unbalanced quote, or a file that is not a CSV at all. */
const MAX_ROW_CHARACTERS = 1 << 20;

export type LineBreak = '\n' | '\r\n' | '\r';

/** The line break of a text, from its first one outside quotes (Excel writes CRLF, Unix tools LF). */
export function detectLineBreak(sample: string): LineBreak {
  let inQuotes = false;
  for (let index = 0; index < sample.length; index++) {
    const character = sample[index];
    if (character === '"') inQuotes = !inQuotes;
    else if (!inQuotes && character === '\n') return '\n';
    else if (!inQuotes && character === '\r') return sample[index + 1] === '\n' ? '\r\n' : '\r';
  }
  return '\n';
}

export interface CsvRowsOptions {
  readonly delimiter: string;
  readonly lineBreak: LineBreak;
  /** @default MAX_ROW_CHARACTERS */
  readonly maxRowCharacters?: number;
}

/**
 * Parses CSV text arriving in chunks into batches of rows (RFC 4180 quoting, fields spanning chunks).
 *
 * Papaparse's Node duplex re-slices the rest of its chunk every time back-pressure pauses it, which is quadratic
 * in the chunk size; its core parser over whole chunks is not. Rows are handed out in batches, one per chunk, so
 * the cost per row stays that of the parser. The unfinished last row of a chunk is carried into the next one,
 * exactly as papaparse's own chunk streamer does, and that carry is capped to bound memory.
 */
export async function* parseCsvRows(
  text: AsyncIterable<string>,
  options: CsvRowsOptions,
): AsyncGenerator<string[][]> {
  const maxRowCharacters = options.maxRowCharacters ?? MAX_ROW_CHARACTERS;
  const parser = new Papa.Parser({ delimiter: options.delimiter, newline: options.lineBreak });
  let carried = '';
  let rowsSoFar = 0;
  const parse = (input: string, last: boolean): string[][] => {
    const result = parser.parse(input, 0, !last) as Papa.ParseResult<string[]>;
    if (last && result.errors.some((error) => error.code === 'MissingQuotes')) {
      // Otherwise the rest of the file would silently become one cell, and the customers in it would vanish.
      throw new CustomerListError(
        'unbalanced_quote',
        `a quote opened after data line ${rowsSoFar} is never closed: fix the quoting and upload the file again`,
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
    const rows = parse(carried + chunk, false);
    if (rows.length > 0) yield rows;
  }
  if (carried !== '') {
    const rows = parse(carried, true);
    if (rows.length > 0) yield rows;
  }
}
