/**
 * Operators' control of batches, driven by the command line (`batches`, `status`, `cancel`, `redrive`, `approve`,
 * `reject`) against
 * the local services or a deployed one: no Lambda runs this, it uses the same ports and store as the functions.
 */
import pLimit from 'p-limit';
import {
  type ApprovalDecision,
  type BatchRecord,
  CANCELLED_DETAIL,
  isRedrivable,
  laneOfBatch,
  NOT_APPROVED_DETAIL,
  type RedriveSelection,
  type WorkMessage,
} from '../../domain/batch/index.ts';
import type { BatchRecords, BatchRows, Logger, WorkQueue } from '../../domain/ports/index.ts';
import { finaliseIfLast } from '../completion/finalise-if-last.ts';

export interface BatchControlDependencies {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
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
  const { batchRecords, logger } = deps;
  const batch = await batchRecords.getBatch(batchId);
  if (batch === null) return { outcome: 'not_found', batchId };
  // While ingest is still writing rows, some would escape the cancellation: it waits for ingest to finish.
  if (batch.status === 'ingesting') return { outcome: 'still_ingesting', batchId };
  if (batch.status !== 'running') return { outcome: 'already_finished', batchId };
  await batchRecords.markCancelRequested(batchId);
  const cancelledRows = await withholdQueuedRows(
    batchId,
    { outcome: 'cancelled', reason: CANCELLED_DETAIL },
    deps,
  );
  logger.info('batch cancelled', { batchId, cancelledRows });
  return { outcome: 'cancelled', batchId, cancelledRows };
}

/** Settles every row still queued without a bureau call, then finalises the batch if that was all it had left. */
async function withholdQueuedRows(
  batchId: string,
  withheld: { readonly outcome: 'cancelled' | 'not_queried'; readonly reason: string },
  deps: BatchControlDependencies,
): Promise<number> {
  const limit = pLimit(PARALLEL_UPDATES);
  let settled = 0;
  let unsettled = 0;
  for await (const page of deps.batchRows.rows(batchId)) {
    const queued = page.filter((row) => row.state === 'queued');
    const results = await Promise.all(
      queued.map((row) =>
        limit(() =>
          deps.batchRows.withholdQueuedRow(batchId, row.row, withheld).catch((error: unknown) => {
            deps.logger.warn('row not withheld now', { batchId, row: row.row, error: String(error) });
            unsettled++;
            return false;
          }),
        ),
      ),
    );
    settled += results.filter(Boolean).length;
  }
  // A cancelled row left queued is not lost: its message is still queued, and the worker that takes it settles it
  // cancelled. A batch not approved has no messages: its rows must all be withheld here (running reject again does).
  if (unsettled > 0 && withheld.outcome === 'not_queried')
    throw new Error(`${unsettled} rows of batch ${batchId} could not be settled now; reject it again`);
  await finaliseIfLast(batchId, deps);
  return settled;
}

export type ApprovalOutcome =
  | { readonly outcome: 'approved' | 'rejected'; readonly batchId: string; readonly rows: number }
  /** Decided before: what an interrupted decision left undone is done again (queued rows sent, or withheld). */
  | {
      readonly outcome: 'already_approved' | 'already_rejected';
      readonly batchId: string;
      readonly rows: number;
    }
  | { readonly outcome: 'not_found'; readonly batchId: string }
  | {
      readonly outcome: 'not_awaiting_approval';
      readonly batchId: string;
      readonly status: BatchRecord['status'];
      /** What was decided about it before, if it ever waited: why it waits no more. */
      readonly approval: ApprovalDecision | null;
    };

/**
 * A person's decision on a batch waiting for approval. Approved: the dispatcher is asked to send its queued rows to
 * the workers (one small message, whatever the batch's size: the messages are sent inside the pipeline, in parts)
 * and it runs as any batch; `rows` is then what its quote buys. Rejected: every queued row settles `not_queried` without a call, and the batch completes with
 * nothing charged. A decision already taken is reported as such, after finishing whatever an interrupted run of
 * it left (messages sent again are harmless: a row is claimed once).
 */
export async function decideBatchApproval(
  batchId: string,
  decision: ApprovalDecision,
  deps: BatchControlDependencies,
  by: string | null = null,
): Promise<ApprovalOutcome> {
  const batch = await deps.batchRecords.getBatch(batchId);
  if (batch === null) return { outcome: 'not_found', batchId };
  const repeated = batch.status === 'running' && batch.approval === decision;
  if (
    !repeated &&
    !(batch.status === 'awaiting_approval' && (await deps.batchRecords.decideApproval(batchId, decision, by)))
  )
    return { outcome: 'not_awaiting_approval', batchId, status: batch.status, approval: batch.approval };
  const rows =
    decision === 'approved'
      ? await askForDispatch(batch, deps.queue)
      : await withholdQueuedRows(batchId, { outcome: 'not_queried', reason: NOT_APPROVED_DETAIL }, deps);
  if (decision === 'approved') await finaliseIfLast(batchId, deps);
  deps.logger.info(`batch ${decision}`, { batchId, rows });
  return { outcome: repeated ? `already_${decision}` : decision, batchId, rows };
}

/** Asks the dispatcher for a batch's queued rows; what its quote buys (or, before quotes, its documents to screen). */
async function askForDispatch(batch: BatchRecord, queue: WorkQueue): Promise<number> {
  await queue.sendDispatch([{ version: 1, batchId: batch.batchId }]);
  return batch.quote?.to_buy ?? Math.max(0, (batch.toScreen ?? 0) - batch.ingestCached);
}

export type RedriveOutcome =
  | {
      readonly outcome: 'redriven';
      readonly batchId: string;
      readonly requeued: number;
      readonly revision: number;
      /** Failed rows of the other selection, left as they are. */
      readonly left: number;
    }
  | {
      readonly outcome: 'nothing_to_redrive';
      readonly batchId: string;
      /** Failed rows of the other selection, which another redrive would send back. */
      readonly left: number;
    }
  | { readonly outcome: 'not_found' | 'not_completed'; readonly batchId: string };

/** Failed rows a redrive would send back, by selection (see {@link RedriveSelection}). */
export type RedrivableRows = Readonly<Record<RedriveSelection, number>>;

const otherSelection = (selection: RedriveSelection): RedriveSelection =>
  selection === 'not_charged' ? 'charge_unknown' : 'not_charged';

/** Counts a batch's failed rows a redrive would send back, by selection: what a quote for a redrive is made of. */
export async function redrivableRows(
  batchId: string,
  { batchRows }: Pick<BatchControlDependencies, 'batchRows'>,
): Promise<RedrivableRows> {
  const counts = { not_charged: 0, charge_unknown: 0 };
  for await (const page of batchRows.rows(batchId))
    for (const row of page)
      for (const selection of ['not_charged', 'charge_unknown'] as const)
        if (isRedrivable(row, selection)) counts[selection]++;
  return counts;
}

/**
 * Sends a completed batch's failed rows of `selection` back to the queue with fresh attempts (a fixed token, an
 * upstream that recovered). By default only rows no call of which may have been charged; rows whose call may have
 * been charged only when asked for (`charge_unknown`), each then bought once more. The batch runs again under the
 * next revision; when the last row settles, the finaliser rewrites the summary and the other results and writes
 * the manifest with that revision, then announces it again. Rows already screened are not touched. While it sends
 * rows back the batch is marked `requeuing` and cannot be finalised (its counts still fall as rows leave
 * `failed`), whoever settles or sweeps meanwhile. Safe to repeat after an interruption, and needed then, since the
 * mark stays: rows left queued by an interrupted redrive get their messages again (a duplicate message is
 * harmless).
 */
export async function redriveBatch(
  batchId: string,
  deps: BatchControlDependencies,
  selection: RedriveSelection = 'not_charged',
): Promise<RedriveOutcome> {
  const { batchRecords, batchRows, queue, logger } = deps;
  const batch = await batchRecords.getBatch(batchId);
  if (batch === null) return { outcome: 'not_found', batchId };
  if (batch.failure !== null) return { outcome: 'not_completed', batchId };
  // The revision this redrive produces: the next one, or the current one when resuming an interrupted redrive.
  let revision = batch.revision;
  if (batch.status === 'completed') {
    const redrivable = batch.failed === 0 ? null : await redrivableRows(batchId, deps);
    const left = redrivable?.[otherSelection(selection)] ?? 0;
    if (redrivable === null || redrivable[selection] === 0)
      return { outcome: 'nothing_to_redrive', batchId, left };
    if (!(await batchRecords.reopenForRedrive(batchId))) return { outcome: 'not_completed', batchId };
    revision = batch.revision + 1;
  } else if (!(batch.status === 'running' && batch.requeuing)) {
    // Only a redrive stopped halfway is taken further; a redrive revision already under way is not a new one.
    return { outcome: 'not_completed', batchId };
  }
  const limit = pLimit(PARALLEL_UPDATES);
  let requeued = 0;
  let left = 0;
  for await (const page of batchRows.rows(batchId)) {
    left += page.filter((row) => isRedrivable(row, otherSelection(selection))).length;
    const candidates = page.filter(
      (row) => (row.state === 'queued' && row.document !== null) || isRedrivable(row, selection),
    );
    const back = await Promise.all(
      candidates.map((row) =>
        limit(async () =>
          row.state === 'queued' ? true : batchRows.requeueFailedRow(batchId, row.row, row),
        ),
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
        lane: laneOfBatch(batch),
      }));
    for (let start = 0; start < messages.length; start += SEND_BATCH)
      await queue.sendWork(messages.slice(start, start + SEND_BATCH));
    requeued += messages.length;
  }
  // Only now may the batch be finalised: until every failed row was back in the queue, the counts could still fall.
  await batchRecords.finishRequeue(batchId);
  // Nothing could be sent back (rows without a document are failed for good): finish the revision at once.
  await finaliseIfLast(batchId, deps);
  logger.info('batch redriven', { batchId, requeued, revision, selection });
  return { outcome: 'redriven', batchId, requeued, revision, left };
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
