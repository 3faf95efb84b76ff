import { describe, expect, it } from 'vitest';
import { memoryBatchStore } from '../../../src/adapters/memory/memory-batch-store.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { redriveBatch } from '../../../src/application/batch-control/batch-control.ts';
import { finaliseIfLast } from '../../../src/application/completion/finalise-if-last.ts';
import { resumeInterruptedBatches } from '../../../src/application/sweeper/sweep-stuck-rows.ts';
import type { BatchStore } from '../../../src/domain/ports/index.ts';
import { asStores, queuedRows } from '../../factories/batch-records.ts';
import { RecordingWorkQueue } from '../../factories/recording-ports.ts';

/** A completed batch whose rows all failed (the bureau was down), its finalisation done. */
async function completedBatch(store: BatchStore, queue: RecordingWorkQueue, rows: number) {
  const batchId = 'batch-redrive';
  await store.createBatch({ batchId, sourceBucket: 'b', sourceKey: 'k', bureau: 'a', excelSummary: false });
  await store.writeRows(batchId, queuedRows(rows, batchId));
  await store.finishIngest(batchId, { rows, invalid: 0, duplicates: 0, toScreen: rows, cached: 0 });
  for (let row = 1; row <= rows; row++) {
    const claim = await store.claimRow(batchId, row, 60);
    if (!claim.claimed) throw new Error(`row ${row} not claimed`);
    await store.settleRow(batchId, row, claim.claimToken, {
      outcome: 'failed',
      reason: 'bureau unavailable',
    });
  }
  await finaliseIfLast(batchId, { ...asStores(store), queue });
  await store.completeBatch(batchId, 'manifest');
  queue.finalise.length = 0;
  return batchId;
}

describe('redriveBatch', () => {
  it('cannot be finalised by a settle or a sweep that comes while its failed rows are being sent back', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await completedBatch(store, queue, 5);
    const claimsDuringRequeue: boolean[] = [];
    // A sweeper (or a late settle) runs finaliseIfLast between the reopening and the first row going back: the
    // batch then reads "5 of 5 settled", which is true only for that moment.
    const requeue = store.requeueFailedRow.bind(store);
    store.requeueFailedRow = async (id, row) => {
      if (row === 1) {
        await finaliseIfLast(id, { ...asStores(store), queue });
        claimsDuringRequeue.push((await store.getBatch(id))?.status === 'finalising');
      }
      return requeue(id, row);
    };

    const outcome = await redriveBatch(batchId, { ...asStores(store), queue, logger: new MemoryLogger() });
    const batch = await store.getBatch(batchId);

    expect(outcome).toMatchObject({ outcome: 'redriven', requeued: 5, revision: 2 });
    expect(claimsDuringRequeue).toEqual([false]);
    expect(queue.finalise).toEqual([]);
    expect(batch).toMatchObject({ status: 'running', requeuing: false, failed: 0, settled: 0 });
    expect(queue.work.map((message) => message.row)).toEqual([1, 2, 3, 4, 5]);
  });

  it('finalises at once when no failed row can be sent back, once requeuing is over', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await completedBatch(store, queue, 2);
    store.requeueFailedRow = async () => false;

    await redriveBatch(batchId, { ...asStores(store), queue, logger: new MemoryLogger() });

    expect(queue.finalise).toEqual([{ version: 1, batchId }]);
    expect(await store.getBatch(batchId)).toMatchObject({
      status: 'finalising',
      revision: 2,
      requeuing: false,
    });
  });

  it('is finished by the next local resume when it was interrupted halfway', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await completedBatch(store, queue, 4);
    // The redrive reopened the batch and sent one row back, then its process died.
    await store.reopenForRedrive(batchId);
    await store.requeueFailedRow(batchId, 1);

    await resumeInterruptedBatches({
      ...asStores(store),
      queue,
      logger: new MemoryLogger(),
      settings: { stuckClaimSeconds: 60 },
    });

    expect(queue.work.map((message) => message.row).sort()).toEqual([1, 2, 3, 4]);
    expect(await store.getBatch(batchId)).toMatchObject({ status: 'running', requeuing: false, failed: 0 });
  });
});
