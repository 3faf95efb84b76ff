/**
 * Reads `summary.csv` as a stream, in either dialect (standard, or Excel's `;` with a BOM), without holding more
 * than a chunk of it: each row's number, document, status, the original of a duplicate, the decision it was given
 * and the customer's own cells, which a policy reads as `input.<header>`.
 */
import { type CsvDialect, UTF8_BOM } from '../../domain/csv/csv-format.ts';
import { DECISION_VALUES, type DecisionValue } from '../../domain/decision/index.ts';
import { parseCsvRows } from '../../domain/intake/csv-rows.ts';
import { CustomerListError } from '../../domain/intake/index.ts';
import {
  DECISION_COLUMNS,
  FINAL_DECISION_COLUMNS,
  ROW_STATUSES,
  SUMMARY_COLUMNS,
  type SummaryStatus,
} from '../../domain/summary/index.ts';
import { ResultsFileError } from '../../domain/summary/summary-csv-reader.ts';

/** What the header says. */
export interface SummaryLayout {
  readonly dialect: CsvDialect;
  /** The summary has the decision columns of a batch decided by a policy. */
  readonly decided: boolean;
  /** The customer's columns by the headers of the customer's list (the summary's `input_` prefixes taken off). */
  readonly customerHeaders: readonly string[];
}

/** One data line of the summary, as `decide` needs it. */
export interface SummaryLine {
  readonly row: number;
  readonly document: string;
  readonly status: SummaryStatus;
  /** The row a duplicate repeats (`status_detail` is `row <n>`); null for other rows. */
  readonly duplicateOf: number | null;
  /** The decision the batch's policy gave the row; null without one. */
  readonly previous: DecisionValue | null;
  readonly customerCells: readonly string[];
}

/** Columns a summary has whatever its age; `charge_state` came later. */
const REQUIRED_COLUMNS = SUMMARY_COLUMNS.filter((column) => column !== 'charge_state');
const DUPLICATE_DETAIL = /^row (\d+)$/;
/** What the summary puts before a customer's header that clashes with a name it already uses. */
const PREFIX = 'input_';
// What the summary's writer prefixes with an apostrophe so that spreadsheets do not run it (csv-format.ts).
const NEUTRALISED = /^'[=+\-@\t\r]/;

/** A cell as the customer typed it: the apostrophe the summary put before a would-be formula taken off. */
const asTyped = (cell: string): string => (NEUTRALISED.test(cell) ? cell.slice(1) : cell);

/**
 * The customer list's own headers from the summary's: the summary wrote a header that clashes with one of its own
 * columns (or an earlier header) with an `input_` prefix, as many times as needed (`passThroughHeaders`). A prefix
 * can be taken off while what remains is a name the writer had already taken; of the names that could have been
 * written so, the shortest one not already read for an earlier column is the customer's. Ambiguous only when the
 * list had a column really named `input_<a summary column>` and no column of that summary name itself.
 */
export function customerHeaders(summaryHeaders: readonly string[], ownColumns: readonly string[]): string[] {
  const taken = new Set(ownColumns.map((column) => column.toLowerCase()));
  const read = new Set<string>();
  return summaryHeaders.map((header) => {
    const candidates = [header];
    for (let name = header; name.startsWith(PREFIX) && taken.has(name.slice(PREFIX.length).toLowerCase()); ) {
      name = name.slice(PREFIX.length);
      candidates.unshift(name);
    }
    const original = candidates.find((name) => !read.has(name.toLowerCase())) ?? (candidates[0] as string);
    taken.add(header.toLowerCase());
    read.add(original.toLowerCase());
    return original;
  });
}

async function* decoded(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  // The BOM is kept in the text: it tells the Excel dialect.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    for await (const chunk of chunks) {
      const text = decoder.decode(chunk, { stream: true });
      if (text !== '') yield text;
    }
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } catch (error) {
    if (error instanceof TypeError) throw new ResultsFileError('summary.csv: not UTF-8 text');
    throw error;
  }
}

/**
 * A duplicate's `status` and `status_detail` cells as the summary writes them side by side (`duplicate,row 12`, or
 * with `;` and quotes): found in the text without parsing it as CSV.
 */
const DUPLICATE_CELLS = /[,;]"?duplicate"?[,;]"?row (\d+)"?(?=[,;\r\n]|$)/g;

/**
 * The rows that duplicates repeat, each with how many duplicates repeat it, and how many such duplicates, read
 * from the summary's text without parsing it as CSV (a tenth of the time). A customer's cell may hold the same text
 * and be counted too: the caller compares the count with the manifest's count of duplicates and parses the summary
 * when they differ.
 */
export async function scanDuplicateCells(
  chunks: AsyncIterable<Uint8Array>,
): Promise<{ readonly targets: Map<number, number>; readonly duplicates: number }> {
  const targets = new Map<number, number>();
  let duplicates = 0;
  let carried = '';
  const scan = (text: string) => {
    for (const match of text.matchAll(DUPLICATE_CELLS)) {
      const row = Number(match[1]);
      targets.set(row, (targets.get(row) ?? 0) + 1);
      duplicates++;
    }
  };
  for await (const text of decoded(chunks)) {
    // Lines are scanned whole: a chunk may end in the middle of a duplicate's cells.
    const joined = carried + text;
    const end = joined.lastIndexOf('\n') + 1;
    scan(joined.slice(0, end));
    carried = joined.slice(end);
  }
  scan(carried);
  return { targets, duplicates };
}

/** The layout and the column positions of a summary's header. */
function readHeader(headers: readonly string[], decidedByManifest: boolean | null, dialect: CsvDialect) {
  const position = new Map<string, number>();
  headers.forEach((header, index) => {
    if (!position.has(header)) position.set(header, index);
  });
  const missing = REQUIRED_COLUMNS.filter((column) => !position.has(column));
  if (missing.length > 0) throw new ResultsFileError(`summary.csv: missing columns: ${missing.join(', ')}`);
  const hasDecisionColumns = DECISION_COLUMNS.every((column) => position.has(column));
  const decided = decidedByManifest ?? hasDecisionColumns;
  if (decided && !hasDecisionColumns)
    throw new ResultsFileError(
      'summary.csv has no decision columns, yet manifest.json names the policy that decided the batch',
    );
  // An exported summary's final decisions (a person's overrides) are the pipeline's columns, not the customer's.
  const own = new Set<string>([
    ...SUMMARY_COLUMNS,
    ...(decided ? [...DECISION_COLUMNS, ...FINAL_DECISION_COLUMNS] : []),
  ]);
  const customer = headers.flatMap((header, index) => (own.has(header) ? [] : [index]));
  const layout: SummaryLayout = {
    dialect,
    decided,
    customerHeaders: customerHeaders(
      customer.map((index) => headers[index] ?? ''),
      headers.filter((header) => own.has(header)),
    ),
  };
  const at = (column: string) => position.get(column) ?? -1;
  return {
    layout,
    columns: {
      row: at('row'),
      document: at('document'),
      status: at('status'),
      detail: at('status_detail'),
      decision: decided ? at('decision') : -1,
      customer,
    },
  };
}

type Columns = ReturnType<typeof readHeader>['columns'];

const STATUSES: ReadonlySet<string> = new Set(ROW_STATUSES);
const DECISIONS: ReadonlySet<string> = new Set(DECISION_VALUES);

function lineOf(cells: readonly string[], columns: Columns, line: number): SummaryLine {
  const rowCell = cells[columns.row] ?? '';
  const row = Number(rowCell);
  if (rowCell === '' || !Number.isSafeInteger(row))
    throw new ResultsFileError(
      `summary.csv data line ${line}: row ${JSON.stringify(rowCell)} is not a number`,
    );
  const status = cells[columns.status] ?? '';
  if (!STATUSES.has(status))
    throw new ResultsFileError(`summary.csv data line ${line}: unexpected status ${JSON.stringify(status)}`);
  const previous = columns.decision === -1 ? '' : (cells[columns.decision] ?? '');
  if (previous !== '' && !DECISIONS.has(previous))
    throw new ResultsFileError(
      `summary.csv data line ${line}: unexpected decision ${JSON.stringify(previous)}`,
    );
  const duplicate = status === 'duplicate' ? DUPLICATE_DETAIL.exec(cells[columns.detail] ?? '') : null;
  return {
    row,
    document: asTyped(cells[columns.document] ?? ''),
    status: status as SummaryStatus,
    duplicateOf: duplicate ? Number(duplicate[1]) : null,
    previous: previous === '' ? null : (previous as DecisionValue),
    customerCells: columns.customer.map((index) => asTyped(cells[index] ?? '')),
  };
}

/** A summary opened: its layout, and its data lines in batches (one per chunk read). */
export interface SummaryStream {
  readonly layout: SummaryLayout;
  readonly lines: AsyncGenerator<SummaryLine[]>;
}

/**
 * Opens a summary stream. `decidedByManifest` is the manifest's word on whether a policy decided the batch (null
 * without a manifest, or one written before decisions: then the header tells).
 *
 * @throws ResultsFileError when the file is not a summary the pipeline wrote (message names the file and line)
 */
export async function openSummary(
  chunks: AsyncIterable<Uint8Array>,
  decidedByManifest: boolean | null,
): Promise<SummaryStream> {
  const text = decoded(chunks)[Symbol.asyncIterator]();
  const first = await text.next();
  if (first.done) throw new ResultsFileError('summary.csv is empty');
  const dialect: CsvDialect = first.value.startsWith(UTF8_BOM) ? 'excel' : 'standard';
  async function* rest(): AsyncGenerator<string> {
    yield dialect === 'excel' ? first.value.slice(UTF8_BOM.length) : (first.value as string);
    for (let next = await text.next(); !next.done; next = await text.next()) yield next.value;
  }
  const batches = parseCsvRows(rest(), { delimiter: dialect === 'excel' ? ';' : ',' });
  const firstBatch = await nextBatch(batches);
  const headers = firstBatch?.[0];
  if (headers === undefined) throw new ResultsFileError('summary.csv is empty');
  const { layout, columns } = readHeader(headers, decidedByManifest, dialect);
  async function* lines(): AsyncGenerator<SummaryLine[]> {
    let line = 0;
    const convert = (rows: readonly string[][]) =>
      rows
        .filter((cells) => cells.length > 1 || cells[0] !== '')
        .map((cells) => lineOf(cells, columns, ++line));
    yield convert((firstBatch as string[][]).slice(1));
    for (let batch = await nextBatch(batches); batch !== null; batch = await nextBatch(batches))
      yield convert(batch);
  }
  return { layout, lines: lines() };
}

/** The parser's next batch of rows, its quoting errors said as errors of the summary. */
async function nextBatch(batches: AsyncGenerator<string[][]>): Promise<string[][] | null> {
  try {
    const next = await batches.next();
    return next.done ? null : next.value;
  } catch (error) {
    if (error instanceof CustomerListError)
      throw new ResultsFileError(
        `summary.csv: ${error.problem}: the results folder is incomplete (the summary was cut short or damaged); copy or download the batch's results again`,
      );
    throw error;
  }
}
