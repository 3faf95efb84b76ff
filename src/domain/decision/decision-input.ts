/**
 * What a credit policy decides on: one flat, versioned object per report. Report figures carry the summary's own
 * column names (`score`, `protests_amount`, …) so an analyst who knows `summary.csv` knows the policy's vocabulary;
 * derived figures are what a credit desk looks at besides (age, company age, recent queries, presumed income); and
 * `input` holds the customer's own columns of the row. Money is in reais (a number with cents), as in the summary.
 * A figure the bureau did not give is null, never 0: a policy must be able to tell "no protest" from "not reported".
 */
import type { Bureau, NormalisedReport } from '../report/index.ts';
import { type CustomerValue, customerColumns } from './customer-values.ts';

/** The report's part of the decision input: everything but the customer's columns. */
export interface DecisionFigures {
  /** Version of this shape; a policy written for it can check it. */
  readonly input_version: 1;
  readonly document_type: 'cpf' | 'cnpj';
  readonly bureau: Bureau;
  /** The bureau's score; null when it gave none. */
  readonly score: number | null;
  /** Probability of default in percent (12.5 is 12.5 %); null when not calculated. */
  readonly default_probability_pct: number | null;
  readonly protests_count: number;
  /** Total of the protests in reais; null when the bureau gave no total. */
  readonly protests_amount: number | null;
  readonly pending_debts_count: number;
  readonly pending_debts_amount: number | null;
  /** Bounced cheques (CCF). */
  readonly bounced_cheques_count: number;
  /** Null when the bureau gives no total (bureau A on a CPF). */
  readonly bounced_cheques_amount: number | null;
  /** Null for bureau B, which does not report stopped cheques. */
  readonly stopped_cheques_count: number | null;
  readonly stopped_cheques_amount: number | null;
  /** Completed years of a person at the report's date; null for a company or without a birth date. */
  readonly age_years: number | null;
  /** Completed years since a company's foundation at the report's date; null for a person or without the date. */
  readonly company_age_years: number | null;
  /** The registration status as the bureau wrote it (`ATIVA`, `BAIXADA`, a CPF's code `0`, …); null when absent. */
  readonly registration_status: string | null;
  /** Companies the subject takes part in (bureau B); null when the bureau does not report them (bureau A). */
  readonly companies_count: number | null;
  /** Queries of this document by others in the 90 days up to the report (bureau A); null for bureau B. */
  readonly queries_last_90_days: number | null;
  /** Presumed monthly income in reais when the bureau gives it as an amount; null otherwise. */
  readonly presumed_income: number | null;
  /** When the bureau produced the report (ISO 8601), as `screened_at` in the summary. */
  readonly screened_at: string;
}

/** The decision input: the report's figures and the customer's columns of the row (`input.requested_amount`). */
export interface DecisionInput extends DecisionFigures {
  readonly input: Readonly<Record<string, CustomerValue>>;
}

/**
 * Every top-level field of the decision input, in its documented order. A policy that reads a name outside this
 * list (other than what its own nodes produce) reads null: the loader warns about it.
 */
export const DECISION_INPUT_FIELDS = [
  'input_version',
  'document_type',
  'bureau',
  'score',
  'default_probability_pct',
  'protests_count',
  'protests_amount',
  'pending_debts_count',
  'pending_debts_amount',
  'bounced_cheques_count',
  'bounced_cheques_amount',
  'stopped_cheques_count',
  'stopped_cheques_amount',
  'age_years',
  'company_age_years',
  'registration_status',
  'companies_count',
  'queries_last_90_days',
  'presumed_income',
  'screened_at',
  'input',
] as const satisfies readonly (keyof DecisionInput)[];

/** What kind of value each field holds when it is not null (`input` is an object of customer values). */
export const DECISION_INPUT_KINDS: Readonly<
  Record<(typeof DECISION_INPUT_FIELDS)[number], 'number' | 'string' | 'object'>
> = {
  input_version: 'number',
  document_type: 'string',
  bureau: 'string',
  score: 'number',
  default_probability_pct: 'number',
  protests_count: 'number',
  protests_amount: 'number',
  pending_debts_count: 'number',
  pending_debts_amount: 'number',
  bounced_cheques_count: 'number',
  bounced_cheques_amount: 'number',
  stopped_cheques_count: 'number',
  stopped_cheques_amount: 'number',
  age_years: 'number',
  company_age_years: 'number',
  registration_status: 'string',
  companies_count: 'number',
  queries_last_90_days: 'number',
  presumed_income: 'number',
  screened_at: 'string',
  input: 'object',
};

/** How far back `queries_last_90_days` looks. */
const RECENT_QUERY_DAYS = 90;
const DAY_MS = 86_400_000;

const reais = (cents: number | null): number | null => (cents === null ? null : cents / 100);

/** Completed years from an ISO date to another; null when either is missing or the first is later. */
function completedYears(from: string | null, to: string): number | null {
  if (from === null) return null;
  const [fy, fm, fd] = dateParts(from);
  const [ty, tm, td] = dateParts(to);
  const years = ty - fy - (tm < fm || (tm === fm && td < fd) ? 1 : 0);
  return years >= 0 ? years : null;
}

/** Year, month and day of an ISO date (`YYYY-MM-DD`), as `split('-').map(Number)` reads it, at a tenth of its cost. */
function dateParts(date: string): [number, number, number] {
  const month = date.indexOf('-');
  const day = date.indexOf('-', month + 1);
  if (month === -1 || day === -1 || date.indexOf('-', day + 1) !== -1) {
    const [year, monthNumber, dayNumber] = date.split('-').map(Number) as [number, number, number];
    return [year, monthNumber, dayNumber];
  }
  return [Number(date.slice(0, month)), Number(date.slice(month + 1, day)), Number(date.slice(day + 1))];
}

/** The first day of the 90 days up to a report's date, for the last date asked: a batch's reports share a few dates. */
let lastSince: { readonly reportDate: string; readonly since: string } = { reportDate: '', since: '' };

function recentSince(reportDate: string): string {
  if (lastSince.reportDate !== reportDate) {
    const since = new Date(Date.parse(reportDate) - RECENT_QUERY_DAYS * DAY_MS).toISOString().slice(0, 10);
    lastSince = { reportDate, since };
  }
  return lastSince.since;
}

/**
 * Queries in the 90 days up to the report's date. An undated query counts as recent: the count is what a cautious
 * analyst would count, never fewer than the dated ones.
 */
function recentQueries(report: NormalisedReport, reportDate: string): number | null {
  if (report.queryHistory === null) return null;
  const since = recentSince(reportDate);
  let count = 0;
  for (const query of report.queryHistory) if (query.date === null || query.date >= since) count++;
  return count;
}

/**
 * The report's figures for a policy. Ages are counted at the report's date (`fetchedAt`), not today's, so deciding
 * again over a stored report gives the same answer whenever it is run.
 */
export function decisionFigures(report: NormalisedReport): DecisionFigures {
  const reportDate = report.fetchedAt.slice(0, 10);
  const subject = report.subject;
  const isPerson = report.documentType === 'cpf';
  return {
    input_version: 1,
    document_type: report.documentType,
    bureau: report.bureau,
    score: report.score?.value ?? null,
    default_probability_pct: report.score?.probabilityPct ?? null,
    protests_count: report.protests.count,
    protests_amount: reais(report.protests.totalCents),
    pending_debts_count: report.pendingDebts.count,
    pending_debts_amount: reais(report.pendingDebts.totalCents),
    bounced_cheques_count: report.bouncedCheques.count,
    bounced_cheques_amount: reais(report.bouncedCheques.totalCents),
    stopped_cheques_count: report.stoppedCheques?.count ?? null,
    stopped_cheques_amount: reais(report.stoppedCheques?.totalCents ?? null),
    age_years: isPerson ? completedYears(subject?.birthDate ?? null, reportDate) : null,
    company_age_years: isPerson ? null : completedYears(subject?.foundationDate ?? null, reportDate),
    registration_status: subject?.status ?? null,
    companies_count: report.companyParticipations?.length ?? null,
    queries_last_90_days: recentQueries(report, reportDate),
    presumed_income: reais(subject?.presumedIncomeCents ?? null),
    screened_at: report.fetchedAt,
  };
}

/**
 * The decision input of a row: its report's figures and its own columns (the customer list's other columns, by
 * header, as `CustomerListLayout.passThroughColumns` and `CustomerRow.passThrough` give them).
 *
 * @example decisionInput(report, layout.passThroughColumns, row.passThrough)
 */
export function decisionInput(
  report: NormalisedReport | DecisionFigures,
  headers: readonly string[],
  cells: readonly string[],
): DecisionInput {
  const figures = 'input_version' in report ? report : decisionFigures(report);
  return { ...figures, input: customerColumns(headers, cells) };
}
