import type { Bureau } from '../report/index.ts';

/** Status detail of a row left unbought because a spending cap was reached. */
export const BUDGET_EXHAUSTED_DETAIL = 'not queried: budget exhausted (the spending cap was reached)';

/** The caps one query counts against: the batch's own, and the bureau's for the month. Null is no cap. */
export interface BudgetCaps {
  readonly batch: number | null;
  readonly monthly: number | null;
}

/** Where one query's budget is reserved: its bureau, its batch and the month it is charged in. */
export interface BudgetScope {
  readonly bureau: Bureau;
  readonly batchId: string;
  /** `YYYY-MM`, see {@link chargeMonth}. */
  readonly month: string;
}

/** A cap passing one of the alert thresholds (80 %, 100 %) with this reservation. */
export interface BudgetAlert {
  readonly scope: 'batch' | 'month';
  readonly used: number;
  readonly cap: number;
  readonly percent: number;
}

export type BudgetReservation =
  | { readonly reserved: true; readonly alerts: readonly BudgetAlert[] }
  | { readonly reserved: false; readonly exhausted: 'batch' | 'month' };

/**
 * The S3 user metadata (`x-amz-meta-max-charges`) an upload carries to cap its own batch: the most queries it may
 * buy. Set it when uploading (`aws s3 cp list.csv s3://…/incoming/a/ --metadata max-charges=500`).
 */
export const MAX_CHARGES_METADATA = 'max-charges';

/** An upload's own cap from its metadata: null when it has none, `invalid` when it is not a whole number ≥ 0. */
export function maxChargesOf(metadata: Readonly<Record<string, string>>): number | null | 'invalid' {
  const value = metadata[MAX_CHARGES_METADATA];
  if (value === undefined) return null;
  return /^\d{1,12}$/.test(value.trim()) ? Number(value.trim()) : 'invalid';
}

/** The log line an alert writes; the construct's alarm counts these by their `percent`. */
export const SPENDING_CAP_ALERT = 'spending cap alert';

/** Shares of a cap at which the pipeline says so (an event, a log line an alarm watches). */
const ALERT_PERCENTS = [80, 100] as const;

/**
 * The alerts a reservation that brought a cap's use to `used` raises: a threshold is crossed by exactly one
 * reservation (the one whose count first reaches it), so each alert fires once however many workers race.
 */
export function alertsAt(scope: BudgetAlert['scope'], used: number, cap: number | null): BudgetAlert[] {
  if (cap === null || cap === 0) return [];
  return ALERT_PERCENTS.filter((percent) => used === Math.ceil((cap * percent) / 100)).map((percent) => ({
    scope,
    used,
    cap,
    percent,
  }));
}

const MONTH = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Sao_Paulo',
  year: 'numeric',
  month: '2-digit',
});

/** The month a query is charged in, `YYYY-MM` in Brasília time: the bureau invoices Brazilian calendar months. */
export function chargeMonth(nowMs: number): string {
  return MONTH.format(new Date(nowMs)).slice(0, 7);
}
