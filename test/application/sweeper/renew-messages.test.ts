import { describe, expect, it } from 'vitest';
import { memoryBatchStore } from '../../../src/adapters/memory/memory-batch-store.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import { decideBatchApproval } from '../../../src/application/batch-control/batch-control.ts';
import { dispatchRows } from '../../../src/application/queueing/dispatch-rows.ts';
import { sweepStuckRows } from '../../../src/application/sweeper/sweep-stuck-rows.ts';
import { RENEW_MESSAGES_AFTER_SECONDS } from '../../../src/contract/index.ts';
import { quoteOf } from '../../../src/domain/spend/index.ts';
import { asStores, queuedRows } from '../../factories/batch-records.ts';
import { RecordingWorkQueue } from '../../factories/recording-ports.ts';

const BATCH = 'batch-long';
const DAY_MS = 86_400_000;

/** A running batch of five queued rows, created at time 0 on a clock the test moves; awaiting approval if told. */
async function longBatch(options: { awaitingApproval?: boolean } = {}) {
  const clock = { now: 0 };
  const store = memoryBatchStore({ now: () => clock.now });
  await store.createBatch({
    batchId: BATCH,
    sourceBucket: 'b',
    sourceKey: 'incoming/a/list.csv',
    bureau: 'a',
    excelSummary: false,
  });
  await store.writeRows(BATCH, queuedRows(5, 'long'));
  const quote = quoteOf({ bureau: 'a', unique: 5, reusable: 0, pricePerQuery: 2.7, ratePerSecond: 10 });
  await store.finishIngest(
    BATCH,
    { rows: 5, invalid: 0, duplicates: 0, toScreen: 5, cached: 0 },
    { quote, awaitingApproval: options.awaitingApproval ?? false },
  );
  const queue = new RecordingWorkQueue();
  const deps = { ...asStores(store), queue, logger: new MemoryLogger() };
  const sweep = () => sweepStuckRows({ ...deps, settings: { stuckClaimSeconds: 60 }, now: () => clock.now });
  return { clock, store, queue, deps, sweep };
}

describe('the sweeper renews the messages of a batch that runs longer than SQS keeps them', () => {
  it('dispatches the queued rows again two days before their messages expire, once per renewal', async () => {
    const { clock, store, queue, deps, sweep } = await longBatch();
    clock.now = RENEW_MESSAGES_AFTER_SECONDS * 1000 - 60_000;
    const early = await sweep();
    await store.claimRow(BATCH, 1, 3600);

    clock.now = RENEW_MESSAGES_AFTER_SECONDS * 1000;
    const due = await sweep();
    const again = await sweep();
    for (let next = queue.dispatch.shift(); next !== undefined; next = queue.dispatch.shift())
      await dispatchRows(next, deps);

    expect(early.renewed).toBe(0);
    expect(due.renewed).toBe(1);
    expect(again.renewed).toBe(0);
    // Row 1 is held by a worker: only the rows still queued get a message.
    expect(queue.work.map((message) => message.row)).toEqual([2, 3, 4, 5]);
    expect((await store.getBatch(BATCH))?.messagesSentAt).toBe(
      new Date(RENEW_MESSAGES_AFTER_SECONDS * 1000).toISOString(),
    );
  });

  it('counts from the approval for an approved batch, and never renews one waiting for approval', async () => {
    const { clock, queue, deps, sweep } = await longBatch({ awaitingApproval: true });
    clock.now = 20 * DAY_MS;
    const waiting = await sweep();
    await decideBatchApproval(BATCH, 'approved', deps);
    queue.dispatch.length = 0;

    clock.now = 20 * DAY_MS + RENEW_MESSAGES_AFTER_SECONDS * 1000 - 60_000;
    const beforeDue = await sweep();
    clock.now += 60_000;
    const due = await sweep();

    expect(waiting.renewed).toBe(0);
    expect(beforeDue.renewed).toBe(0);
    expect(due.renewed).toBe(1);
    expect(queue.dispatch).toEqual([{ version: 1, batchId: BATCH }]);
  });
});
