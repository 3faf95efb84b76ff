import pLimit from 'p-limit';
import { type BatchManifest, duplicateTargetsKey, resultKeys } from '../../contract/index.ts';
import {
  type BatchRecord,
  type ChargeCounts,
  type ChargeState,
  chargeStateOfRow,
  emptyChargeCounts,
  type ReportKey,
  type RowRecord,
  reportKeyId,
} from '../../domain/batch/index.ts';
import {
  type ChangeCounts,
  ChangesCsvWriter,
  type ChangeThresholds,
  DEFAULT_CHANGE_THRESHOLDS,
  detectChanges,
  emptyChangeCounts,
} from '../../domain/monitoring/index.ts';
import type {
  BatchRecords,
  BatchRows,
  EventPublisher,
  Logger,
  ObjectStore,
  ReportHistory,
} from '../../domain/ports/index.ts';
import {
  emptyStatusCounts,
  passThroughHeaders,
  type ReportColumns,
  SummaryCsvWriter,
  type SummaryRow,
  SummaryStatisticsCollector,
  type SummaryStatus,
} from '../../domain/summary/index.ts';
import { DEFAULT_REPORT_LANGUAGE, type ReportLanguage, renderBatchReport } from '../batch-report/index.ts';

export interface FinaliseDependencies {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
  readonly reportHistory: ReportHistory;
  readonly objects: ObjectStore;
  readonly events: EventPublisher;
  readonly logger: Logger;
  /** What counts as a change in a re-screen's change report. @default DEFAULT_CHANGE_THRESHOLDS */
  readonly changeThresholds?: ChangeThresholds;
  /** Language of `report.html`. @default DEFAULT_REPORT_LANGUAGE (Brazilian Portuguese) */
  readonly reportLanguage?: ReportLanguage;
}

const NOT_SETTLED = 'not settled when the batch was finalised';

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

/** The rows of a batch and the reports they point at: what its result files are written from. */
type StoredRows = Pick<FinaliseDependencies, 'batchRows' | 'reportHistory'>;

/** Rows settled at ingest (invalid, duplicate, cached) never reached the bureau; the others say for themselves. */
const chargeStateOf = (row: RowRecord, status: SummaryStatus): ChargeState =>
  status === 'duplicate' || status === 'invalid_document' ? 'not_charged' : chargeStateOfRow(row);

async function* summaryLines(
  batch: BatchRecord,
  { batchRows }: Pick<StoredRows, 'batchRows'>,
  duplicateTargets: ReadonlySet<number>,
  tally: { readonly counts: Record<SummaryStatus, number>; readonly charges: ChargeCounts },
  statistics: SummaryStatisticsCollector,
  logger: Logger,
): AsyncGenerator<string> {
  const writer = new SummaryCsvWriter(
    batch.excelSummary ? 'excel' : 'standard',
    batch.layout?.passThroughColumns ?? [],
  );
  yield writer.header();
  // Only rows that have duplicates are remembered, and only their few report figures.
  const firstReports = new Map<number, ReportColumns | null>();
  for await (const page of batchRows.rows(batch.batchId)) {
    let text = '';
    for (const row of page) {
      const status = statusOf(row);
      if (status === 'failed' && row.state !== 'failed')
        logger.error('row not settled at finalisation', { batchId: batch.batchId, row: row.row });
      tally.counts[status]++;
      const chargeState = chargeStateOf(row, status);
      tally.charges[chargeState]++;
      if (duplicateTargets.has(row.row)) firstReports.set(row.row, row.report);
      const summary: SummaryRow = {
        row: row.row,
        document: row.document ?? row.input,
        documentType: row.documentType,
        bureau: batch.bureau,
        status,
        statusDetail: row.detail ?? (status === 'failed' ? NOT_SETTLED : ''),
        chargeState,
        report: status === 'duplicate' ? (firstReports.get(row.duplicateOf ?? 0) ?? null) : row.report,
        passThrough: row.passThrough,
      };
      text += writer.row(summary);
      statistics.add(summary);
    }
    yield text;
  }
}

async function* reportLines(
  batch: BatchRecord,
  { batchRows, reportHistory }: StoredRows,
): AsyncGenerator<string> {
  for await (const page of batchRows.rows(batch.batchId)) {
    const keys = page.flatMap((row) =>
      row.reportKey && (row.state === 'screened' || row.state === 'cached') ? [row.reportKey] : [],
    );
    if (keys.length === 0) continue;
    const reports = await reportHistory.getReports(keys);
    let text = '';
    for (const key of keys) {
      const stored = reports.get(reportKeyId(key));
      if (stored) text += `${JSON.stringify(stored.report)}\n`;
    }
    yield text;
  }
}

// Previous-report lookups are one query each; a few at a time keep finalisation quick without a burst.
const PREVIOUS_REPORT_LOOKUPS = 8;

/**
 * `changes.csv` of a re-screen: for every document this batch screened (asked the bureau again), what changed
 * since the report stored before. Rows settled from a still-fresh report were not asked again, so they have
 * nothing new to compare.
 */
async function* changeLines(
  batch: BatchRecord,
  { batchRows, reportHistory }: StoredRows,
  thresholds: ChangeThresholds,
  tally: { counts: ChangeCounts; documentsChanged: number },
  statistics: SummaryStatisticsCollector,
): AsyncGenerator<string> {
  const writer = new ChangesCsvWriter(
    batch.excelSummary ? 'excel' : 'standard',
    batch.layout?.passThroughColumns ?? [],
  );
  yield writer.header();
  const limit = pLimit(PREVIOUS_REPORT_LOOKUPS);
  for await (const page of batchRows.rows(batch.batchId)) {
    const screened = page.filter(
      (row): row is RowRecord & { reportKey: ReportKey; document: string } =>
        row.state === 'screened' && row.reportKey !== null && row.document !== null,
    );
    if (screened.length === 0) continue;
    const [current, previous] = await Promise.all([
      reportHistory.getReports(screened.map((row) => row.reportKey)),
      Promise.all(screened.map((row) => limit(() => reportHistory.previousReport(row.reportKey)))),
    ]);
    let text = '';
    screened.forEach((row, index) => {
      const report = current.get(reportKeyId(row.reportKey));
      if (report === undefined) return;
      const changes = detectChanges(previous[index]?.report ?? null, report.report, thresholds);
      if (changes.length > 0) tally.documentsChanged++;
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

/**
 * Writes a finished batch's results: `summary.csv` (one line per input row, in input order), `reports.jsonl` (one
 * normalised report per screened or cached document), `changes.csv` for a re-screen, `report.html` (the page
 * people read, gathered from the same rows as the summary) and, last, `manifest.json`; then marks the batch complete and
 * publishes `BatchCompleted`. Runs once per batch (the finalisation claim); safe to run again after a crash.
 */
export async function finaliseBatch(
  batchId: string,
  deps: FinaliseDependencies,
): Promise<BatchManifest | null> {
  const { batchRecords, objects, logger } = deps;
  const batch = await batchRecords.getBatch(batchId);
  if (batch === null || batch.status === 'completed' || batch.status === 'failed') return null;
  if (batch.status !== 'finalising') {
    logger.warn('finalise message for a batch that is still running; ignored', {
      batchId,
      status: batch.status,
    });
    return null;
  }
  const keys = resultKeys(batchId);
  const results = await writeResultFiles(batch, keys, deps);
  const manifest = manifestOf(batch, results);
  const reportKey = manifest.files?.report;
  if (reportKey !== undefined) await writeReportPage(reportKey, batch, manifest, results, deps);
  await objects.putJson(keys.manifest, manifest);
  // A finalise message delivered twice may run twice: both write the same files, one announces the batch.
  if (!(await batchRecords.completeBatch(batchId, keys.manifest))) return null;
  await announceCompletion(batch, manifest, keys, deps);
  logger.info('batch completed', { batchId, status: manifest.status, counts: manifest.counts });
  return manifest;
}

/** What writing a batch's result files found: its rows per status and per charge, its changes, its figures. */
interface BatchResults {
  readonly files: BatchManifest['files'];
  readonly counts: Record<SummaryStatus, number>;
  readonly charges: ChargeCounts;
  readonly changeTally: { readonly counts: ChangeCounts; readonly documentsChanged: number };
  readonly statistics: SummaryStatisticsCollector;
}

type ResultKeys = ReturnType<typeof resultKeys>;

/**
 * Writes `summary.csv`, `reports.jsonl` and, for a re-screen, `changes.csv`, counting as it goes. A refused file
 * has none (files null); `report.html` is listed, and written once the manifest it shows is known.
 */
async function writeResultFiles(
  batch: BatchRecord,
  keys: ResultKeys,
  deps: FinaliseDependencies,
): Promise<BatchResults> {
  const { objects, logger } = deps;
  const results = {
    files: null as BatchManifest['files'],
    counts: emptyStatusCounts(),
    charges: emptyChargeCounts(),
    changeTally: { counts: emptyChangeCounts(), documentsChanged: 0 },
    statistics: new SummaryStatisticsCollector(),
  };
  if (batch.failure !== null) return results;
  const { counts, charges, statistics } = results;
  const targets: number[] = await readJson(objects, duplicateTargetsKey(batch.batchId));
  const contentType = 'text/csv; charset=utf-8';
  await objects.writeStream(
    keys.summary,
    contentType,
    summaryLines(batch, deps, new Set(targets), { counts, charges }, statistics, logger),
  );
  await objects.writeStream(keys.reports, 'application/x-ndjson; charset=utf-8', reportLines(batch, deps));
  let files: NonNullable<BatchManifest['files']> = { summary: keys.summary, reports: keys.reports };
  if (batch.portfolio !== null) {
    const thresholds = deps.changeThresholds ?? DEFAULT_CHANGE_THRESHOLDS;
    await objects.writeStream(
      keys.changes,
      contentType,
      changeLines(batch, deps, thresholds, results.changeTally, statistics),
    );
    files = { ...files, changes: keys.changes };
  }
  return { ...results, files: { ...files, report: keys.report } };
}

/** The batch's final status: why it stopped, when something stopped it. */
function finalStatusOf(batch: BatchRecord, counts: Record<SummaryStatus, number>): BatchManifest['status'] {
  if (batch.failure) return 'file_rejected';
  if (batch.tokenState === 'rejected') return 'token_rejected';
  if (batch.cancelRequested) return 'cancelled';
  if (batch.approval === 'rejected') return 'rejected';
  return counts.not_queried > 0 ? 'budget_exhausted' : 'completed';
}

function manifestOf(batch: BatchRecord, results: BatchResults): BatchManifest {
  const { counts, files } = results;
  return {
    manifestVersion: 1,
    batchId: batch.batchId,
    status: finalStatusOf(batch, counts),
    revision: batch.revision,
    quote: batch.quote,
    bureau: batch.bureau,
    source: { bucket: batch.sourceBucket, key: batch.sourceKey, sha256: batch.sourceSha256 },
    createdAt: batch.createdAt,
    completedAt: new Date().toISOString(),
    counts: { rows: Object.values(counts).reduce((sum, count) => sum + count, 0), ...counts },
    charges: results.charges,
    files,
    dialect: batch.excelSummary ? 'excel' : 'standard',
    failure: batch.failure,
    portfolio: batch.portfolio,
    changes: files?.changes === undefined ? null : results.changeTally,
  };
}

/** `report.html`: the page people read, from the manifest and the figures gathered with the summary. */
async function writeReportPage(
  key: string,
  batch: BatchRecord,
  manifest: BatchManifest,
  results: BatchResults,
  deps: FinaliseDependencies,
): Promise<void> {
  const page = await renderBatchReport({
    manifest,
    statistics: results.statistics.result(),
    passThroughHeaders: passThroughHeaders(batch.layout?.passThroughColumns ?? []),
    language: deps.reportLanguage ?? DEFAULT_REPORT_LANGUAGE,
    generatedAt: manifest.completedAt,
  });
  await deps.objects.writeStream(key, 'text/html; charset=utf-8', once(page));
}

/** `BatchCompleted`, and `PortfolioChanged` for a re-screen. */
async function announceCompletion(
  batch: BatchRecord,
  manifest: BatchManifest,
  keys: ResultKeys,
  deps: FinaliseDependencies,
): Promise<void> {
  const { batchId } = batch;
  await deps.events.batchCompleted({
    batchId,
    revision: manifest.revision,
    status: manifest.status,
    counts: manifest.counts,
    keys: { summary: keys.summary, reports: keys.reports, manifest: keys.manifest },
  });
  if (batch.portfolio !== null && manifest.changes !== null) {
    await deps.events.portfolioChanged({
      batchId,
      portfolio: batch.portfolio,
      ...manifest.changes,
      keys: { changes: keys.changes, manifest: keys.manifest },
    });
  }
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

async function readJson<T>(objects: ObjectStore, key: string): Promise<T> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of objects.read(key)) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}
