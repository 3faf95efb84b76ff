/**
 * Operators' control of batches, driven by the command line (`batches`, `status`, `cancel`, `redrive`) against
 * the local stack or a deployed one: no Lambda runs this, it uses the same ports and store as the functions.
 */
import pLimit from 'p-limit';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';
import { type BatchRecord, CANCELLED_DETAIL, type WorkMessage } from '../core/batch/index.ts';
import type { BatchStore, Logger, WorkQueue } from '../core/ports/index.ts';

export interface BatchControlDependencies {
  readonly store: BatchStore;
  readonly queue: WorkQueue;
  readonly logger: Logger;
}

// Row updates are one transaction each; a few at a time keep DynamoDB (and DynamoDB Local) comfortable.
const PARALLEL_UPDATES = 8;
const SEND_BATCH = 100;

export type CancelOutcome =
  | { readonly outcome: 'cancelled'; readonly batchId: string; readonly cancelledRows: number }
  | { readonly outcome: 'not_found' | 'still_ingesting' | 'already_finished'; readonly batchId: string };

/**
 * Cancels a running batch: every row still queued is settled `cancelled` without a bureau call, rows a worker
 * already holds finish (their call may be under way and paid), workers settle anything they claim afterwards as
 * cancelled too, and the batch finalises as usual, with manifest status `cancelled`. Nothing is lost: every row
 * is in the summary with its final status.
 */
export async function cancelBatch(batchId: string, deps: BatchControlDependencies): Promise<CancelOutcome> {
  const { store, logger } = deps;
  const batch = await store.getBatch(batchId);
  if (batch === null) return { outcome: 'not_found', batchId };
  // While ingest is still writing rows, some would escape the cancellation: it waits for ingest to finish.
  if (batch.status === 'ingesting') return { outcome: 'still_ingesting', batchId };
  if (batch.status !== 'running') return { outcome: 'already_finished', batchId };
  await store.markCancelRequested(batchId);
  const limit = pLimit(PARALLEL_UPDATES);
  let cancelledRows = 0;
  for await (const page of store.rows(batchId)) {
    const queued = page.filter((row) => row.state === 'queued');
    const results = await Promise.all(
      queued.map((row) => limit(() => store.cancelQueuedRow(batchId, row.row, CANCELLED_DETAIL))),
    );
    cancelledRows += results.filter(Boolean).length;
  }
  await finaliseIfLast(batchId, deps);
  logger.info('batch cancelled', { batchId, cancelledRows });
  return { outcome: 'cancelled', batchId, cancelledRows };
}

export type RedriveOutcome =
  | {
      readonly outcome: 'redriven';
      readonly batchId: string;
      readonly requeued: number;
      readonly revision: number;
    }
  | { readonly outcome: 'not_found' | 'not_completed' | 'nothing_to_redrive'; readonly batchId: string };

/**
 * Sends a completed batch's failed rows back to the queue with fresh attempts (a fixed token, an upstream that
 * recovered). The batch runs again under the next revision; when the last row settles, the finaliser rewrites
 * the summary and the other results and writes the manifest with that revision, then announces it again. Rows
 * already screened are not touched, so nothing is charged twice. Safe to repeat after an interruption: rows left
 * queued by an interrupted redrive get their messages again (a duplicate message is harmless).
 */
export async function redriveBatch(batchId: string, deps: BatchControlDependencies): Promise<RedriveOutcome> {
  const { store, queue, logger } = deps;
  const batch = await store.getBatch(batchId);
  if (batch === null) return { outcome: 'not_found', batchId };
  if (batch.failure !== null) return { outcome: 'not_completed', batchId };
  // The revision this redrive produces: the next one, or the current one when resuming an interrupted redrive.
  let revision = batch.revision;
  if (batch.status === 'completed') {
    if (batch.failed === 0) return { outcome: 'nothing_to_redrive', batchId };
    if (!(await store.reopenForRedrive(batchId))) return { outcome: 'not_completed', batchId };
    revision = batch.revision + 1;
  } else if (!(batch.status === 'running' && batch.revision > 1)) {
    return { outcome: 'not_completed', batchId };
  }
  const limit = pLimit(PARALLEL_UPDATES);
  let requeued = 0;
  for await (const page of store.rows(batchId)) {
    const candidates = page.filter(
      (row) => (row.state === 'failed' || row.state === 'queued') && row.document !== null,
    );
    const back = await Promise.all(
      candidates.map((row) =>
        limit(async () => (row.state === 'queued' ? true : store.requeueFailedRow(batchId, row.row))),
      ),
    );
    const messages: WorkMessage[] = candidates
      .filter((_, index) => back[index])
      .map((row) => ({
        version: 1,
        batchId,
        row: row.row,
        document: row.document as string,
        bureau: batch.bureau,
      }));
    for (let start = 0; start < messages.length; start += SEND_BATCH)
      await queue.sendWork(messages.slice(start, start + SEND_BATCH));
    requeued += messages.length;
  }
  // Nothing could be sent back (rows without a document are failed for good): finish the revision at once.
  await finaliseIfLast(batchId, deps);
  logger.info('batch redriven', { batchId, requeued, revision });
  return { outcome: 'redriven', batchId, requeued, revision };
}

/** Where a batch stands, for `status` and `batches`: the batch record without ingest's bookkeeping. */
export type BatchStatusView = Omit<
  BatchRecord,
  'ingestCheckpoint' | 'ingestCached' | 'layout' | 'excelSummary'
>;

export function statusView(batch: BatchRecord): BatchStatusView {
  const {
    ingestCheckpoint: _checkpoint,
    ingestCached: _cached,
    layout: _layout,
    excelSummary: _excel,
    ...view
  } = batch;
  return view;
}
