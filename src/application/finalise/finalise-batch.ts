import {
  type BatchManifest,
  DEFAULT_SETTINGS,
  type DecisionTally,
  duplicateTargetsKey,
  resultKeys,
} from '../../contract/index.ts';
import {
  type BatchRecord,
  type ChargeCounts,
  type ChargeState,
  chargeStateOfRow,
  emptyChargeCounts,
  isRedrivable,
  type ReportKey,
  type RowRecord,
  reportKeyId,
} from '../../domain/batch/index.ts';
import {
  type ChangeCounts,
  type ChangeThresholds,
  DEFAULT_CHANGE_THRESHOLDS,
  emptyChangeCounts,
} from '../../domain/monitoring/index.ts';
import type {
  AuditLog,
  BatchRecords,
  BatchRows,
  CreditPolicyLoader,
  DocumentKeys,
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
import { BatchDecisions } from './batch-decisions.ts';
import { type ChangeAlertSettings, ChangeAlerts } from './change-alerts.ts';
import { changeLines } from './change-lines.ts';

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
  /** Compiles a batch's credit policy; a batch with a policy and no loader decides every row `review`. */
  readonly policyLoader?: CreditPolicyLoader;
  /**
   * What a re-screen's alerts carry: the change kinds that send a `DocumentChanged`, and how many changes
   * `PortfolioChanged` lists. @default DEFAULT_CHANGE_ALERTS
   */
  readonly changeAlerts?: ChangeAlertSettings;
  /** Where the decisions the finaliser makes itself are recorded (the workers record theirs). */
  readonly audit?: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
}

const NOT_SETTLED = 'not settled when the batch was finalised';

/** The alerts of a deployment that configured none (the settings' defaults). */
const DEFAULT_CHANGE_ALERTS: ChangeAlertSettings = {
  changeKinds: DEFAULT_SETTINGS.alertChangeKinds,
  worstChanges: DEFAULT_SETTINGS.alertWorstChanges,
};

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
  { batchRows, reportHistory }: StoredRows,
  duplicateTargets: ReadonlySet<number>,
  tally: {
    readonly counts: Record<SummaryStatus, number>;
    readonly charges: ChargeCounts;
    chargeUnknownFailed: number;
  },
  statistics: SummaryStatisticsCollector,
  logger: Logger,
  decisions: BatchDecisions | null,
): AsyncGenerator<string> {
  const writer = new SummaryCsvWriter(
    batch.excelSummary ? 'excel' : 'standard',
    batch.layout?.passThroughColumns ?? [],
    decisions !== null,
  );
  yield writer.header();
  // Only rows that have duplicates are remembered, and only their few report figures.
  const firstReports = new Map<number, ReportColumns | null>();
  for await (const page of batchRows.rows(batch.batchId)) {
    await decisions?.decidePage(page, reportHistory);
    let text = '';
    for (const row of page) {
      const status = statusOf(row);
      if (status === 'failed' && row.state !== 'failed')
        logger.error('row not settled at finalisation', { batchId: batch.batchId, row: row.row });
      tally.counts[status]++;
      const chargeState = chargeStateOf(row, status);
      tally.charges[chargeState]++;
      if (isRedrivable(row, 'charge_unknown')) tally.chargeUnknownFailed++;
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
        decision: decisions?.decisionOf(row) ?? null,
        passThrough: row.passThrough,
      };
      decisions?.count(summary.decision ?? null);
      text += writer.row(summary);
      statistics.add(summary);
    }
    yield text;
  }
}

async function* reportLines(
  batch: BatchRecord,
  { batchRows, reportHistory }: StoredRows,
  decisions: BatchDecisions | null,
): AsyncGenerator<string> {
  for await (const page of batchRows.rows(batch.batchId)) {
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
  await announceCompletion(batch, manifest, keys, results.changeAlerts, deps);
  logger.info('batch completed', { batchId, status: manifest.status, counts: manifest.counts });
  return manifest;
}

/** What writing a batch's result files found: its rows per status and per charge, its changes, its figures. */
interface BatchResults {
  readonly files: BatchManifest['files'];
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
    chargeUnknownFailed: 0,
    changeTally: { counts: emptyChangeCounts(), documentsChanged: 0 },
    statistics: new SummaryStatisticsCollector(),
    decisions: null,
    changeAlerts: null,
  };
  if (batch.failure !== null) return results;
  const { counts, charges, statistics } = results;
  const tally = { counts, charges, chargeUnknownFailed: 0 };
  const targets = await duplicateTargetsOf(batch, deps);
  const decisions = await BatchDecisions.open(batch, deps);
  const contentType = 'text/csv; charset=utf-8';
  await objects.writeStream(
    keys.summary,
    contentType,
    summaryLines(batch, deps, targets, tally, statistics, logger, decisions),
  );
  await objects.writeStream(
    keys.reports,
    'application/x-ndjson; charset=utf-8',
    reportLines(batch, deps, decisions),
  );
  let files: NonNullable<BatchManifest['files']> = { summary: keys.summary, reports: keys.reports };
  let changeAlerts: ChangeAlerts | null = null;
  if (batch.portfolio !== null) {
    const thresholds = deps.changeThresholds ?? DEFAULT_CHANGE_THRESHOLDS;
    const alerts = new ChangeAlerts(
      { ...batch, portfolio: batch.portfolio },
      deps.changeAlerts ?? DEFAULT_CHANGE_ALERTS,
      keys.changes,
    );
    await objects.writeStream(
      keys.changes,
      contentType,
      changeLines(batch, deps, thresholds, results.changeTally, statistics, decisions, alerts),
    );
    files = { ...files, changes: keys.changes };
    changeAlerts = alerts;
  }
  return {
    ...results,
    chargeUnknownFailed: tally.chargeUnknownFailed,
    files: { ...files, report: keys.report },
    decisions: decisions?.tally() ?? null,
    changeAlerts,
  };
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
    source: {
      bucket: batch.sourceBucket,
      key: batch.sourceKey,
      sha256: batch.sourceSha256,
      name: batch.sourceName ?? null,
    },
    createdAt: batch.createdAt,
    completedAt: new Date().toISOString(),
    counts: { rows: Object.values(counts).reduce((sum, count) => sum + count, 0), ...counts },
    charges: results.charges,
    chargeUnknownFailed: results.chargeUnknownFailed,
    files,
    dialect: batch.excelSummary ? 'excel' : 'standard',
    failure: batch.failure,
    portfolio: batch.portfolio,
    changes: files?.changes === undefined ? null : results.changeTally,
    policy: batch.policy === null ? null : { name: batch.policy.name, sha256: batch.policy.sha256 },
    decisions: results.decisions,
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

/**
 * `BatchCompleted`; for a re-screen, `PortfolioChanged` with its worst changes, then one `DocumentChanged` per
 * document with a change of a selected kind.
 */
async function announceCompletion(
  batch: BatchRecord,
  manifest: BatchManifest,
  keys: ResultKeys,
  changeAlerts: ChangeAlerts | null,
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
      revision: manifest.revision,
      portfolio: batch.portfolio,
      ...manifest.changes,
      worstChanges: changeAlerts?.worstChanges ?? [],
      keys: { changes: keys.changes, manifest: keys.manifest },
    });
    const documents = changeAlerts?.documentEvents ?? [];
    if (documents.length > 0) await deps.events.documentsChanged(documents);
  }
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/**
 * The rows that have duplicates, as ingest listed them; read from the rows themselves when the list is missing (a
 * batch ingested before the list was kept, or whose object was lost), so such a batch can still be finalised.
 */
async function duplicateTargetsOf(
  batch: BatchRecord,
  deps: Pick<FinaliseDependencies, 'objects' | 'batchRows'>,
): Promise<Set<number>> {
  const text = await deps.objects.readTextIfExists(duplicateTargetsKey(batch.batchId));
  if (text !== null) return new Set(JSON.parse(text) as number[]);
  const targets = new Set<number>();
  for await (const page of deps.batchRows.rows(batch.batchId))
    for (const row of page)
      if (row.state === 'duplicate' && row.duplicateOf !== null) targets.add(row.duplicateOf);
  return targets;
}
