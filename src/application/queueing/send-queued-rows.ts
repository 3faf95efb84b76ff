import type { DeliveryLane, RowRange, WorkMessage } from '../../domain/batch/index.ts';
import type { BatchRows, WorkQueue } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

const SEND_CHUNK = 500;

/**
 * Sends one work message for every row of a batch still queued (or of those numbered within `range`), page by page:
 * for the rows of a batch whose messages were held (it waited for approval, or ingest held them to quote it first).
 * Safe to repeat after an interruption: a row that gets two messages is claimed once (the second finds it claimed
 * or settled).
 */
export async function sendQueuedRows(
  batch: { readonly batchId: string; readonly bureau: Bureau; readonly lane: DeliveryLane },
  deps: { readonly batchRows: Pick<BatchRows, 'rows'>; readonly queue: Pick<WorkQueue, 'sendWork'> },
  range?: RowRange,
): Promise<number> {
  let sent = 0;
  let pending: WorkMessage[] = [];
  const send = async () => {
    await deps.queue.sendWork(pending);
    sent += pending.length;
    pending = [];
  };
  for await (const page of deps.batchRows.rows(batch.batchId, range)) {
    for (const row of page) {
      if (row.state !== 'queued' || row.document === null) continue;
      pending.push({
        version: 1,
        batchId: batch.batchId,
        row: row.row,
        document: row.document,
        bureau: batch.bureau,
        lane: batch.lane,
      });
      if (pending.length >= SEND_CHUNK) await send();
    }
  }
  if (pending.length > 0) await send();
  return sent;
}
