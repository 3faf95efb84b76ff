import { describe, expect, it } from 'vitest';
import { memoryBatchStore } from '../../../src/adapters/memory/memory-batch-store.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { decideBatchApproval, redriveBatch } from '../../../src/application/batch-control/batch-control.ts';
import { dispatchRows } from '../../../src/application/queueing/dispatch-rows.ts';
import { sweepStuckRows } from '../../../src/application/sweeper/sweep-stuck-rows.ts';
import { quoteOf } from '../../../src/domain/spend/index.ts';
import { asStores, queuedRows } from '../../factories/batch-records.ts';
import { RecordingWorkQueue } from '../../factories/recording-ports.ts';

const PRIORITY_UPLOAD = 'incoming/a/priority/list.csv';

/** A store with one batch of three queued rows being ingested, started by `sourceKey` (or a portfolio). */
async function runningBatch(sourceKey: string, portfolio?: string, now = () => 0) {
  const store = memoryBatchStore({ now });
  const queue = new RecordingWorkQueue();
  const batchId = 'batch-lanes';
  await store.createBatch({
    batchId,
    sourceBucket: 'b',
    sourceKey,
    bureau: 'a',
    excelSummary: false,
    portfolio,
  });
  await store.writeRows(batchId, queuedRows(3, sourceKey));
  return { store, queue, batchId, logger: new MemoryLogger() };
}

describe('messages sent again after ingest keep their batch’s lane', () => {
  it('an approved priority upload sends its rows in the priority lane', async () => {
    const { store, queue, batchId, logger } = await runningBatch(PRIORITY_UPLOAD);
    const quote = quoteOf({ bureau: 'a', unique: 3, reusable: 0, pricePerQuery: 2.7, ratePerSecond: 10 });
    await store.finishIngest(
      batchId,
      { rows: 3, invalid: 0, duplicates: 0, toScreen: 3, cached: 0 },
      { quote, awaitingApproval: true },
    );

    await decideBatchApproval(batchId, 'approved', { ...asStores(store), queue, logger });
    for (let next = queue.dispatch.shift(); next !== undefined; next = queue.dispatch.shift())
      await dispatchRows(next, { ...asStores(store), queue, logger });

    expect(queue.work.map((message) => message.lane)).toEqual(['priority', 'priority', 'priority']);
  });

  it('the sweeper re-sends a priority row whose claim ran out in the priority lane', async () => {
    let now = 0;
    const { store, queue, batchId, logger } = await runningBatch(PRIORITY_UPLOAD, undefined, () => now);
    await store.finishIngest(batchId, { rows: 3, invalid: 0, duplicates: 0, toScreen: 3, cached: 0 });
    await store.claimRow(batchId, 1, 30);
    now += 3_600_000;

    await sweepStuckRows({
      ...asStores(store),
      queue,
      logger,
      settings: { stuckClaimSeconds: 60 },
      now: () => now,
    });

    expect(queue.work).toMatchObject([{ row: 1, lane: 'priority' }]);
  });

  it('a redriven portfolio run sends its failed rows in the scheduled lane', async () => {
    const { store, queue, batchId, logger } = await runningBatch('portfolios/a/clients.csv', 'clients');
    await store.finishIngest(batchId, { rows: 3, invalid: 0, duplicates: 0, toScreen: 3, cached: 0 });
    for (const row of [1, 2, 3]) {
      const claim = await store.claimRow(batchId, row, 30);
      if (claim.claimed)
        await store.settleRow(batchId, row, claim.claimToken, { outcome: 'failed', reason: 'down' });
    }
    await store.claimFinalisation(batchId);
    await store.completeBatch(batchId, 'manifest');

    await redriveBatch(batchId, { ...asStores(store), queue, logger });

    expect(queue.work.map((message) => message.lane)).toEqual(['scheduled', 'scheduled', 'scheduled']);
  });
});
