import { type CsvDialect, csvLine, csvPreamble, passThroughHeaders } from '../csv/csv-format.ts';
import type { ReportChange } from './change-detection.ts';

export const CHANGES_COLUMNS = ['row', 'document', 'change', 'before', 'after', 'delta'] as const;
// Counts and scores before and after, and the delta, are numbers the pipeline computed.
const SIGNED_COLUMNS: ReadonlySet<number> = new Set([3, 4, 5]);

/** One line of `changes.csv`: a change of one document, with the input row it came from. */
export interface ChangeRow {
  readonly row: number;
  readonly document: string;
  readonly change: ReportChange;
  readonly passThrough: readonly string[];
}

/**
 * `changes.csv`: one line per change (a document with two changes has two lines), in input order, followed by the
 * input's own columns like the summary. Same dialects and formula neutralisation as the summary.
 */
export class ChangesCsvWriter {
  readonly #headers: readonly string[];

  constructor(
    readonly dialect: CsvDialect,
    readonly passThroughColumns: readonly string[],
  ) {
    this.#headers = passThroughHeaders(passThroughColumns, CHANGES_COLUMNS);
  }

  header(): string {
    return csvPreamble(this.dialect) + csvLine([...CHANGES_COLUMNS, ...this.#headers], this.dialect);
  }

  row(row: ChangeRow): string {
    const passThrough = this.passThroughColumns.map((_, index) => row.passThrough[index] ?? '');
    const { kind, before, after, delta } = row.change;
    return csvLine(
      [String(row.row), row.document, kind, before, after, delta, ...passThrough],
      this.dialect,
      SIGNED_COLUMNS,
    );
  }
}
