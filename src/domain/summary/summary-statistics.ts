import type { DecisionReason, DecisionValue } from '../decision/index.ts';
import type { DocumentType } from '../documents/index.ts';
// Straight from the files: monitoring's index imports the summary writer, which would make a cycle.
import {
  CHANGE_KINDS,
  type ChangeCounts,
  type ChangeKind,
  emptyChangeCounts,
} from '../monitoring/change-detection.ts';
import type { ChangeRow } from '../monitoring/changes-csv.ts';
import { addSegment, copySegment, emptySegment, type RiskSegment } from './risk-segment.ts';
import { emptyStatusCounts, type SummaryRow, type SummaryStatus } from './summary-csv.ts';
import { TopList } from './top-list.ts';

/** Whether a row's bureau query was paid for (exactly-once accounting); absent where the pipeline does not record it. */
export const CHARGE_STATES = ['charged', 'not_charged', 'charge_unknown'] as const;
export type ChargeState = (typeof CHARGE_STATES)[number];
export type ChargeStateCounts = Record<ChargeState, number>;

/** A summary row as the statistics read it: with its charge state where the pipeline records one. */
export type StatisticsRow = SummaryRow;

/** A half-open range `[from, to)`; the last band of a scale includes its upper end. */
export interface Band {
  readonly from: number;
  readonly to: number;
}

/** Score bands (the bureaus score 0–1000, lower is riskier). */
export const SCORE_BANDS: readonly Band[] = [
  { from: 0, to: 200 },
  { from: 200, to: 400 },
  { from: 400, to: 600 },
  { from: 600, to: 800 },
  { from: 800, to: 1000 },
];

/** Default-probability bands, in percent. */
export const PROBABILITY_BANDS: readonly Band[] = [
  { from: 0, to: 2 },
  { from: 2, to: 5 },
  { from: 5, to: 10 },
  { from: 10, to: 20 },
  { from: 20, to: 50 },
  { from: 50, to: 100 },
];

/** Index of the band `value` falls in; values past the scale go to its last band, below it to its first. */
export function bandIndex(bands: readonly Band[], value: number): number {
  const index = bands.findIndex((band) => value < band.to);
  return index === -1 ? bands.length - 1 : index;
}

/** Statuses whose reasons are worth grouping: each names why a row was not screened. */
const REASONED_STATUSES = ['invalid_document', 'failed', 'cancelled'] as const;
export type ReasonedStatus = (typeof REASONED_STATUSES)[number];

interface ReasonGroup {
  readonly status: ReasonedStatus;
  readonly reason: string;
  readonly count: number;
  /** The first rows with this reason, as typed. */
  readonly examples: readonly { readonly row: number; readonly input: string }[];
}

/** A customer in the riskiest tables: the summary's figures and the input's own columns. */
export interface CustomerLine {
  readonly row: number;
  readonly document: string;
  readonly documentType: DocumentType | null;
  readonly status: SummaryStatus;
  readonly name: string | null;
  readonly score: number | null;
  readonly defaultProbabilityPct: number | null;
  readonly protestsCount: number;
  readonly protestsCents: number | null;
  readonly pendingDebtsCount: number;
  readonly pendingDebtsCents: number | null;
  readonly bouncedChequesCount: number;
  readonly passThrough: readonly string[];
}

/** A customer the batch's policy did not approve: the figures, and what the policy said. */
export interface DecidedLine extends CustomerLine {
  readonly decision: DecisionValue;
  readonly reasons: readonly DecisionReason[];
  /** In reais; null when the policy gave none. */
  readonly creditLimit: number | null;
}

export interface ChangeLine {
  readonly row: number;
  readonly document: string;
  readonly kind: ChangeKind;
  readonly before: string;
  readonly after: string;
  readonly delta: string;
  readonly passThrough: readonly string[];
}

/** The first items of a ranking and how many qualified in all. */
export interface Ranking<T> {
  readonly items: readonly T[];
  readonly total: number;
}

/** What a batch report shows beyond the manifest's counts, gathered from the summary's own rows in one pass. */
export interface BatchStatistics {
  readonly statuses: Readonly<Record<SummaryStatus, number>>;
  readonly reasons: readonly ReasonGroup[];
  /** Rows whose reason is not among `reasons` (too many distinct reasons to list). */
  readonly otherReasonRows: number;
  /** Documents with a report in this batch (screened or cached; duplicates repeat their first row's report). */
  readonly withReport: number;
  readonly scoreBands: readonly number[];
  readonly noScore: number;
  readonly probabilityBands: readonly number[];
  readonly noProbability: number;
  readonly risk: Readonly<Record<DocumentType, RiskSegment>>;
  readonly lowestScores: Ranking<CustomerLine>;
  readonly largestDebts: Ranking<CustomerLine>;
  /** Rows per charge state; null when the summary records none. */
  readonly charges: ChargeStateCounts | null;
  readonly changes: { readonly counts: ChangeCounts; readonly list: Ranking<ChangeLine> };
  /** Customers the policy declined and sent to review, in row order (the people to act on); empty without one. */
  readonly decided: { readonly decline: Ranking<DecidedLine>; readonly review: Ranking<DecidedLine> };
}

/** How much of each list a report keeps: enough to act on, small enough for a page. */
export interface StatisticsLimits {
  readonly customers: number;
  readonly changes: number;
  readonly reasons: number;
  readonly examplesPerReason: number;
}

const DEFAULT_STATISTICS_LIMITS: StatisticsLimits = {
  customers: 15,
  changes: 30,
  reasons: 40,
  examplesPerReason: 3,
};

/**
 * The limits of the statistics of a part of a batch, gathered apart and absorbed in row order: as many reasons as
 * any real list has, so the joined figures keep exactly the reasons one pass would (the first ones by row).
 */
export const PART_STATISTICS_LIMITS: StatisticsLimits = { ...DEFAULT_STATISTICS_LIMITS, reasons: 1_000 };

/** Kinds of change from the most to the least severe for a creditor: new trouble first, improvements last. */
export const CHANGE_SEVERITY: readonly ChangeKind[] = [
  'decision_worsened',
  'new_protest',
  'new_pending_debt',
  'bounced_cheques_up',
  'score_drop',
  'status_change',
  'protest_cleared',
  'pending_debt_cleared',
  'score_rise',
  'decision_improved',
  'first_screening',
];

const severityRank = new Map(CHANGE_SEVERITY.map((kind, index) => [kind, index]));
const magnitude = (delta: string): number => Math.abs(Number(delta) || 0);

/** Orders changes the most severe first: by kind (`CHANGE_SEVERITY`), then the larger move, then the earlier row. */
export function compareChangeSeverity<
  Change extends { readonly kind: ChangeKind; readonly delta: string; readonly row: number },
>(a: Change, b: Change): number {
  return (
    (severityRank.get(a.kind) ?? CHANGE_KINDS.length) - (severityRank.get(b.kind) ?? CHANGE_KINDS.length) ||
    magnitude(b.delta) - magnitude(a.delta) ||
    a.row - b.row
  );
}

const increment = (counts: number[], index: number): void => {
  counts[index] = (counts[index] ?? 0) + 1;
};

const exposure = (line: CustomerLine): number => (line.protestsCents ?? 0) + (line.pendingDebtsCents ?? 0);

/**
 * Gathers a batch's statistics from the rows the summary is written from (the finaliser) or read back from it (the
 * command line), so both give the same figures. Memory stays constant: rankings and reason examples are capped.
 */
export class SummaryStatisticsCollector {
  readonly #limits: StatisticsLimits;
  readonly #statuses = emptyStatusCounts();
  readonly #reasons = new Map<
    string,
    { status: ReasonedStatus; reason: string; count: number; examples: { row: number; input: string }[] }
  >();
  #otherReasonRows = 0;
  #withReport = 0;
  readonly #scoreBands = SCORE_BANDS.map(() => 0);
  #noScore = 0;
  readonly #probabilityBands = PROBABILITY_BANDS.map(() => 0);
  #noProbability = 0;
  readonly #risk = { cpf: emptySegment(), cnpj: emptySegment() };
  readonly #lowestScores: TopList<CustomerLine>;
  readonly #largestDebts: TopList<CustomerLine>;
  readonly #charges: ChargeStateCounts = { charged: 0, not_charged: 0, charge_unknown: 0 };
  #chargesSeen = false;
  readonly #changeCounts = emptyChangeCounts();
  readonly #changes: TopList<ChangeLine>;
  readonly #declined: TopList<DecidedLine>;
  readonly #review: TopList<DecidedLine>;

  constructor(limits: StatisticsLimits = DEFAULT_STATISTICS_LIMITS) {
    this.#limits = limits;
    this.#lowestScores = new TopList(
      limits.customers,
      (a, b) => (a.score ?? 0) - (b.score ?? 0) || a.row - b.row,
    );
    this.#largestDebts = new TopList(limits.customers, (a, b) => exposure(b) - exposure(a) || a.row - b.row);
    this.#changes = new TopList(limits.changes, compareChangeSeverity);
    this.#declined = new TopList(limits.customers, (a, b) => a.row - b.row);
    this.#review = new TopList(limits.customers, (a, b) => a.row - b.row);
  }

  /** Adds one summary row. */
  add(row: StatisticsRow): void {
    this.#statuses[row.status]++;
    if (row.chargeState) {
      this.#chargesSeen = true;
      this.#charges[row.chargeState]++;
    }
    if (row.status === 'invalid_document' || row.status === 'failed' || row.status === 'cancelled')
      this.#addReason(row.status, row);
    if ((row.status === 'screened' || row.status === 'cached') && row.report !== null) this.#addReport(row);
  }

  /** Adds one line of a re-screen's change report. */
  addChange(change: ChangeRow): void {
    this.#changeCounts[change.change.kind]++;
    this.#changes.offer({
      row: change.row,
      document: change.document,
      kind: change.change.kind,
      before: change.change.before,
      after: change.change.after,
      delta: change.change.delta,
      passThrough: change.passThrough,
    });
  }

  #addReason(status: ReasonedStatus, row: StatisticsRow): void {
    const key = `${status}\u0000${row.statusDetail}`;
    let group = this.#reasons.get(key);
    if (group === undefined) {
      if (this.#reasons.size >= this.#limits.reasons) {
        this.#otherReasonRows++;
        return;
      }
      group = { status, reason: row.statusDetail, count: 0, examples: [] };
      this.#reasons.set(key, group);
    }
    group.count++;
    if (group.examples.length < this.#limits.examplesPerReason)
      group.examples.push({ row: row.row, input: row.document });
  }

  #addReport(row: StatisticsRow): void {
    const report = row.report;
    if (report === null) return;
    this.#withReport++;
    if (report.score === null) this.#noScore++;
    else increment(this.#scoreBands, bandIndex(SCORE_BANDS, report.score));
    if (report.defaultProbabilityPct === null) this.#noProbability++;
    else increment(this.#probabilityBands, bandIndex(PROBABILITY_BANDS, report.defaultProbabilityPct));
    if (row.documentType !== null) {
      const segment = this.#risk[row.documentType];
      segment.documents++;
      if (report.protestsCount > 0) segment.withProtests++;
      segment.protestsCents += report.protestsCents ?? 0;
      if (report.pendingDebtsCount > 0) segment.withPendingDebts++;
      segment.pendingDebtsCents += report.pendingDebtsCents ?? 0;
      if (report.bouncedChequesCount > 0) segment.withBouncedCheques++;
      segment.bouncedChequesCents += report.bouncedChequesCents ?? 0;
      if (report.protestsCount > 0 || report.pendingDebtsCount > 0 || report.bouncedChequesCount > 0)
        segment.withAnyRestriction++;
      if (report.protestsCount > 0 && report.protestsCents === null) segment.amountsUnknown.protests++;
      if (report.pendingDebtsCount > 0 && report.pendingDebtsCents === null)
        segment.amountsUnknown.pendingDebts++;
      if (report.bouncedChequesCount > 0 && report.bouncedChequesCents === null)
        segment.amountsUnknown.bouncedCheques++;
    }
    const line: CustomerLine = {
      row: row.row,
      document: row.document,
      documentType: row.documentType,
      status: row.status,
      name: report.name,
      score: report.score,
      defaultProbabilityPct: report.defaultProbabilityPct,
      protestsCount: report.protestsCount,
      protestsCents: report.protestsCents,
      pendingDebtsCount: report.pendingDebtsCount,
      pendingDebtsCents: report.pendingDebtsCents,
      bouncedChequesCount: report.bouncedChequesCount,
      passThrough: row.passThrough,
    };
    if (line.score !== null) this.#lowestScores.offer(line);
    if (exposure(line) > 0) this.#largestDebts.offer(line);
    const decision = row.decision ?? null;
    if (decision !== null && decision.decision !== 'approve') {
      const decided: DecidedLine = {
        ...line,
        decision: decision.decision,
        reasons: decision.reasons,
        creditLimit: decision.credit_limit,
      };
      (decision.decision === 'decline' ? this.#declined : this.#review).offer(decided);
    }
  }

  /**
   * Adds the statistics of a part of the batch's rows, gathered apart (the finaliser writes a big batch in parts):
   * parts absorbed in row order give what one pass over every row gives. Reason groups keep the order of their first
   * row (their first example), and groups beyond the limit count as other rows, as in one pass. One difference: a
   * part gathered with {@link PART_STATISTICS_LIMITS} lumps its reasons past the thousandth as other rows, so a
   * reason already kept that reappears there only is counted as other (a thousand distinct failure reasons in one
   * part is not a list, it is a broken bureau).
   */
  absorb(part: BatchStatistics): void {
    for (const status of Object.keys(part.statuses) as SummaryStatus[])
      this.#statuses[status] += part.statuses[status];
    this.#absorbReasons(part);
    this.#withReport += part.withReport;
    part.scoreBands.forEach((count, index) => {
      this.#scoreBands[index] = (this.#scoreBands[index] ?? 0) + count;
    });
    this.#noScore += part.noScore;
    part.probabilityBands.forEach((count, index) => {
      this.#probabilityBands[index] = (this.#probabilityBands[index] ?? 0) + count;
    });
    this.#noProbability += part.noProbability;
    for (const type of ['cpf', 'cnpj'] as const) addSegment(this.#risk[type], part.risk[type]);
    this.#lowestScores.absorb(part.lowestScores);
    this.#largestDebts.absorb(part.largestDebts);
    if (part.charges !== null) {
      this.#chargesSeen = true;
      for (const state of CHARGE_STATES) this.#charges[state] += part.charges[state];
    }
    for (const kind of CHANGE_KINDS) this.#changeCounts[kind] += part.changes.counts[kind];
    this.#changes.absorb(part.changes.list);
    this.#declined.absorb(part.decided.decline);
    this.#review.absorb(part.decided.review);
  }

  #absorbReasons(part: BatchStatistics): void {
    const groups = new Map(this.#reasons);
    for (const group of part.reasons) {
      const key = `${group.status}\u0000${group.reason}`;
      const known = groups.get(key);
      if (known === undefined) {
        groups.set(key, { ...group, examples: [...group.examples] });
        continue;
      }
      known.count += group.count;
      known.examples.push(...group.examples.slice(0, this.#limits.examplesPerReason - known.examples.length));
    }
    const firstRow = (group: { examples: readonly { row: number }[] }) => group.examples[0]?.row ?? 0;
    const ordered = [...groups].sort(([, a], [, b]) => firstRow(a) - firstRow(b));
    this.#reasons.clear();
    this.#otherReasonRows += part.otherReasonRows;
    for (const [key, group] of ordered) {
      if (this.#reasons.size < this.#limits.reasons) this.#reasons.set(key, group);
      else this.#otherReasonRows += group.count;
    }
  }

  /** The statistics of the rows added so far. */
  result(): BatchStatistics {
    const order = new Map<string, number>(REASONED_STATUSES.map((status, index) => [status, index]));
    const reasons = [...this.#reasons.values()]
      .map((group) => ({ ...group, examples: [...group.examples] }))
      .sort((a, b) => (order.get(a.status) ?? 0) - (order.get(b.status) ?? 0) || b.count - a.count);
    const ranking = <T>(list: TopList<T>): Ranking<T> => ({ items: [...list.items], total: list.offered });
    return {
      statuses: { ...this.#statuses },
      reasons,
      otherReasonRows: this.#otherReasonRows,
      withReport: this.#withReport,
      scoreBands: [...this.#scoreBands],
      noScore: this.#noScore,
      probabilityBands: [...this.#probabilityBands],
      noProbability: this.#noProbability,
      risk: { cpf: copySegment(this.#risk.cpf), cnpj: copySegment(this.#risk.cnpj) },
      lowestScores: ranking(this.#lowestScores),
      largestDebts: ranking(this.#largestDebts),
      charges: this.#chargesSeen ? { ...this.#charges } : null,
      changes: { counts: { ...this.#changeCounts }, list: ranking(this.#changes) },
      decided: { decline: ranking(this.#declined), review: ranking(this.#review) },
    };
  }
}
