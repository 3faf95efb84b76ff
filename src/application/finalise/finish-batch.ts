import type { BatchManifest, DecisionTally } from '../../contract/index.ts';
import { resultKeys } from '../../contract/index.ts';
import { type BatchRecord, type ChargeCounts, emptyChargeCounts } from '../../domain/batch/index.ts';
import { type ChangeCounts, emptyChangeCounts } from '../../domain/monitoring/index.ts';
import type { DocumentChange, DocumentChangedEvent } from '../../domain/ports/index.ts';
import {
  emptyStatusCounts,
  passThroughHeaders,
  SummaryStatisticsCollector,
  type SummaryStatus,
} from '../../domain/summary/index.ts';
import { DEFAULT_REPORT_LANGUAGE, renderBatchReport } from '../batch-report/index.ts';
import type { FinaliseDependencies } from './finalise-dependencies.ts';

/** How every finalisation ends: the report page, the manifest, the completion and its announcements. */

/** The batch, when it is finalising; null (with a warning for a batch still running) when it is not. */
export async function finalisingBatch(
  batchId: string,
  { batchRecords, logger }: Pick<FinaliseDependencies, 'batchRecords' | 'logger'>,
): Promise<BatchRecord | null> {
  const batch = await batchRecords.getBatch(batchId);
  if (batch === null || batch.status === 'completed' || batch.status === 'failed') return null;
  if (batch.status !== 'finalising') {
    logger.warn('finalise message for a batch that is still running; ignored', {
      batchId,
      status: batch.status,
    });
    return null;
  }
  return batch;
}

/** What a batch's result files hold, counted over all its rows (at once, or part by part and joined). */
export interface BatchTotals {
  readonly counts: Record<SummaryStatus, number>;
  readonly charges: ChargeCounts;
  /** Failed rows whose call may have been charged (see {@link BatchManifest.chargeUnknownFailed}). */
  readonly chargeUnknownFailed: number;
  readonly changeTally: { readonly counts: ChangeCounts; readonly documentsChanged: number };
  readonly statistics: SummaryStatisticsCollector;
  /** What the batch's policy decided; null for a batch without one. */
  readonly decisions: DecisionTally | null;
  /** A re-screen's most severe changes, the worst first. */
  readonly worstChanges: readonly DocumentChange[];
}

/** A refused file's totals: it has no rows to count. */
export const emptyTotals = (): BatchTotals => ({
  counts: emptyStatusCounts(),
  charges: emptyChargeCounts(),
  chargeUnknownFailed: 0,
  changeTally: { counts: emptyChangeCounts(), documentsChanged: 0 },
  statistics: new SummaryStatisticsCollector(),
  decisions: null,
  worstChanges: [],
});

/**
 * Ends a batch whose result files are written: `report.html`, then `manifest.json`, then the batch is completed and,
 * by the one caller that completed it, announced (with `documents`, a re-screen's `DocumentChanged` events, in
 * groups). Null when another run completed it first.
 */
export async function finishBatch(
  batch: BatchRecord,
  totals: BatchTotals,
  files: BatchManifest['files'],
  documents: AsyncIterable<readonly DocumentChangedEvent[]>,
  deps: FinaliseDependencies,
): Promise<BatchManifest | null> {
  const { batchId } = batch;
  const keys = resultKeys(batchId);
  const manifest = manifestOf(batch, totals, files);
  if (files?.report !== undefined) await writeReportPage(files.report, batch, manifest, totals, deps);
  await deps.objects.putJson(keys.manifest, manifest);
  // A finalise message delivered twice may run twice: both write the same files, one announces the batch.
  if (!(await deps.batchRecords.completeBatch(batchId, keys.manifest))) return null;
  await announceCompletion(batch, manifest, totals.worstChanges, documents, deps);
  deps.logger.info('batch completed', { batchId, status: manifest.status, counts: manifest.counts });
  return manifest;
}

/** The batch's final status: why it stopped, when something stopped it. */
function finalStatusOf(batch: BatchRecord, counts: Record<SummaryStatus, number>): BatchManifest['status'] {
  if (batch.failure) return 'file_rejected';
  if (batch.tokenState === 'rejected') return 'token_rejected';
  if (batch.cancelRequested) return 'cancelled';
  if (batch.approval === 'rejected') return 'rejected';
  return counts.not_queried > 0 ? 'budget_exhausted' : 'completed';
}

function manifestOf(batch: BatchRecord, results: BatchTotals, files: BatchManifest['files']): BatchManifest {
  const { counts } = results;
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
  results: BatchTotals,
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
  worstChanges: readonly DocumentChange[],
  documents: AsyncIterable<readonly DocumentChangedEvent[]>,
  deps: FinaliseDependencies,
): Promise<void> {
  const { batchId } = batch;
  const keys = resultKeys(batchId);
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
      worstChanges,
      keys: { changes: keys.changes, manifest: keys.manifest },
    });
    for await (const group of documents) if (group.length > 0) await deps.events.documentsChanged(group);
  }
}

/** One value as a stream of one. */
export async function* once<T>(value: T): AsyncGenerator<T> {
  yield value;
}
