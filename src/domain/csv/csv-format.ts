// CSV writing shared by every file the pipeline writes (the summary, the changes of a portfolio run): one dialect
// choice, formula neutralising and quoting, in one place.

/**
 * `standard`: RFC 4180, comma, decimal point, UTF-8 without BOM, for programs. `excel`: what Brazilian Excel opens
 * without an import wizard: semicolon, decimal comma, UTF-8 with BOM.
 */
export type CsvDialect = 'standard' | 'excel';

export const UTF8_BOM = '\uFEFF';
// OWASP CSV injection: a cell starting with one of these is a formula to a spreadsheet.
const FORMULA_START = /^[=+\-@\t\r]/;

/** Prefixes a would-be formula with an apostrophe, so spreadsheets show it as text instead of running it. */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

const SIGNED_INTEGER = /^[+-]?\d+$/;

/**
 * One CSV line in a dialect: every cell formula-neutralised and quoted when needed, CRLF-terminated. Cells at
 * `signedColumns` are the pipeline's own signed integers (`-100`, `+2`); they are written as they are when they
 * are exactly that, since a spreadsheet reads them as numbers, not formulas.
 */
export function csvLine(
  cells: readonly string[],
  dialect: CsvDialect,
  signedColumns: ReadonlySet<number> = NO_SIGNED_COLUMNS,
): string {
  const delimiter = dialect === 'excel' ? ';' : ',';
  // A plain loop: every line of every file the pipeline writes comes here (a million for a large summary).
  let line = '';
  for (let index = 0; index < cells.length; index++) {
    const cell = cells[index] as string;
    const safe = signedColumns.has(index) && SIGNED_INTEGER.test(cell) ? cell : neutraliseFormula(cell);
    line += index === 0 ? quote(safe, delimiter) : delimiter + quote(safe, delimiter);
  }
  return `${line}\r\n`;
}

const NO_SIGNED_COLUMNS: ReadonlySet<number> = new Set();

/** The BOM that opens a file in the Excel dialect (nothing in the standard one). */
export const csvPreamble = (dialect: CsvDialect): string => (dialect === 'excel' ? UTF8_BOM : '');

function quote(cell: string, delimiter: string): string {
  return cell.includes('"') || cell.includes('\n') || cell.includes('\r') || cell.includes(delimiter)
    ? `"${cell.replaceAll('"', '""')}"`
    : cell;
}

/**
 * Headers of the input's own columns in the summary: their own names, except that a name the summary already uses
 * (an input column called `name` or `score`) gets an `input_` prefix, so every header stays unique.
 */
export function passThroughHeaders(columns: readonly string[], ownColumns: readonly string[]): string[] {
  const taken = new Set<string>(ownColumns);
  return columns.map((column) => {
    let header = column;
    while (taken.has(header.toLowerCase())) header = `input_${header}`;
    taken.add(header.toLowerCase());
    return header;
  });
}
