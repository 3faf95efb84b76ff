/** `changes.csv` of a re-screen, line by line, and what its alerts need gathered on the way. */

import pLimit from 'p-limit';
import {
  type BatchRecord,
  type ReportKey,
  type RowRange,
  type RowRecord,
  reportKeyId,
} from '../../domain/batch/index.ts';
import type { DocumentType } from '../../domain/documents/index.ts';
import {
  type ChangeCounts,
  ChangesCsvWriter,
  type ChangeThresholds,
  decisionChange,
  detectChanges,
  type ReportChange,
} from '../../domain/monitoring/index.ts';
import type { BatchRows, ReportHistory } from '../../domain/ports/index.ts';
import type { NormalisedReport } from '../../domain/report/index.ts';
import type { SummaryStatisticsCollector } from '../../domain/summary/index.ts';
import type { BatchDecisions } from './batch-decisions.ts';
import type { ChangeAlerts } from './change-alerts.ts';

// Previous-report lookups are one query each; a few at a time keep finalisation quick without a burst.
const PREVIOUS_REPORT_LOOKUPS = 8;

/** What the change lines count and gather on the way, and which of the batch's rows they cover. */
export interface ChangeLinesOptions {
  readonly thresholds: ChangeThresholds;
  readonly tally: { counts: ChangeCounts; documentsChanged: number };
  readonly statistics: SummaryStatisticsCollector;
  readonly decisions: BatchDecisions | null;
  readonly alerts: ChangeAlerts;
  /** The rows; every row of the batch when absent. */
  readonly range?: RowRange;
  /** Whether the lines start the file (its header line). */
  readonly withHeader: boolean;
}

/**
 * `changes.csv` of a re-screen: for every document this batch screened (asked the bureau again), what changed
 * since the report stored before. Rows settled from a still-fresh report were not asked again, so they have
 * nothing new to compare.
 */
export async function* changeLines(
  batch: BatchRecord,
  { batchRows, reportHistory }: { readonly batchRows: BatchRows; readonly reportHistory: ReportHistory },
  { thresholds, tally, statistics, decisions, alerts, range, withHeader }: ChangeLinesOptions,
): AsyncGenerator<string> {
  const writer = new ChangesCsvWriter(
    batch.excelSummary ? 'excel' : 'standard',
    batch.layout?.passThroughColumns ?? [],
  );
  if (withHeader) yield writer.header();
  const limit = pLimit(PREVIOUS_REPORT_LOOKUPS);
  for await (const page of batchRows.rows(batch.batchId, range)) {
    const screened = page.filter(
      (row): row is RowRecord & { reportKey: ReportKey; document: string; documentType: DocumentType } =>
        // A document and its type are set together, from one parse at ingest.
        row.state === 'screened' &&
        row.reportKey !== null &&
        row.document !== null &&
        row.documentType !== null,
    );
    if (screened.length === 0) continue;
    const [current, previous] = await Promise.all([
      reportHistory.getReports(screened.map((row) => row.reportKey)),
      Promise.all(screened.map((row) => limit(() => reportHistory.previousReport(row.reportKey)))),
    ]);
    // A decided batch's decision changes come first: the previous report decided again by this policy.
    const decisionChanges = await Promise.all(
      screened.map((row, index) => decisionChangeOf(row, previous[index]?.report ?? null, decisions)),
    );
    let text = '';
    screened.forEach((row, index) => {
      const report = current.get(reportKeyId(row.reportKey));
      if (report === undefined) return;
      const decisionMove = decisionChanges[index];
      const changes = [
        ...(decisionMove ? [decisionMove] : []),
        ...detectChanges(previous[index]?.report ?? null, report.report, thresholds),
      ];
      if (changes.length > 0) tally.documentsChanged++;
      alerts.add(row, changes);
      for (const change of changes) {
        tally.counts[change.kind]++;
        const line = { row: row.row, document: row.document, change, passThrough: row.passThrough };
        statistics.addChange(line);
        text += writer.row(line);
      }
    });
    yield text;
  }
}

/** How a row's decision moved since its previous report; null without a policy, a previous report or a move. */
async function decisionChangeOf(
  row: RowRecord,
  previous: NormalisedReport | null,
  decisions: BatchDecisions | null,
): Promise<ReportChange | null> {
  const current = decisions?.decisionOf(row);
  if (!decisions || !current || previous === null) return null;
  const before = await decisions.decideReport(previous, row);
  return decisionChange(before.decision, current.decision);
}
