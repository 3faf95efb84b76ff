import { describe, expect, it } from 'vitest';
import { memoryBatchStore } from '../../../src/adapters/memory/memory-batch-store.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { dispatchRows } from '../../../src/application/queueing/dispatch-rows.ts';
import { partsOf } from '../../../src/domain/batch/index.ts';
import { quoteOf } from '../../../src/domain/spend/index.ts';
import { asStores, queuedRows } from '../../factories/batch-records.ts';
import { RecordingWorkQueue } from '../../factories/recording-ports.ts';

const BATCH = 'batch-dispatch';

/** A batch of `rows` queued rows, ingested; awaiting approval when told so. */
async function ingestedBatch(rows: number, options: { awaitingApproval?: boolean; sourceKey?: string } = {}) {
  const store = memoryBatchStore();
  const sourceKey = options.sourceKey ?? 'incoming/a/list.csv';
  await store.createBatch({ batchId: BATCH, sourceBucket: 'b', sourceKey, bureau: 'a', excelSummary: false });
  await store.writeRows(BATCH, queuedRows(rows, 'dispatch'));
  const quote = quoteOf({ bureau: 'a', unique: rows, reusable: 0, pricePerQuery: 2.7, ratePerSecond: 10 });
  await store.finishIngest(
    BATCH,
    { rows, invalid: 0, duplicates: 0, toScreen: rows, cached: 0 },
    { quote, awaitingApproval: options.awaitingApproval ?? false },
  );
  const queue = new RecordingWorkQueue();
  return { store, queue, deps: { ...asStores(store), queue, logger: new MemoryLogger(), partRows: 10 } };
}

/** Delivers every dispatch message asked for, as the dispatch queue would, until none is left. */
async function drainDispatches(deps: Awaited<ReturnType<typeof ingestedBatch>>['deps']) {
  const outcomes = [];
  for (let next = deps.queue.dispatch.shift(); next !== undefined; next = deps.queue.dispatch.shift())
    outcomes.push(await dispatchRows(next, deps));
  return outcomes;
}

describe('dispatching a batch’s queued rows in parts', () => {
  it('splits a whole batch into parts, and the parts send each queued row once, in its lane', async () => {
    const { queue, deps } = await ingestedBatch(25, { sourceKey: 'incoming/a/priority/list.csv' });
    queue.dispatch.push({ version: 1, batchId: BATCH });

    const outcomes = await drainDispatches(deps);

    expect(outcomes).toEqual([
      { outcome: 'split', batchId: BATCH, parts: 3 },
      { outcome: 'sent', batchId: BATCH, part: { first: 1, last: 10 }, sent: 10 },
      { outcome: 'sent', batchId: BATCH, part: { first: 11, last: 20 }, sent: 10 },
      { outcome: 'sent', batchId: BATCH, part: { first: 21, last: 25 }, sent: 5 },
    ]);
    expect(queue.work.map((message) => message.row)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(new Set(queue.work.map((message) => message.lane))).toEqual(new Set(['priority']));
  });

  it('sends no message for a row no longer queued (claimed, settled or withheld)', async () => {
    const { store, queue, deps } = await ingestedBatch(12);
    await store.claimRow(BATCH, 2, 60);
    await store.withholdQueuedRow(BATCH, 5, { outcome: 'cancelled', reason: 'cancelled' });
    queue.dispatch.push({ version: 1, batchId: BATCH, part: { first: 1, last: 10 } });

    const [outcome] = await drainDispatches(deps);

    expect(outcome).toMatchObject({ outcome: 'sent', sent: 8 });
    expect(queue.work.map((message) => message.row)).toEqual([1, 3, 4, 6, 7, 8, 9, 10]);
  });

  it('sends nothing for a batch still waiting for approval, or one that does not exist', async () => {
    const { queue, deps } = await ingestedBatch(5, { awaitingApproval: true });
    queue.dispatch.push({ version: 1, batchId: BATCH }, { version: 1, batchId: 'no-such-batch' });

    const outcomes = await drainDispatches(deps);

    expect(outcomes).toEqual([
      { outcome: 'awaiting_approval', batchId: BATCH },
      { outcome: 'not_found', batchId: 'no-such-batch' },
    ]);
    expect(queue.work).toEqual([]);
  });
});

describe('the parts of a batch', () => {
  it('cover rows 1 to n once each, in ranges of at most the part size', () => {
    expect(partsOf(0, 10)).toEqual([]);
    expect(partsOf(10, 10)).toEqual([{ first: 1, last: 10 }]);
    expect(partsOf(21, 10)).toEqual([
      { first: 1, last: 10 },
      { first: 11, last: 20 },
      { first: 21, last: 21 },
    ]);
    expect(partsOf(10_000_000, 10_000)).toHaveLength(1000);
  });
});
