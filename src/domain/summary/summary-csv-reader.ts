import Papa from 'papaparse';
import { type CsvDialect, UTF8_BOM } from '../csv/csv-format.ts';
import { DECISION_VALUES, type Decision, type DecisionValue } from '../decision/index.ts';
import type { DocumentType } from '../documents/index.ts';
import { CHANGE_KINDS, type ChangeKind } from '../monitoring/change-detection.ts';
import { CHANGES_COLUMNS, type ChangeRow } from '../monitoring/changes-csv.ts';
import { BUREAUS, type Bureau } from '../report/index.ts';
import {
  DECISION_COLUMNS,
  FINAL_DECISION_COLUMNS,
  ROW_STATUSES,
  SUMMARY_COLUMNS,
  type SummaryStatus,
} from './summary-csv.ts';
import { CHARGE_STATES, type ChargeState, type StatisticsRow } from './summary-statistics.ts';

/** A results file that is not what the pipeline writes. */
export class ResultsFileError extends Error {
  override readonly name = 'ResultsFileError';
}

/** The column a summary gains where the pipeline records whether each query was paid for. */
const CHARGE_STATE_COLUMN = 'charge_state';

/** What the header of a results CSV says: its dialect and the input's own columns, by their headers. */
export interface ResultsCsvLayout {
  readonly dialect: CsvDialect;
  readonly passThroughHeaders: readonly string[];
}

/**
 * Reads a results CSV the pipeline wrote (either dialect), calling `onRecord` with each data line's cells by
 * header; returns the layout. Streams over the text without building a table of it.
 */
function readResultsCsv(
  text: string,
  ownColumns: readonly string[],
  onRecord: (cell: (column: string) => string, passThrough: string[]) => void,
): ResultsCsvLayout {
  const dialect: CsvDialect = text.startsWith(UTF8_BOM) ? 'excel' : 'standard';
  const body = dialect === 'excel' ? text.slice(1) : text;
  let headers: string[] | null = null;
  let index = new Map<string, number>();
  let passThroughIndexes: number[] = [];
  Papa.parse<string[]>(body, {
    delimiter: dialect === 'excel' ? ';' : ',',
    skipEmptyLines: true,
    step: (result) => {
      const cells = result.data;
      if (headers === null) {
        headers = cells;
        index = new Map(cells.map((header, position) => [header, position]));
        const missing = ownColumns.filter((column) => !index.has(column));
        if (missing.length > 0) throw new ResultsFileError(`missing columns: ${missing.join(', ')}`);
        const own = new Set<string>([
          ...ownColumns,
          CHARGE_STATE_COLUMN,
          ...DECISION_COLUMNS,
          ...FINAL_DECISION_COLUMNS,
        ]);
        passThroughIndexes = cells.flatMap((header, position) => (own.has(header) ? [] : [position]));
        return;
      }
      onRecord(
        (column) => cells[index.get(column) ?? -1] ?? '',
        passThroughIndexes.map((position) => cells[position] ?? ''),
      );
    },
  });
  if (headers === null) throw new ResultsFileError('the file is empty');
  const found: string[] = headers;
  return { dialect, passThroughHeaders: passThroughIndexes.map((position) => found[position] ?? '') };
}

const wholeOrNull = (text: string): number | null => (text === '' ? null : Number.parseInt(text, 10));
const decimalOrNull = (text: string): number | null => (text === '' ? null : Number(text.replace(',', '.')));

/** `1234.56` or `1234,56` to whole cents, exactly (no binary fractions on the way). */
export function amountCents(text: string): number | null {
  if (text === '') return null;
  const [whole = '0', fraction = ''] = text.split(/[.,]/);
  return Number.parseInt(whole, 10) * 100 + Number.parseInt(fraction.padEnd(2, '0').slice(0, 2), 10);
}

function oneOf<T extends string>(values: readonly T[], value: string, column: string): T {
  if (!(values as readonly string[]).includes(value))
    throw new ResultsFileError(`unexpected ${column} ${JSON.stringify(value)}`);
  return value as T;
}

/** A decision as the summary writes it (without its trace, which `reports.jsonl` keeps); none in an empty cell. */
function decisionOf(cell: (column: string) => string): { decision?: Decision } {
  const value = cell('decision');
  if (value === '') return {};
  const reasons = cell('decision_reasons');
  const limit = amountCents(cell('credit_limit'));
  const decision: Decision = {
    decision: oneOf<DecisionValue>(DECISION_VALUES, value, 'decision'),
    // `CODE: text | CODE: text`, a code alone where the policy gave no text (see reasonsCell).
    reasons:
      reasons === ''
        ? []
        : reasons.split(' | ').map((reason) => {
            const colon = reason.indexOf(': ');
            return colon === -1
              ? { code: reason, text: reason }
              : { code: reason.slice(0, colon), text: reason.slice(colon + 2) };
          }),
    risk_band: cell('risk_band') || null,
    credit_limit: limit === null ? null : limit / 100,
    detail: null,
    trace: [],
  };
  return { decision };
}

/** Reads `summary.csv` back into the rows it was written from, one at a time. */
export function readSummaryCsv(text: string, onRow: (row: StatisticsRow) => void): ResultsCsvLayout {
  return readResultsCsv(text, SUMMARY_COLUMNS, (cell, passThrough) => {
    const type = cell('document_type');
    const charge = cell(CHARGE_STATE_COLUMN);
    onRow({
      row: Number.parseInt(cell('row'), 10),
      document: cell('document'),
      documentType: type === '' ? null : oneOf<DocumentType>(['cpf', 'cnpj'], type, 'document_type'),
      bureau: oneOf<Bureau>(BUREAUS, cell('bureau'), 'bureau'),
      status: oneOf<SummaryStatus>(ROW_STATUSES, cell('status'), 'status'),
      statusDetail: cell('status_detail'),
      // Every report has its date; a row without one has no report figures.
      report:
        cell('screened_at') === ''
          ? null
          : {
              name: cell('name') || null,
              score: wholeOrNull(cell('score')),
              defaultProbabilityPct: decimalOrNull(cell('default_probability_pct')),
              protestsCount: wholeOrNull(cell('protests_count')) ?? 0,
              protestsCents: amountCents(cell('protests_amount')),
              pendingDebtsCount: wholeOrNull(cell('pending_debts_count')) ?? 0,
              pendingDebtsCents: amountCents(cell('pending_debts_amount')),
              bouncedChequesCount: wholeOrNull(cell('bounced_cheques_count')) ?? 0,
              bouncedChequesCents: amountCents(cell('bounced_cheques_amount')),
              stoppedChequesCount: wholeOrNull(cell('stopped_cheques_count')),
              queryCode: wholeOrNull(cell('query_code')),
              reportPdf: cell('report_pdf') || null,
              screenedAt: cell('screened_at'),
            },
      passThrough,
      ...decisionOf(cell),
      ...(charge === ''
        ? {}
        : { chargeState: oneOf<ChargeState>(CHARGE_STATES, charge, CHARGE_STATE_COLUMN) }),
    });
  });
}

/** Reads `changes.csv` back into its change rows, one at a time. */
export function readChangesCsv(text: string, onChange: (change: ChangeRow) => void): ResultsCsvLayout {
  return readResultsCsv(text, CHANGES_COLUMNS, (cell, passThrough) => {
    onChange({
      row: Number.parseInt(cell('row'), 10),
      document: cell('document'),
      change: {
        kind: oneOf<ChangeKind>(CHANGE_KINDS, cell('change'), 'change'),
        before: cell('before'),
        after: cell('after'),
        delta: cell('delta'),
      },
      passThrough,
    });
  });
}
