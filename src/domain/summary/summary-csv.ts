import type { ChargeState } from '../batch/charge-state.ts';
import {
  type CsvDialect,
  csvLine,
  csvPreamble,
  passThroughHeaders as headersBeside,
} from '../csv/csv-format.ts';
import type { Decision } from '../decision/index.ts';
import type { DocumentType } from '../documents/index.ts';
import type { Bureau } from '../report/index.ts';
import type { ReportColumns } from '../report/report-columns.ts';

export { type CsvDialect, neutraliseFormula } from '../csv/csv-format.ts';

/** Final status of an input row: every row of every file ends in exactly one. */
export const ROW_STATUSES = [
  'screened',
  'cached',
  'duplicate',
  'invalid_document',
  'failed',
  'cancelled',
  'not_queried',
] as const;
export type SummaryStatus = (typeof ROW_STATUSES)[number];

/** Rows per final status, all zero: what the finaliser, the report and tests count into. */
export const emptyStatusCounts = (): Record<SummaryStatus, number> =>
  Object.fromEntries(ROW_STATUSES.map((status) => [status, 0])) as Record<SummaryStatus, number>;

/** One line of the summary: an input row, its final status and reason, and the report figures when there are any. */
export interface SummaryRow {
  readonly row: number;
  /** The normalised document, or the cell as typed when it is not a document. */
  readonly document: string;
  readonly documentType: DocumentType | null;
  readonly bureau: Bureau;
  readonly status: SummaryStatus;
  readonly statusDetail: string;
  /**
   * What the bureau may have charged for this row (see `ChargeState`); duplicates are never charged. Absent only
   * when read back from a summary written before charge states were kept.
   */
  readonly chargeState?: ChargeState | null;
  readonly report: ReportColumns | null;
  /** What the batch's policy decided for this row; null when it has no report (or absent without a policy). */
  readonly decision?: Decision | null;
  readonly passThrough: readonly string[];
}

/**
 * Headers of the input's own columns in the summary: their own names, with an `input_` prefix on a name the summary
 * already uses, so every header stays unique.
 */
export const passThroughHeaders = (
  columns: readonly string[],
  ownColumns: readonly string[] = SUMMARY_COLUMNS,
) => headersBeside(columns, ownColumns);

export const SUMMARY_COLUMNS = [
  'row',
  'document',
  'document_type',
  'bureau',
  'status',
  'status_detail',
  'charge_state',
  'name',
  'score',
  'default_probability_pct',
  'protests_count',
  'protests_amount',
  'pending_debts_count',
  'pending_debts_amount',
  'bounced_cheques_count',
  'bounced_cheques_amount',
  'stopped_cheques_count',
  'query_code',
  'report_pdf',
  'screened_at',
] as const;

/** The columns a batch decided by a policy adds after the report's, before the customer's own. */
export const DECISION_COLUMNS = ['decision', 'decision_reasons', 'risk_band', 'credit_limit'] as const;

/**
 * The final decision of each decided row, after the policy's own columns, in a summary `credit-screen export`
 * rewrote: a person's override where there is one (`decided_by` names them), else the policy's decision
 * (`policy:<name>`, decided when the batch completed), with the limit that goes with it (`final_credit_limit`,
 * beside the policy's own `credit_limit`).
 */
export const FINAL_DECISION_COLUMNS = [
  'final_decision',
  'final_credit_limit',
  'decided_by',
  'decided_at',
] as const;

/** A decision's reasons in one cell: `CODE: text`, in the policy's order, ` | ` between them. */
export const reasonsCell = (decision: Decision): string =>
  decision.reasons
    .map((reason) => (reason.text === reason.code ? reason.code : `${reason.code}: ${reason.text}`))
    .join(' | ');

function amount(cents: number | null, dialect: CsvDialect): string {
  if (cents === null) return '';
  const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return dialect === 'excel' ? text.replace('.', ',') : text;
}

function decimal(value: number | null, dialect: CsvDialect): string {
  if (value === null) return '';
  const text = String(value);
  return dialect === 'excel' ? text.replace('.', ',') : text;
}

/** A credit limit in reais as the summary writes it (`15000.00`, or `15000,00` in Excel's dialect); empty for none. */
export function creditLimitCell(reais: number | null, dialect: CsvDialect): string {
  return amount(reais === null ? null : Math.round(reais * 100), dialect);
}

const whole = (value: number | null): string => (value === null ? '' : String(value));

export class SummaryCsvWriter {
  readonly #passThroughHeaders: readonly string[];
  readonly #ownColumns: readonly string[];

  constructor(
    readonly dialect: CsvDialect,
    readonly passThroughColumns: readonly string[],
    /** Write the decision columns (a batch decided by a policy). */
    readonly withDecisions = false,
  ) {
    this.#ownColumns = withDecisions ? [...SUMMARY_COLUMNS, ...DECISION_COLUMNS] : SUMMARY_COLUMNS;
    this.#passThroughHeaders = passThroughHeaders(passThroughColumns, this.#ownColumns);
  }

  #line(cells: readonly string[]): string {
    return csvLine(cells, this.dialect);
  }

  /** The headers the customer's own columns have in the summary (renamed where one would clash with ours). */
  get passThroughHeaders(): readonly string[] {
    return this.#passThroughHeaders;
  }

  /** The header line (with a BOM first in the Excel dialect). */
  header(): string {
    return csvPreamble(this.dialect) + this.#line([...this.#ownColumns, ...this.#passThroughHeaders]);
  }

  row(row: SummaryRow): string {
    const report = row.report;
    const dialect = this.dialect;
    const passThrough = this.passThroughColumns.map((_, index) => row.passThrough[index] ?? '');
    return this.#line([
      String(row.row),
      row.document,
      row.documentType ?? '',
      row.bureau,
      row.status,
      row.statusDetail,
      row.chargeState ?? '',
      report?.name ?? '',
      whole(report?.score ?? null),
      decimal(report?.defaultProbabilityPct ?? null, dialect),
      whole(report?.protestsCount ?? null),
      amount(report?.protestsCents ?? null, dialect),
      whole(report?.pendingDebtsCount ?? null),
      amount(report?.pendingDebtsCents ?? null, dialect),
      whole(report?.bouncedChequesCount ?? null),
      amount(report?.bouncedChequesCents ?? null, dialect),
      whole(report?.stoppedChequesCount ?? null),
      whole(report?.queryCode ?? null),
      report?.reportPdf ?? '',
      report?.screenedAt ?? '',
      ...(this.withDecisions ? this.#decisionCells(row.decision ?? null) : []),
      ...passThrough,
    ]);
  }

  #decisionCells(decision: Decision | null): string[] {
    if (decision === null) return ['', '', '', ''];
    return [
      decision.decision,
      reasonsCell(decision),
      decision.risk_band ?? '',
      creditLimitCell(decision.credit_limit, this.dialect),
    ];
  }
}
