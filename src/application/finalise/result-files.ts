/** The lines of a batch's result files for a range of its rows, and what the finaliser counts on the way. */

import type { BatchManifest, DecisionTally } from '../../contract/index.ts';
import {
  type BatchRecord,
  type ChargeCounts,
  type ChargeState,
  chargeStateOfRow,
  emptyChargeCounts,
  isRedrivable,
  type ReportKey,
  type RowRange,
  type RowRecord,
  reportKeyId,
} from '../../domain/batch/index.ts';
import {
  type ChangeCounts,
  DEFAULT_CHANGE_THRESHOLDS,
  emptyChangeCounts,
} from '../../domain/monitoring/index.ts';
import type { Logger } from '../../domain/ports/index.ts';
import {
  emptyStatusCounts,
  type ReportColumns,
  reviewLineOf,
  type StatisticsLimits,
  SummaryCsvWriter,
  type SummaryRow,
  SummaryStatisticsCollector,
  type SummaryStatus,
} from '../../domain/summary/index.ts';
import { BatchDecisions } from './batch-decisions.ts';
import { ChangeAlerts } from './change-alerts.ts';
import { changeLines } from './change-lines.ts';
import { DEFAULT_CHANGE_ALERTS, type FinaliseDependencies } from './finalise-dependencies.ts';

const NOT_SETTLED = 'not settled when the batch was finalised';

/** Where a range's lines go: the result files themselves (a batch written at once) or the objects of one part. */
export interface ResultTargets {
  readonly summary: string;
  readonly reports: string;
  readonly changes: string;
  readonly review: string;
}

/** Which rows to write, and whether the files start here (their header lines). */
export interface ResultScope {
  /** The rows; every row of the batch when absent. */
  readonly range?: RowRange;
  readonly withHeaders: boolean;
  /** How many reasons the page's statistics keep (a part keeps more, so that joined parts keep the first ones). */
  readonly statisticsLimits?: StatisticsLimits;
}

/** What writing a range of a batch's rows found: its rows per status and per charge, its changes, its figures. */
export interface RangeResults {
  readonly counts: Record<SummaryStatus, number>;
  readonly charges: ChargeCounts;
  /** Failed rows whose call may have been charged (see {@link BatchManifest.chargeUnknownFailed}). */
  readonly chargeUnknownFailed: number;
  readonly changeTally: { readonly counts: ChangeCounts; readonly documentsChanged: number };
  /** A re-screen's worst changes and the documents to announce; null for a batch that is not one. */
  readonly changeAlerts: ChangeAlerts | null;
  readonly statistics: SummaryStatisticsCollector;
  /** What the batch's policy decided; null for a batch without one. */
  readonly decisions: DecisionTally | null;
}

function statusOf(row: RowRecord): SummaryStatus {
  switch (row.state) {
    case 'screened':
    case 'cached':
    case 'duplicate':
    case 'invalid_document':
    case 'failed':
    case 'cancelled':
    case 'not_queried':
      return row.state;
    default:
      return 'failed'; // never lost: a row that somehow escaped settling is reported, as failed
  }
}

/** Rows settled at ingest (invalid, duplicate, cached) never reached the bureau; the others say for themselves. */
const chargeStateOf = (row: RowRecord, status: SummaryStatus): ChargeState =>
  status === 'duplicate' || status === 'invalid_document' ? 'not_charged' : chargeStateOfRow(row);

/** A range's tallies as the summary pass counts them. */
interface Tally {
  readonly counts: Record<SummaryStatus, number>;
  readonly charges: ChargeCounts;
  chargeUnknownFailed: number;
}

/**
 * The report figures and decisions a range's duplicates repeat from their first occurrence: rows of the range are
 * remembered as they pass (only their few report figures, so memory is bounded by the range); a first occurrence
 * in an earlier range is read back, and decided again when the worker did not decide it (without an audit entry:
 * its own range records it).
 */
class FirstOccurrences {
  readonly #reports = new Map<number, ReportColumns | null>();

  constructor(
    private readonly batch: BatchRecord,
    private readonly deps: FinaliseDependencies,
    private readonly decisions: BatchDecisions | null,
    private readonly first: number,
  ) {}

  /** Reads the earlier first occurrences this page's duplicates need; call before {@link remember} for the page. */
  async prepare(page: readonly RowRecord[]): Promise<void> {
    const wanted = new Set<number>();
    for (const row of page)
      if (row.state === 'duplicate' && row.duplicateOf !== null && row.duplicateOf < this.first)
        if (!this.#reports.has(row.duplicateOf)) wanted.add(row.duplicateOf);
    if (wanted.size === 0) return;
    const earlier = await this.deps.batchRows.getRows(this.batch.batchId, [...wanted]);
    await this.decisions?.decidePage(earlier, this.deps.reportHistory, { audited: false });
    for (const row of earlier) this.#reports.set(row.row, row.report);
  }

  remember(row: RowRecord): void {
    this.#reports.set(row.row, row.report);
  }

  reportOf(duplicate: RowRecord): ReportColumns | null {
    return this.#reports.get(duplicate.duplicateOf ?? 0) ?? null;
  }
}

async function* summaryLines(
  batch: BatchRecord,
  deps: FinaliseDependencies,
  scope: ResultScope,
  tally: Tally,
  statistics: SummaryStatisticsCollector,
  decisions: BatchDecisions | null,
  review: string[],
): AsyncGenerator<string> {
  const { batchRows, reportHistory, logger } = deps;
  const writer = new SummaryCsvWriter(
    batch.excelSummary ? 'excel' : 'standard',
    batch.layout?.passThroughColumns ?? [],
    decisions !== null,
  );
  if (scope.withHeaders) yield writer.header();
  const firsts = new FirstOccurrences(batch, deps, decisions, scope.range?.first ?? 1);
  for await (const page of batchRows.rows(batch.batchId, scope.range)) {
    await decisions?.decidePage(page, reportHistory);
    await firsts.prepare(page);
    let text = '';
    for (const row of page) {
      firsts.remember(row);
      const summary = summaryRowOf(batch, row, firsts, decisions, logger);
      tally.counts[summary.status]++;
      tally.charges[summary.chargeState]++;
      if (isRedrivable(row, 'charge_unknown')) tally.chargeUnknownFailed++;
      decisions?.count(summary.decision ?? null);
      text += writer.row(summary);
      statistics.add(summary);
      const waiting = reviewLineOf(summary, writer.passThroughHeaders);
      if (waiting !== null) review.push(`${JSON.stringify(waiting)}\n`);
    }
    yield text;
  }
}

function summaryRowOf(
  batch: BatchRecord,
  row: RowRecord,
  firsts: FirstOccurrences,
  decisions: BatchDecisions | null,
  logger: Logger,
): SummaryRow & { readonly chargeState: ChargeState } {
  const status = statusOf(row);
  if (status === 'failed' && row.state !== 'failed')
    logger.error('row not settled at finalisation', { batchId: batch.batchId, row: row.row });
  return {
    row: row.row,
    document: row.document ?? row.input,
    documentType: row.documentType,
    bureau: batch.bureau,
    status,
    statusDetail: row.detail ?? (status === 'failed' ? NOT_SETTLED : ''),
    chargeState: chargeStateOf(row, status),
    report: status === 'duplicate' ? firsts.reportOf(row) : row.report,
    decision: decisions?.decisionOf(row) ?? null,
    passThrough: row.passThrough,
  };
}

async function* reportLines(
  batch: BatchRecord,
  { batchRows, reportHistory }: FinaliseDependencies,
  range: RowRange | undefined,
  decisions: BatchDecisions | null,
): AsyncGenerator<string> {
  for await (const page of batchRows.rows(batch.batchId, range)) {
    const withReports = page.filter(
      (row): row is RowRecord & { reportKey: ReportKey } =>
        row.reportKey !== null && (row.state === 'screened' || row.state === 'cached'),
    );
    if (withReports.length === 0) continue;
    const reports = await reportHistory.getReports(withReports.map((row) => row.reportKey));
    let text = '';
    for (const row of withReports) {
      const stored = reports.get(reportKeyId(row.reportKey));
      if (!stored) continue;
      // A decided batch's lines carry their decision and the rules that fired.
      const decision = decisions?.decisionOf(row);
      text += `${JSON.stringify(decision ? { ...stored.report, decision } : stored.report)}\n`;
      decisions?.forget(row.row);
    }
    yield text;
  }
}

/**
 * Writes the lines of `summary.csv`, `reports.jsonl` and, for a re-screen, `changes.csv` for the scope's rows into
 * `targets`, counting as it goes. Memory is bounded by the range: decisions are kept only until its reports are
 * written. `changesKey` is the final `changes.csv`, which the re-screen's alerts point at.
 */
export async function writeRangeFiles(
  batch: BatchRecord,
  targets: ResultTargets,
  scope: ResultScope,
  changesKey: string,
  deps: FinaliseDependencies,
): Promise<RangeResults> {
  const { objects } = deps;
  const tally: Tally = { counts: emptyStatusCounts(), charges: emptyChargeCounts(), chargeUnknownFailed: 0 };
  const statistics = new SummaryStatisticsCollector(scope.statisticsLimits);
  const changeTally = { counts: emptyChangeCounts(), documentsChanged: 0 };
  const decisions = await BatchDecisions.open(batch, deps);
  const contentType = 'text/csv; charset=utf-8';
  const review: string[] = [];
  await objects.writeStream(
    targets.summary,
    contentType,
    summaryLines(batch, deps, scope, tally, statistics, decisions, review),
  );
  // A decided batch's (or part's) rows in review: every part writes its file, empty or not, for the join.
  if (decisions !== null)
    await objects.writeStream(targets.review, 'application/x-ndjson; charset=utf-8', linesOfText(review));
  await objects.writeStream(
    targets.reports,
    'application/x-ndjson; charset=utf-8',
    reportLines(batch, deps, scope.range, decisions),
  );
  let changeAlerts: ChangeAlerts | null = null;
  if (batch.portfolio !== null) {
    changeAlerts = new ChangeAlerts(
      { ...batch, portfolio: batch.portfolio },
      deps.changeAlerts ?? DEFAULT_CHANGE_ALERTS,
      changesKey,
    );
    await objects.writeStream(
      targets.changes,
      contentType,
      changeLines(batch, deps, {
        thresholds: deps.changeThresholds ?? DEFAULT_CHANGE_THRESHOLDS,
        tally: changeTally,
        statistics,
        decisions,
        alerts: changeAlerts,
        range: scope.range,
        withHeader: scope.withHeaders,
      }),
    );
  }
  return {
    ...tally,
    changeTally,
    changeAlerts,
    statistics,
    decisions: decisions?.tally() ?? null,
  };
}

/** A batch's manifest `files`: those written, and `report.html`, written once the manifest it shows is known. */
export function resultFilesOf(
  batch: BatchRecord,
  keys: ResultTargets & { readonly report: string },
): NonNullable<BatchManifest['files']> {
  const written = {
    summary: keys.summary,
    reports: keys.reports,
    ...(batch.policy === null ? {} : { review: keys.review }),
  };
  return batch.portfolio === null
    ? { ...written, report: keys.report }
    : { ...written, changes: keys.changes, report: keys.report };
}

async function* linesOfText(lines: readonly string[]): AsyncGenerator<string> {
  // One text for the whole range: its rows in review are a fraction of its rows.
  yield lines.join('');
}
