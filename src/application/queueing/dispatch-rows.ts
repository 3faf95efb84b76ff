import { type DispatchMessage, laneOfBatch, partsOf, type RowRange } from '../../domain/batch/index.ts';
import type { BatchRecords, BatchRows, Logger, WorkQueue } from '../../domain/ports/index.ts';
import { sendQueuedRows } from './send-queued-rows.ts';

/**
 * Rows per part of a dispatch. A part reads its rows page by page and sends at most this many work messages (a
 * thousand SendMessageBatch calls): seconds of work at any batch size, well inside the dispatcher's timeout, and a
 * 10,000,000-row batch is a thousand parts.
 */
const DISPATCH_PART_ROWS = 10_000;

export interface DispatchDependencies {
  readonly batchRecords: Pick<BatchRecords, 'getBatch'>;
  readonly batchRows: Pick<BatchRows, 'rows'>;
  readonly queue: Pick<WorkQueue, 'sendWork' | 'sendDispatch'>;
  readonly logger: Logger;
  /** Rows per part. @default DISPATCH_PART_ROWS */
  readonly partRows?: number;
}

/** What one dispatch message did: the parts it asked for (a whole batch), or the work messages it sent (a part). */
export type DispatchOutcome =
  | { readonly outcome: 'split'; readonly batchId: string; readonly parts: number }
  | { readonly outcome: 'sent'; readonly batchId: string; readonly part: RowRange; readonly sent: number }
  | { readonly outcome: 'not_found' | 'awaiting_approval'; readonly batchId: string };

/**
 * Sends the work messages of a batch's rows still queued, inside AWS, whatever the batch's size: a whole-batch
 * message becomes one message per part of {@link DISPATCH_PART_ROWS} rows, and each part sends its own rows, so
 * parts run in parallel on the dispatcher's concurrency and no invocation's time or memory grows with the batch.
 * Safe to repeat (SQS delivers at least once, an operator may approve twice): a row that gets two messages is
 * claimed once, and the second message finds it claimed or settled and buys nothing. A batch still waiting for
 * approval gets no message at all. A rejected batch's rows left queued (an interrupted reject) are sent: the worker
 * settles them `not_queried` without a call, which finishes the reject.
 */
export async function dispatchRows(
  message: DispatchMessage,
  deps: DispatchDependencies,
): Promise<DispatchOutcome> {
  const { batchId } = message;
  const batch = await deps.batchRecords.getBatch(batchId);
  if (batch === null) return { outcome: 'not_found', batchId };
  if (batch.status === 'awaiting_approval') return { outcome: 'awaiting_approval', batchId };
  if (message.part === undefined) {
    const parts = await dispatchParts(batchId, batch.rows, deps.queue, deps.partRows);
    deps.logger.info('dispatch split into parts', { batchId, parts });
    return { outcome: 'split', batchId, parts };
  }
  const sent = await sendQueuedRows({ ...batch, lane: laneOfBatch(batch) }, deps, message.part);
  return { outcome: 'sent', batchId, part: message.part, sent };
}

/**
 * Asks the dispatcher to send the queued rows of a batch of `rows` rows, one message per part: for a caller that
 * knows the batch's size before its record says it (ingest, before it finishes the batch).
 */
export async function dispatchParts(
  batchId: string,
  rows: number,
  queue: Pick<WorkQueue, 'sendDispatch'>,
  partRows = DISPATCH_PART_ROWS,
): Promise<number> {
  const parts = partsOf(rows, partRows);
  await queue.sendDispatch(parts.map((part) => ({ version: 1, batchId, part })));
  return parts.length;
}
