import { describe, expect, it } from 'vitest';
import { memoryBatchStore } from '../../../src/adapters/memory/memory-batch-store.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { redrivableRows, redriveBatch } from '../../../src/application/batch-control/batch-control.ts';
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

/** Rows 1–2 failed unanswered (never charged), 3–4 lost a call's answer (charge unknown), 5 charged and unread. */
async function mixedFailures(store: BatchStore, queue: RecordingWorkQueue) {
  const batchId = 'batch-mixed';
  await store.createBatch({ batchId, sourceBucket: 'b', sourceKey: 'k', bureau: 'a', excelSummary: false });
  await store.writeRows(batchId, queuedRows(5, batchId));
  await store.finishIngest(batchId, { rows: 5, invalid: 0, duplicates: 0, toScreen: 5, cached: 0 });
  for (let row = 1; row <= 5; row++) {
    const claim = await store.claimRow(batchId, row, 60);
    if (!claim.claimed) throw new Error(`row ${row} not claimed`);
    if (row === 3 || row === 4) await store.recordUncertainCall(batchId, row, claim.claimToken);
    await store.settleRow(batchId, row, claim.claimToken, {
      outcome: 'failed',
      reason: 'failed',
      ...(row === 5 ? { answered: true } : {}),
    });
  }
  await finaliseIfLast(batchId, { ...asStores(store), queue });
  await store.completeBatch(batchId, 'manifest');
  return batchId;
}

describe('redriveBatch', () => {
  it('sends back only the rows never charged, unless asked for those whose charge is unknown', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await mixedFailures(store, queue);
    const control = { ...asStores(store), queue, logger: new MemoryLogger() };

    const counted = await redrivableRows(batchId, control);
    const plain = await redriveBatch(batchId, control);
    const plainRows = queue.work.map((message) => message.row);

    expect(counted).toEqual({ not_charged: 2, charge_unknown: 2 });
    expect(plain).toEqual({ outcome: 'redriven', batchId, requeued: 2, revision: 2, left: 2 });
    expect(plainRows).toEqual([1, 2]);
  });

  it('sends back the rows whose charge is unknown when asked, and never a row that was charged', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await mixedFailures(store, queue);
    const control = { ...asStores(store), queue, logger: new MemoryLogger() };

    const outcome = await redriveBatch(batchId, control, 'charge_unknown');

    expect(outcome).toEqual({ outcome: 'redriven', batchId, requeued: 2, revision: 2, left: 2 });
    expect(queue.work.map((message) => message.row)).toEqual([3, 4]);
  });

  it('says there is nothing to redrive, and what the other kind would send back', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await completedBatch(store, queue, 3);
    const control = { ...asStores(store), queue, logger: new MemoryLogger() };

    const outcome = await redriveBatch(batchId, control, 'charge_unknown');

    expect(outcome).toEqual({ outcome: 'nothing_to_redrive', batchId, left: 3 });
    expect(await store.getBatch(batchId)).toMatchObject({ status: 'completed', revision: 1 });
  });

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

  it('left halfway, is finished by a resume without the rows whose charge is unknown', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await mixedFailures(store, queue);
    await store.reopenForRedrive(batchId);
    queue.work.length = 0;

    await resumeInterruptedBatches({
      ...asStores(store),
      queue,
      logger: new MemoryLogger(),
      settings: { stuckClaimSeconds: 60 },
    });
    const rows = await store.getRows(batchId, [1, 2, 3, 4, 5]);

    expect(queue.work.map((message) => message.row).sort()).toEqual([1, 2]);
    expect(rows.map((row) => row.state)).toEqual(['queued', 'queued', 'failed', 'failed', 'failed']);
  });

  it('is not started again on a batch whose redrive revision is already under way', async () => {
    const store = memoryBatchStore();
    const queue = new RecordingWorkQueue();
    const batchId = await mixedFailures(store, queue);
    const control = { ...asStores(store), queue, logger: new MemoryLogger() };
    await redriveBatch(batchId, control);
    queue.work.length = 0;

    const again = await redriveBatch(batchId, control, 'charge_unknown');

    expect(again).toEqual({ outcome: 'not_completed', batchId });
    expect(queue.work).toEqual([]);
  });
});
